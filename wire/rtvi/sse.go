package rtvi

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// DefaultMaxLineSize fits a data line carrying a MaxMessageSize message.
const DefaultMaxLineSize = MaxMessageSize + 64

// WriteSSE writes m as one Server-Sent Event, "event: <type>\ndata: <json>\n\n", in a single
// Write call.
func WriteSSE(w io.Writer, m Message) error {
	if strings.ContainsAny(m.Type, "\r\n") {
		return fmt.Errorf("write rtvi sse: %w: line break in type %q", ErrMalformed, m.Type)
	}
	js, err := Encode(m)
	if err != nil {
		return fmt.Errorf("write rtvi sse: %w", err)
	}
	buf := make([]byte, 0, len(m.Type)+len(js)+16)
	buf = append(buf, "event: "...)
	buf = append(buf, m.Type...)
	buf = append(buf, "\ndata: "...)
	buf = append(buf, js...) // compact JSON holds no raw line breaks
	buf = append(buf, "\n\n"...)
	if _, err := w.Write(buf); err != nil {
		return fmt.Errorf("write rtvi sse %s: %w", m.Type, err)
	}
	return nil
}

// SSEReader reads RTVI messages from a Server-Sent Events stream, following the WHATWG
// event-stream parsing rules: lines end in CRLF, LF or CR; lines starting with ":" are comments;
// data lines are joined with "\n"; a blank line dispatches the event; an event cut off by the end
// of the stream is dropped.
type SSEReader struct {
	// MaxLineSize caps one line; 0 means DefaultMaxLineSize. Set it before the first Next.
	MaxLineSize int

	r      io.Reader
	buf    []byte
	start  int // unread bytes are buf[start:end]
	end    int
	skipLF bool // the last line ended in CR, so a leading LF belongs to it
	begun  bool // the optional BOM has been handled
	err    error

	data     []byte
	oversize bool   // the current event's data passed MaxMessageSize
	event    string // event field of the event being read
	name     string // event field of the last dispatched event
	lastID   string
}

// NewSSEReader returns a reader of the stream r.
func NewSSEReader(r io.Reader) *SSEReader {
	return &SSEReader{r: r}
}

// Next returns the next event's message. Errors wrapping io.EOF, ErrLineTooLong or a read error
// are final and repeat on every later call; any other error (ErrTooLarge, ErrNotRTVI,
// ErrMalformed…) concerns one event, and Next can be called again for the following one.
func (s *SSEReader) Next() (Message, error) {
	for {
		line, err := s.readLine()
		if err != nil {
			return Message{}, err
		}
		if len(line) == 0 {
			if m, ok, err := s.dispatch(); ok || err != nil {
				return m, err
			}
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			value = bytes.TrimPrefix(value, []byte(" "))
		}
		switch string(field) {
		case "data":
			if s.oversize || len(s.data)+len(value)+1 > MaxMessageSize+1 {
				s.oversize, s.data = true, s.data[:0]
				continue
			}
			s.data = append(s.data, value...)
			s.data = append(s.data, '\n')
		case "event":
			s.event = string(value)
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				s.lastID = string(value)
			}
		}
	}
}

// EventName returns the event field of the last dispatched event ("" means "message").
func (s *SSEReader) EventName() string { return s.name }

// LastEventID returns the last id field seen, for a reconnect's Last-Event-ID header.
func (s *SSEReader) LastEventID() string { return s.lastID }

// dispatch ends the current event; ok is false when it had no data, which the spec ignores.
func (s *SSEReader) dispatch() (m Message, ok bool, err error) {
	data, oversize := s.data, s.oversize
	s.data, s.oversize = s.data[:0], false
	s.name, s.event = s.event, ""
	if oversize {
		return Message{}, false, fmt.Errorf("read rtvi sse: %w", ErrTooLarge)
	}
	if len(data) == 0 {
		return Message{}, false, nil
	}
	m, err = Decode(data[:len(data)-1])
	if err != nil {
		return Message{}, false, fmt.Errorf("read rtvi sse: %w", err)
	}
	return m, true, nil
}

// readLine returns the next line without its terminator; the slice is valid until the next call.
func (s *SSEReader) readLine() ([]byte, error) {
	if s.err != nil {
		return nil, s.err
	}
	limit := s.MaxLineSize
	if limit <= 0 {
		limit = DefaultMaxLineSize
	}
	scanned := 0 // bytes of buf[start:end] known to hold no line break
	for {
		if s.skipLF && s.start < s.end {
			if s.buf[s.start] == '\n' {
				s.start++
			}
			s.skipLF = false
		}
		if !s.begun && s.end-s.start >= 3 {
			s.begun = true
			if bytes.HasPrefix(s.buf[s.start:s.end], []byte("\xef\xbb\xbf")) {
				s.start += 3
			}
		}
		if s.begun || s.end-s.start >= 3 {
			pending := s.buf[s.start:s.end]
			if i := bytes.IndexAny(pending[scanned:], "\r\n"); i >= 0 {
				i += scanned
				line := pending[:i]
				s.start += i + 1
				if pending[i] == '\r' {
					s.skipLF = true
				}
				return line, nil
			}
			scanned = len(pending)
			if scanned > limit {
				s.err = fmt.Errorf("read rtvi sse: %w: more than %d bytes", ErrLineTooLong, limit)
				return nil, s.err
			}
		}
		if err := s.fill(limit); err != nil {
			if errors.Is(err, io.EOF) && !s.begun && s.end > s.start {
				s.begun = true // a stream shorter than a BOM: scan what there is
				continue
			}
			s.err = err
			return nil, err
		}
	}
}

// fill reads more input, moving unread bytes to the front and growing buf up to limit+1.
func (s *SSEReader) fill(limit int) error {
	if s.start > 0 {
		s.end = copy(s.buf, s.buf[s.start:s.end])
		s.start = 0
	}
	if s.end == len(s.buf) {
		n := min(max(2*len(s.buf), 4096), limit+1)
		if n <= len(s.buf) {
			n = len(s.buf) + 1 // still room to see one byte past max
		}
		nb := make([]byte, n)
		copy(nb, s.buf[:s.end])
		s.buf = nb
	}
	for range 100 { // io.Reader may return 0, nil; give up after many in a row
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if n > 0 {
			return nil
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return io.EOF
			}
			return fmt.Errorf("read rtvi sse: %w", err)
		}
	}
	return fmt.Errorf("read rtvi sse: %w", io.ErrNoProgress)
}
