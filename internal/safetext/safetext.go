// Package safetext makes text chosen by a far end (an agent's close reason, error body,
// transcript, RTVI text) safe to record and to print: what reaches turns.jsonl, the text report
// and the live terminal view can neither move the cursor, recolour the screen nor set a window
// title, and its length is bounded.
package safetext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Caps for the kinds of text a far end chooses.
const (
	MaxText  = 512  // a transcript, RTVI text, close reason or id
	MaxError = 1024 // an error message, which may quote several of the above
)

// ellipsis marks text cut by Clean.
const ellipsis = "…"

// Clean returns s as printable UTF-8 of at most max bytes (max <= 0: no cap): invalid UTF-8, C0
// and C1 control characters, DEL, Unicode format characters (bidi overrides, zero-width) and
// whole ANSI/ECMA-48 escape sequences (CSI, OSC, DCS, ...) are dropped; tabs and line breaks
// become spaces; leading and trailing spaces are trimmed; text over max is cut on a rune
// boundary and ends in "…". Clean is idempotent.
func Clean(s string, max int) string {
	if plain(s, max) {
		return s
	}
	var b strings.Builder
	b.Grow(min(len(s), capHint(max)))
	var st escState
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r == utf8.RuneError && size <= 1 {
			st = escNone // invalid UTF-8 ends any sequence and is dropped
			continue
		}
		if st.consume(r) {
			continue
		}
		switch {
		case r == '\t' || r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029':
			b.WriteByte(' ')
		case unicode.IsGraphic(r):
			b.WriteRune(r)
		}
	}
	return cut(strings.TrimSpace(b.String()), max)
}

// capHint sizes the builder: the cap plus room for the ellipsis, or the input when uncapped.
func capHint(max int) int {
	if max <= 0 {
		return 1 << 30
	}
	return max + len(ellipsis)
}

// plain reports whether s is printable ASCII with no edge spaces, within max: kept as it is.
func plain(s string, max int) bool {
	if max > 0 && len(s) > max {
		return false
	}
	if s != "" && (s[0] == ' ' || s[len(s)-1] == ' ') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// cut shortens s to at most max bytes on a rune boundary, ending in the ellipsis.
func cut(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	if max < len(ellipsis) {
		return strings.Repeat(".", max) // no room for the ellipsis: a marker of its length
	}
	n := max - len(ellipsis)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.TrimRight(s[:n], " ") + ellipsis
}

// escState follows an ECMA-48 escape or control sequence being dropped.
type escState uint8

const (
	escNone   escState = iota
	escStart           // ESC seen
	escCSI             // ESC [ or CSI: parameters and intermediates up to a final byte 0x40-0x7E
	escString          // OSC, DCS, SOS, PM, APC: up to BEL or ST (ESC \ or U+009C)
	escStrEsc          // ESC inside a string: "\" ends it
	escInter           // ESC then intermediates 0x20-0x2F, up to a final byte 0x30-0x7E
)

// consume reports whether r belongs to an escape sequence (and is dropped), moving the state on.
// ECMA-48 §5.3-5.6: 7-bit ESC Fe forms and their 8-bit C1 equivalents.
func (st *escState) consume(r rune) bool {
	switch *st {
	case escNone:
		switch {
		case r == 0x1b:
			*st = escStart
		case r == 0x9b:
			*st = escCSI
		case r == 0x90 || r == 0x98 || r == 0x9d || r == 0x9e || r == 0x9f:
			*st = escString
		default:
			return isControl(r)
		}
	case escStart:
		switch {
		case r == '[':
			*st = escCSI
		case r == ']' || r == 'P' || r == 'X' || r == '^' || r == '_':
			*st = escString
		case r >= 0x20 && r <= 0x2f:
			*st = escInter
		default:
			*st = escNone // a two-character sequence (ESC c, ESC 7, ...), or ESC before text
		}
	case escCSI:
		if r < 0x20 || r > 0x3f { // parameters 0x30-0x3F, intermediates 0x20-0x2F
			*st = escNone // a final byte, or anything else ends it
		}
	case escString:
		switch r {
		case 0x07, 0x9c:
			*st = escNone
		case 0x1b:
			*st = escStrEsc
		}
	case escStrEsc:
		*st = escString
		if r == '\\' {
			*st = escNone
		}
	case escInter:
		if r < 0x20 || r > 0x2f {
			*st = escNone
		}
	}
	return true
}

// isControl reports a character that is not text and does not become a space: C0 and C1
// controls and DEL (Cc) other than the line breaks Clean turns into spaces, and format characters
// (Cf: bidi overrides, zero-width joiners), which can make a terminal show text out of order.
func isControl(r rune) bool {
	switch r {
	case '\t', '\n', '\r':
		return false
	}
	return unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r)
}

// Error returns err with its message cleaned (Clean with MaxError) and err still reachable by
// errors.Is and errors.As; nil stays nil.
func Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	clean := Clean(msg, MaxError)
	if clean == msg {
		return err
	}
	return &cleanError{err: err, msg: clean}
}

type cleanError struct {
	err error
	msg string
}

func (e *cleanError) Error() string { return e.msg }
func (e *cleanError) Unwrap() error { return e.err }
