package safetext

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	cases := []struct {
		name, in string
		max      int
		want     string
	}{
		{"plain", "one two three", 0, "one two three"},
		{"unicode kept", "zwölf – 十二 😀", 0, "zwölf – 十二 😀"},
		{"line breaks", "one\ntwo\r\nthree\tfour\u2028five", 0, "one two  three four five"},
		{"edges trimmed", "  \n seven \t", 0, "seven"},
		{"c0 and del", "a\x00b\x07c\x08d\x7fe", 0, "abcde"},
		{"c1", "a\u0085b\u009cc\u0080d", 0, "abcd"},
		{"csi colour", "\x1b[31mred\x1b[0m", 0, "red"},
		{"csi clear screen", "x\x1b[2J\x1b[Hy", 0, "xy"},
		{"csi private", "\x1b[?25lhidden cursor", 0, "hidden cursor"},
		{"8-bit csi", "\u009b31mred", 0, "red"},
		{"osc title bel", "\x1b]0;pwned\x07after", 0, "after"},
		{"osc title st", "\x1b]0;pwned\x1b\\after", 0, "after"},
		{"osc 8 link", "\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\", 0, "click"},
		{"dcs", "\x1bPq#0;2;0;0;0\x1b\\ok", 0, "ok"},
		{"two-char escape", "\x1bcreset", 0, "reset"},
		{"charset escape", "\x1b(Bok", 0, "ok"},
		{"unterminated osc", "ok\x1b]0;rest of it", 0, "ok"},
		{"bidi override", "abc\u202edcba\u202c", 0, "abcdcba"},
		{"zero width", "a\u200bb\ufeffc", 0, "abc"},
		{"invalid utf-8", "a\xffb\xc3", 0, "ab"},
		{"cut ascii", "one two three four", 10, "one two…"},
		{"cut on rune", "ééééé", 6, "é…"},
		{"exact fit", "12345", 5, "12345"},
		{"tiny cap", "12345", 2, ".."},
		{"empty", "", 8, ""},
		{"only escapes", "\x1b[1m\x1b[0m", 8, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Clean(tc.in, tc.max)
			if got != tc.want {
				t.Errorf("Clean(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
			}
			checkClean(t, tc.in, tc.max, got)
		})
	}
}

func TestCleanUnchangedAllocatesNothing(t *testing.T) {
	s := "user said: one two three"
	if n := testing.AllocsPerRun(100, func() { _ = Clean(s, MaxText) }); n != 0 {
		t.Errorf("%v allocations for clean text", n)
	}
}

func TestError(t *testing.T) {
	if Error(nil) != nil {
		t.Fatal("Error(nil) is not nil")
	}
	plain := errors.New("plain")
	if Error(plain) != plain {
		t.Error("a clean error was rewrapped")
	}
	err := Error(fmt.Errorf("close 1011: \x1b[2J%s: %w", strings.Repeat("x", 2*MaxError), io.ErrUnexpectedEOF))
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("cause lost: %v", err)
	}
	msg := err.Error()
	if strings.ContainsRune(msg, 0x1b) || len(msg) > MaxError || !strings.HasPrefix(msg, "close 1011: ") {
		t.Errorf("message not cleaned: %q (%d bytes)", msg[:40], len(msg))
	}
}

// checkClean asserts what Clean promises of any input.
func checkClean(t *testing.T, in string, max int, got string) {
	t.Helper()
	if !utf8.ValidString(got) {
		t.Fatalf("Clean(%q) = %q: invalid UTF-8", in, got)
	}
	if max > 0 && len(got) > max {
		t.Fatalf("Clean(%q, %d) = %q: %d bytes", in, max, got, len(got))
	}
	for _, r := range got {
		if r != ' ' && !unicode.IsGraphic(r) || unicode.Is(unicode.Cf, r) {
			t.Fatalf("Clean(%q) = %q: kept %U", in, got, r)
		}
	}
	if got != strings.TrimSpace(got) {
		t.Fatalf("Clean(%q) = %q: edge spaces", in, got)
	}
	if again := Clean(got, max); again != got {
		t.Fatalf("not idempotent: Clean(%q) = %q, again %q", in, got, again)
	}
}

// FuzzClean checks that whatever goes in, what comes out is printable, valid, capped, free of
// escapes and stable under a second Clean.
func FuzzClean(f *testing.F) {
	for _, s := range []string{
		"one two", "\x1b[31mred\x1b[0m", "\x1b]0;t\x07", "\u009b2J", "a\u202eb", "ééé\xff", "\x1bP\x1b\\",
		"\x1b\x1b[", "\u00a0x\u00a0", "\u3000…\u3000",
	} {
		f.Add(s, 0)
		f.Add(s, 4)
	}
	f.Fuzz(func(t *testing.T, s string, max int) {
		max %= 2 * MaxText
		got := Clean(s, max)
		checkClean(t, s, max, got)
		if strings.ContainsRune(got, 0x1b) || strings.ContainsRune(got, 0x9b) {
			t.Fatalf("escape kept in %q", got)
		}
	})
}
