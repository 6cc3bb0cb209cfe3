package rtvi

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/callfleet/callfleet/internal/golden"
)

func TestWriteSSEGolden(t *testing.T) {
	var buf bytes.Buffer
	for _, m := range constructed() {
		if err := WriteSSE(&buf, m); err != nil {
			t.Fatal(err)
		}
	}
	golden.Check(t, "stream.sse", buf.Bytes())

	// The reader gets back exactly what was written, whatever the read sizes.
	for name, r := range map[string]io.Reader{
		"whole":    bytes.NewReader(buf.Bytes()),
		"one byte": iotest.OneByteReader(bytes.NewReader(buf.Bytes())),
		"half":     iotest.HalfReader(bytes.NewReader(buf.Bytes())),
	} {
		got := readAll(t, NewSSEReader(r))
		if !reflect.DeepEqual(got, constructed()) {
			t.Errorf("%s: read back %d messages, differ from written", name, len(got))
		}
	}
}

func readAll(t *testing.T, r *SSEReader) []Message {
	t.Helper()
	var out []Message
	for range 1000 {
		m, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		out = append(out, m)
	}
	t.Fatal("Next never reached EOF")
	return nil
}

func TestSSEReaderFraming(t *testing.T) {
	const ev = `{"label":"rtvi-ai","type":"bot-started-speaking"}`
	tests := []struct {
		name, in string
		types    []string
	}{
		{"lf", "data: " + ev + "\n\n", []string{"bot-started-speaking"}},
		{"crlf", "event: x\r\ndata: " + ev + "\r\n\r\n", []string{"bot-started-speaking"}},
		{"cr only", "data: " + ev + "\r\r", []string{"bot-started-speaking"}},
		{"bom and comments", "\xef\xbb\xbf: hello\n:\n\ndata:" + ev + "\n\n", []string{"bot-started-speaking"}},
		{"multi-line data", "data: {\"label\":\"rtvi-ai\",\ndata: \"type\":\"t\"}\n\n", []string{"t"}},
		{"no space after colon, other fields", "id: 7\nretry: 10\nfoo\ndata:" + ev + "\n\n", []string{"bot-started-speaking"}},
		{"event without data is skipped", "event: ping\n\ndata: " + ev + "\n\n", []string{"bot-started-speaking"}},
		{"unterminated event dropped", "data: " + ev + "\n\ndata: " + ev + "\n", []string{"bot-started-speaking"}},
		{"blank lines only", "\n\n\r\n", nil},
		{"empty", "", nil},
		{"tiny", "\n", nil},
	}
	for _, tt := range tests {
		for _, oneByte := range []bool{false, true} {
			var r io.Reader = strings.NewReader(tt.in)
			if oneByte {
				r = iotest.OneByteReader(r)
			}
			var got []string
			for _, m := range readAll(t, NewSSEReader(r)) {
				got = append(got, m.Type)
			}
			if !reflect.DeepEqual(got, tt.types) {
				t.Errorf("%s (one byte %v): types %v, want %v", tt.name, oneByte, got, tt.types)
			}
		}
	}
}

func TestSSEReaderFields(t *testing.T) {
	r := NewSSEReader(strings.NewReader("id: 42\nevent: bot-tts-text\ndata: {\"label\":\"rtvi-ai\",\"type\":\"bot-tts-text\",\"data\":{\"text\":\"a\"}}\n\nid: bad\x00\ndata: {\"label\":\"rtvi-ai\",\"type\":\"y\"}\n\n"))
	m, err := r.Next()
	if err != nil || m.Type != TypeBotTTSText || r.EventName() != "bot-tts-text" || r.LastEventID() != "42" {
		t.Fatalf("first: %v %v name=%q id=%q", m, err, r.EventName(), r.LastEventID())
	}
	m, err = r.Next()
	if err != nil || m.Type != "y" || r.EventName() != "" || r.LastEventID() != "42" {
		t.Fatalf("second: %v %v name=%q id=%q", m, err, r.EventName(), r.LastEventID())
	}
}

func TestSSEReaderErrors(t *testing.T) {
	// A bad event is reported and skipped; the stream goes on.
	in := "data: not json\n\ndata: {\"type\":\"signalling\"}\n\ndata: {\"label\":\"rtvi-ai\",\"type\":\"ok\"}\n\n"
	r := NewSSEReader(strings.NewReader(in))
	for _, want := range []error{ErrMalformed, ErrNotRTVI, nil, io.EOF, io.EOF} {
		_, err := r.Next()
		if !errors.Is(err, want) || (want == nil && err != nil) {
			t.Fatalf("Next error %v, want %v", err, want)
		}
	}

	// Oversize data drops one event only.
	big := "data: " + strings.Repeat("x", MaxMessageSize/2) + "\n"
	r = NewSSEReader(strings.NewReader(big + big + big + "\ndata: {\"label\":\"rtvi-ai\",\"type\":\"ok\"}\n\n"))
	if _, err := r.Next(); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("oversize event: %v", err)
	}
	if m, err := r.Next(); err != nil || m.Type != "ok" {
		t.Fatalf("after oversize: %v %v", m, err)
	}

	// A line past MaxLineSize stops the reader for good.
	r = NewSSEReader(strings.NewReader(": " + strings.Repeat("z", 100) + "\ndata: {}\n\n"))
	r.MaxLineSize = 50
	for range 2 {
		if _, err := r.Next(); !errors.Is(err, ErrLineTooLong) {
			t.Fatalf("long line: %v", err)
		}
	}

	// Read errors are final.
	boom := errors.New("boom")
	r = NewSSEReader(iotest.ErrReader(boom))
	if _, err := r.Next(); !errors.Is(err, boom) {
		t.Fatalf("read error: %v", err)
	}

	// A reader that never makes progress does not spin forever.
	r = NewSSEReader(zeroReader{})
	if _, err := r.Next(); !errors.Is(err, io.ErrNoProgress) {
		t.Fatalf("zero reader: %v", err)
	}
}

type zeroReader struct{}

func (zeroReader) Read([]byte) (int, error) { return 0, nil }

func TestWriteSSEErrors(t *testing.T) {
	if err := WriteSSE(io.Discard, Message{Type: "a\nb"}); !errors.Is(err, ErrMalformed) {
		t.Errorf("line break in type: %v", err)
	}
	if err := WriteSSE(io.Discard, Message{}); !errors.Is(err, ErrMissingField) {
		t.Errorf("no type: %v", err)
	}
	if err := WriteSSE(iotest.TruncateWriter(failWriter{}, 0), Event("x")); err != nil {
		t.Errorf("truncate writer: %v", err)
	}
	if err := WriteSSE(failWriter{}, Event("x")); err == nil {
		t.Error("write error not reported")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("closed") }
