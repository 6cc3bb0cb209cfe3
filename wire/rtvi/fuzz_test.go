package rtvi

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"
	"testing/iotest"
)

// FuzzDecode checks that Decode never panics and that what it accepts survives Encode.
func FuzzDecode(f *testing.F) {
	for _, m := range constructed() {
		b, _ := Encode(m)
		f.Add(b)
	}
	f.Add([]byte(`{"label":"rtvi-ai","type":"x","data":{"a":"<\u2028>","b":[1,2.5e3,null]}}`))
	f.Add([]byte(`{"type":"signalling","message":{"type":"peerLeft"}}`))
	f.Add([]byte(`{"label":"rtvi-ai","type":"bot-output","data":{"text":"one","spoken":false,"will_be_spoken":true,"spoken_status":"new"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode(data)
		if err != nil {
			return
		}
		if bt, ok := m.BotText(); ok && (bt.Text == "" || BotTextRank(bt.Kind) == 0 || len(bt.Text) > MaxTextSize+2) {
			t.Fatalf("BotText of %s = %+v", data, bt)
		}
		b, err := Encode(m)
		if err != nil {
			t.Fatalf("Encode(%#v): %v", m, err)
		}
		m2, err := Decode(b)
		if err != nil || !reflect.DeepEqual(m, m2) {
			t.Fatalf("round trip of %q via %s: %#v, %v", data, b, m2, err)
		}
	})
}

// FuzzSSEReader checks that the reader never panics or loops, yields the same results however
// the input is split into reads, and only returns messages that re-encode.
func FuzzSSEReader(f *testing.F) {
	var buf bytes.Buffer
	for _, m := range constructed()[:3] {
		_ = WriteSSE(&buf, m)
	}
	f.Add(buf.Bytes())
	f.Add([]byte("\xef\xbb\xbfdata: {\"label\":\"rtvi-ai\",\r\ndata: \"type\":\"t\"}\r\r: c\nevent:e\n\n"))
	f.Add([]byte("data\ndata:\n\n\rid:1\x00\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		whole := collect(t, NewSSEReader(bytes.NewReader(data)))
		split := collect(t, NewSSEReader(iotest.OneByteReader(bytes.NewReader(data))))
		if !reflect.DeepEqual(whole, split) {
			t.Fatalf("results differ by read size on %q:\n%v\n%v", data, whole, split)
		}
	})
}

// collect returns each Next result as a message or an error kind.
func collect(t *testing.T, r *SSEReader) []any {
	r.MaxLineSize = 256 // small, so the fuzzer reaches the limit
	var out []any
	for range 100000 {
		m, err := r.Next()
		switch {
		case err == nil:
			if _, err := Encode(m); err != nil {
				t.Fatalf("returned message does not encode: %v", err)
			}
			out = append(out, m)
		case errors.Is(err, io.EOF), errors.Is(err, ErrLineTooLong):
			return append(out, errors.Is(err, io.EOF))
		default:
			out = append(out, "skip")
		}
	}
	t.Fatal("reader did not finish")
	return nil
}
