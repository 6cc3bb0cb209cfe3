package rtvi

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// What an agent chooses (types, texts) is checked or cleaned before anyone records it.

func TestDecodeRejectsHostileTypes(t *testing.T) {
	cases := []struct {
		name, typ string
		ok        bool
	}{
		{"pipecat type", TypeUserTranscription, true},
		{"any printable token", "server-message.v2_x", true},
		{"longest", strings.Repeat("t", MaxTypeSize), true},
		{"too long", strings.Repeat("t", MaxTypeSize+1), false},
		{"escape", "\u001b[2Juser-transcription", false},
		{"line break", "bot\nready", false},
		{"space", "bot ready", false},
		{"c1 control", "bot\u009bready", false},
		{"non-ascii", "bot-réady", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Encode(Message{Type: tc.typ})
			if err != nil {
				t.Fatal(err)
			}
			m, err := Decode(b)
			if tc.ok != (err == nil) {
				t.Fatalf("Decode(%q): %v", b, err)
			}
			if !tc.ok && !errors.Is(err, ErrMalformed) {
				t.Errorf("error %v is not ErrMalformed", err)
			}
			if tc.ok && m.Type != tc.typ {
				t.Errorf("type %q", m.Type)
			}
		})
	}
}

func TestAccessorsCleanText(t *testing.T) {
	hostile := "\x1b]0;owned\x07seven\x1b[31m one\r\n\u202e" + strings.Repeat(" two", 400)
	cases := []struct {
		name string
		msg  Message
		text func(Message) (string, error)
	}{
		{"user transcription", UserTranscription(hostile, true, time.Unix(0, 0)), func(m Message) (string, error) {
			tr, err := m.Transcript()
			return tr.Text, err
		}},
		{"transcription", UserTranscription(hostile, true, time.Unix(0, 0)), func(m Message) (string, error) {
			s, _, err := m.Transcription()
			return s, err
		}},
		{"bot tts text", BotTTSText(hostile), func(m Message) (string, error) {
			s, _, err := m.Transcription()
			return s, err
		}},
		{"error", ErrorEvent(hostile, true), func(m Message) (string, error) {
			s, _, err := m.ErrorText()
			return s, err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Encode(tc.msg)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			got, err := tc.text(m)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(got, "seven one   two two") || len(got) > MaxTextSize {
				t.Errorf("text %q (%d bytes)", got[:min(len(got), 40)], len(got))
			}
			if strings.ContainsAny(got, "\x1b\x07\r\n\u202e") {
				t.Errorf("control characters kept in %q", got)
			}
		})
	}
}

// endless is a stream that never ends a line, counting what was read from it.
type endless struct{ n int }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	e.n += len(p)
	return len(p), nil
}

func TestSSEEndlessLineStops(t *testing.T) {
	src := &endless{}
	r := NewSSEReader(src)
	if _, err := r.Next(); !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("endless line: %v", err)
	}
	if src.n > 2*DefaultMaxLineSize {
		t.Errorf("read %d bytes of one line before giving up (limit %d)", src.n, DefaultMaxLineSize)
	}
	if _, err := r.Next(); !errors.Is(err, ErrLineTooLong) {
		t.Errorf("the reader did not stay stopped: %v", err)
	}
}
