package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pion/rtp"

	"github.com/callfleet/callfleet/agent-under-test/pipeline"
	"github.com/callfleet/callfleet/audio"
	"github.com/callfleet/callfleet/wire/rtvi"
)

// TestTwilioBadInputLoggedOnce: a caller that sends bad messages all call long is counted per
// message and kind, and logged once per kind, then once more with the totals at the end.
func TestTwilioBadInputLoggedOnce(t *testing.T) {
	noLeaks(t)
	_, hs, logs := startAgentLog(t, DefaultConfig())
	c := dialTwilio(t, hs.URL, "CA-noisy")
	flood := []struct {
		kind, msg string
		n         int
	}{
		{"bad_json", `{"event":"media",`, 30},
		{"bad_base64", `{"event":"media","streamSid":"MZCA-noisy","media":{"payload":"***"}}`, 50},
		{"unknown_event", `{"event":"party","streamSid":"MZCA-noisy"}`, 20},
		{"unexpected_event", `{"event":"clear","streamSid":"MZCA-noisy"}`, 10},
	}
	for _, f := range flood {
		for range f.n {
			c.send([]byte(f.msg))
		}
		c.frame(silence8k) // the call goes on
	}
	c.stop()
	<-c.closed
	for _, f := range flood {
		series := fmt.Sprintf(`agent_bad_input_total{kind=%q,transport="twilio"}`, f.kind)
		awaitMetric(t, hs.URL, series, float64(f.n), 5*time.Second)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(logs.lines("call=CA-noisy", "count=")) < len(flood) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond) // the totals are logged as the handler returns
	}
	for _, f := range flood {
		first := logs.lines("call=CA-noisy", "kind="+f.kind, "counted, not logged")
		total := logs.lines("call=CA-noisy", "kind="+f.kind, fmt.Sprintf("count=%d", f.n))
		if len(first) != 1 || len(total) != 1 {
			t.Errorf("%s: logged %d times and %d totals, want 1 and 1:\n%s", f.kind, len(first), len(total),
				strings.Join(logs.lines("kind="+f.kind), "\n"))
		}
	}
}

// TestWebRTCBadOpus: undecodable Opus is counted and logged once; the call and its audio go on.
func TestWebRTCBadOpus(t *testing.T) {
	noLeaks(t)
	srv, hs, logs := startAgentLog(t, DefaultConfig())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := dialRTC(t, ctx, hs.URL, true)
	if err != nil {
		t.Fatal(err)
	}
	if !c.until(ctx, func() bool { return c.has(rtvi.TypeBotReady, c.readyID) }) {
		t.Fatal("no bot-ready")
	}
	const bad = 25
	for range bad {
		c.frame([]byte{0xff, 0xff, 0xff})
	}
	for range 10 {
		c.frame(silentOpus())
	}
	awaitMetric(t, hs.URL, `agent_bad_input_total{kind="bad_opus",transport="webrtc"}`, bad, 5*time.Second)
	if srv.Live() != 1 {
		t.Fatalf("live = %d: bad packets ended the call", srv.Live())
	}
	if n := len(logs.lines("kind=bad_opus")); n != 1 {
		t.Errorf("bad opus logged %d times during the call, want once", n)
	}
	c.pc.Close()
	awaitLive(t, srv, 0, 5*time.Second)
	if n := len(logs.lines("kind=bad_opus", fmt.Sprintf("count=%d", bad))); n != 1 {
		t.Errorf("bad opus totals logged %d times, want once", n)
	}
}

func TestOpusInBadPackets(t *testing.T) {
	in, frames := newTestOpusIn(t)
	in.pt = 111
	good := rtpPacket(t, 111, 1, 7, silentOpus())
	for _, tc := range []struct {
		name    string
		pkt     []byte
		want    error // nil, errBadRTP or errBadOpus
		frames  int   // pushed so far
		started bool
	}{
		{"too short for a header", []byte{0x80, 111, 0}, errBadRTP, 0, false},
		{"not version 2", append([]byte{0x40}, good[1:]...), errBadRTP, 0, false},
		{"other payload type", rtpPacket(t, 0, 1, 7, silentOpus()), errBadRTP, 0, false},
		{"good", good, nil, 1, true},
		{"undecodable payload", rtpPacket(t, 111, 2, 7, []byte{0xff, 0xff, 0xff}), errBadOpus, 1, true},
		{"new source: no concealment", rtpPacket(t, 111, 500, 8, silentOpus()), nil, 2, true},
		{"same source, a gap: concealed", rtpPacket(t, 111, 600, 8, silentOpus()), nil, 2 + maxConceal + 1, true},
	} {
		err := in.rtp(tc.pkt)
		if (tc.want == nil) != (err == nil) || (tc.want != nil && !errors.Is(err, tc.want)) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
		if *frames != tc.frames || in.started != tc.started {
			t.Errorf("%s: %d frames, started %v; want %d, %v", tc.name, *frames, in.started, tc.frames, tc.started)
		}
	}
}

// newTestOpusIn is an opusIn at 16 kHz counting the frames it pushes.
func newTestOpusIn(t testing.TB) (*opusIn, *int) {
	t.Helper()
	dec, err := audio.NewOpusDecoderRate(pipeline.Rate)
	if err != nil {
		t.Fatal(err)
	}
	frames := new(int)
	return &opusIn{dec: dec, push: func(f []int16) {
		if len(f) != pipeline.FrameSamples {
			t.Fatalf("frame of %d samples", len(f))
		}
		*frames++
	}}, frames
}

// rtpPacket is an RTP packet (RFC 3550 §5.1) carrying payload.
func rtpPacket(t testing.TB, pt uint8, seq uint16, ssrc uint32, payload []byte) []byte {
	t.Helper()
	p := rtp.Packet{Header: rtp.Header{Version: 2, PayloadType: pt, SequenceNumber: seq, SSRC: ssrc,
		Timestamp: uint32(seq) * 960}, Payload: payload}
	b, err := p.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
