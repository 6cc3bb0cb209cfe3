package twilio

import (
	"bytes"
	"testing"
	"time"

	"github.com/callfleet/callfleet/audio"
	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/callers/listen"
	tw "github.com/callfleet/callfleet/wire/twilio"
)

// FuzzReader feeds the caller's reader of agent messages (decode, base64, mu-law, widening,
// marks, clears, the MaxAhead bound) any sequence of websocket texts, split at NUL bytes, arriving
// gap milliseconds apart. It must never fail or panic, every sample of accepted media must come
// out as audio or be counted as dropped, no more audio than MaxAhead (anew after each clear) plus
// the time elapsed may come out, and the marks kept stay bounded.
func FuzzReader(f *testing.F) {
	media := tw.AppendAgentMedia(nil, "MZ1", bytes.Repeat([]byte{0x7f, 0x00, 0xff}, 2000))
	f.Add(media, uint8(20))
	f.Add(bytes.Join([][]byte{media, tw.AppendMark(nil, "MZ1", "m1"), tw.AppendClear(nil, "MZ1"), media}, []byte{0}), uint8(0))
	f.Add([]byte(`{"event":"media","media":{"payload":"!!!!"}}`+"\x00"+`{"event":"media","media":{"payload":"/w="}}`), uint8(1))
	f.Add([]byte(`{"event":"mark","mark":{"name":"`+string(bytes.Repeat([]byte("n"), 2000))+`"}}`), uint8(5))
	f.Add([]byte("\x00\x00{}\x00[]\x00null"), uint8(255))
	f.Fuzz(func(t *testing.T, data []byte, gap uint8) {
		c := &Conn{d: &Dialer{}, audio: make(chan callers.Chunk, 64), hangup: make(chan struct{})}
		r := reader{c: c, up: audio.NewWidener()}
		t0 := time.Unix(1000, 0)
		var in, out, dropped, n, clears int
		for i, msg := range bytes.Split(data, []byte{0}) {
			if m, err := tw.Decode(msg); err == nil && m.Event == tw.EventMedia {
				if mu, err := m.Audio(); err == nil {
					in += 2 * len(mu)
				}
			}
			if err := r.message(msg, t0.Add(time.Duration(i)*time.Duration(gap)*time.Millisecond)); err != nil {
				t.Fatalf("message %d: %v", i, err)
			}
			n = i
		drain:
			for {
				select {
				case ch := <-c.audio:
					if ch.Dropped < 0 || (ch.Clear && len(ch.PCM) > 0) {
						t.Fatalf("chunk %+v", ch)
					}
					out, dropped = out+len(ch.PCM), dropped+ch.Dropped
					if ch.Clear {
						clears++ // Twilio empties its buffer: another MaxAhead may come
					}
				default:
					break drain
				}
			}
		}
		dropped += r.dropped
		if d := out + dropped - in; d < -2 || d > 2 { // Admit's 16 kHz count of 8 kHz bytes may round one up
			t.Fatalf("%d samples in, %d out and %d dropped", in, out, dropped)
		}
		elapsed := time.Duration(n) * time.Duration(gap) * time.Millisecond
		limit := (time.Duration(1+clears)*listen.DefaultMaxAhead + elapsed).Seconds() * listen.Rate
		if float64(out) > limit+2*listen.FrameSamples {
			t.Fatalf("%d samples out in %v with %d clears", out, elapsed, clears)
		}
		if len(c.marks) > maxMarks {
			t.Fatalf("%d marks kept", len(c.marks))
		}
		for _, m := range c.marks {
			if len(m.name) > maxMarkName {
				t.Fatalf("kept a mark name of %d bytes", len(m.name))
			}
		}
	})
}
