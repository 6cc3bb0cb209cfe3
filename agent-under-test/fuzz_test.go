package agent

import (
	"encoding/binary"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/callfleet/callfleet/agent-under-test/pipeline"
	tw "github.com/callfleet/callfleet/wire/twilio"
)

// FuzzOfferHandler posts arbitrary bodies to POST /api/offer: the answer is always a clear
// status, never a panic.
func FuzzOfferHandler(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `null`, `[]`, `{"sdp":"","type":"offer"}`, `{"sdp":"v=0\r\n","type":"offer"}`,
		`{"sdp":"v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\n","type":"offer"}`,
		`{"sdp":"v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=rtpmap:111 opus/48000/2\r\n","type":"offer","pc_id":"x"}`,
		`{"sdp":"v=0","type":"answer"}`, `{"sdp":"v=0","type":"offer","pc_id":"../../etc"}`,
	} {
		f.Add(s)
	}
	srv, _ := startAgent(f, DefaultConfig())
	f.Fuzz(func(t *testing.T, body string) {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/api/offer", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		srv.ServeHTTP(rec, req)
		switch rec.Code {
		case http.StatusOK, http.StatusBadRequest, http.StatusConflict, http.StatusServiceUnavailable:
		default:
			t.Fatalf("status %d for %q: %s", rec.Code, body, rec.Body.String())
		}
		if rec.Code != http.StatusOK && !strings.Contains(rec.Body.String(), `"error"`) {
			t.Fatalf("status %d without a JSON error: %q", rec.Code, rec.Body.String())
		}
	})
}

// FuzzOpusIn feeds a sequence of RTP packets (each prefixed by its 2-byte length) to the agent's
// RTP/Opus inbound path: every error is a classified bad packet, never a panic, and the state
// stays bounded (less than a frame waiting, at most 6 frames — 120 ms, RFC 6716 §3.2.5 — per
// packet decoded or concealed).
func FuzzOpusIn(f *testing.F) {
	silent := silentOpus()
	seq := func(pkts ...[]byte) []byte {
		var b []byte
		for _, p := range pkts {
			b = binary.BigEndian.AppendUint16(b, uint16(len(p)))
			b = append(b, p...)
		}
		return b
	}
	pkt := func(pt uint8, n uint16, ssrc uint32, payload []byte) []byte {
		return rtpPacket(f, pt, n, ssrc, payload)
	}
	f.Add(seq(pkt(111, 1, 7, silent), pkt(111, 2, 7, silent), pkt(111, 3, 7, silent)))
	f.Add(seq(pkt(111, 65535, 7, silent), pkt(111, 2, 7, silent), pkt(111, 2, 7, silent), pkt(111, 1, 7, silent)))
	f.Add(seq(pkt(111, 1, 7, silent), pkt(111, 9000, 7, silent), pkt(111, 9001, 8, silent)))
	f.Add(seq(pkt(111, 1, 7, []byte{0xff, 0xff, 0xff}), pkt(0, 2, 7, silent), pkt(111, 3, 7, nil)))
	f.Add(seq([]byte{0x80}, []byte{0xa0, 111, 0, 1, 0, 0, 0, 0, 0, 0, 0, 7, 0xff}, []byte{0x90, 111, 0, 1, 0, 0, 0, 0, 0, 0, 0, 7, 0xbe, 0xde, 0xff, 0xff}))
	f.Add(seq(pkt(111, 1, 7, []byte{0xfc, 0xff, 0xff}), pkt(111, 2, 7, []byte{0x0b, 0x83, 0xff})))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, frames := newTestOpusIn(t)
		in.pt = 111
		packets := 0
		for len(data) >= 2 && packets < 64 {
			n := min(int(binary.BigEndian.Uint16(data)), len(data)-2)
			p := data[2 : 2+n]
			data = data[2+n:]
			packets++
			if err := in.rtp(p); err != nil && !errors.Is(err, errBadRTP) && !errors.Is(err, errBadOpus) {
				t.Fatalf("packet %d: unclassified error %v", packets, err)
			}
			if len(in.pending) >= pipeline.FrameSamples {
				t.Fatalf("packet %d: %d samples waiting, want less than a frame", packets, len(in.pending))
			}
		}
		if limit := packets * (maxConceal + 1) * 6; *frames > limit {
			t.Fatalf("%d frames from %d packets, want at most %d", *frames, packets, limit)
		}
	})
}

// FuzzTwiML posts arbitrary bodies and content types to POST /twiml, to an agent without an
// auth token and to one with, signed rightly, wrongly or not at all. The answer is always 200
// with TwiML that streams to the agent, 400 for a body that is not a form, or 403 for a bad
// signature; a rightly signed form is always accepted.
func FuzzTwiML(f *testing.F) {
	for _, s := range []string{
		``, `CallSid=CA123&From=%2B1555`, `CallSid=CA%22%3E%3C%2FStream%3E&x=1`, `CallSid=a%00b`, `a=1;b=2`,
		`%zz`, `CallSid=CA1&CallSid=CA2`, `CallSid=` + strings.Repeat("C", 200), `=&&=`, `CallSid=%C3%A9`,
	} {
		for mode := range uint8(4) {
			f.Add(s, uint8(0), mode)
		}
	}
	f.Add(`CallSid=CA1`, uint8(2), uint8(1))
	open := newAgent(f, DefaultConfig(), nil)
	cfg := DefaultConfig()
	cfg.TwilioAuthToken = "secret"
	secure := newAgent(f, cfg, nil)
	types := []string{"application/x-www-form-urlencoded", "application/x-www-form-urlencoded; charset=utf-8",
		"text/plain", "", "multipart/form-data", "a/b; ="}
	const target = "http://agent.example/twiml"
	f.Fuzz(func(t *testing.T, body string, ct, mode uint8) {
		ctype := types[int(ct)%len(types)]
		isForm := strings.HasPrefix(ctype, "application/x-www-form-urlencoded")
		form, formErr := url.ParseQuery(body)
		if !isForm {
			form, formErr = url.Values{}, nil
		}
		want := http.StatusOK
		switch {
		case ctype == "a/b; =", isForm && (formErr != nil || len(body) > 64<<10):
			want = http.StatusBadRequest
		case mode%4 >= 2:
			want = http.StatusForbidden
		}
		req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(body))
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		srv := open
		switch mode % 4 {
		case 1:
			srv = secure
			req.Header.Set(tw.SignatureHeader, tw.Signature("secret", target, form))
		case 2:
			srv = secure
			req.Header.Set(tw.SignatureHeader, tw.Signature("secret", target+"?other", form))
		case 3:
			srv = secure
		}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Fatalf("status %d, want %d, for %q (%s, mode %d)", rec.Code, want, body, ctype, mode%4)
		}
		if rec.Code != http.StatusOK {
			return
		}
		u, params, err := tw.ParseStreamURL(rec.Body.Bytes())
		if err != nil || u != "ws://agent.example/twilio/ws" {
			t.Fatalf("stream url %q (%v) in %q", u, err, rec.Body.String())
		}
		if sid := form.Get("CallSid"); validCallID(sid) != (params["CallSid"] == sid && sid != "") {
			t.Fatalf("CallSid %q came back as %q", sid, params["CallSid"])
		}
	})
}

// FuzzTwilioStream drives the /twilio/ws message-processing core with a sequence of frames (the
// input split at newlines) and checks the state machine: the phase only moves forward
// (await_start, live, stopped), the first valid start is the one kept, nothing is read after
// stop, every error is a classified kind of bad input, and less than a frame waits between
// messages, the frames pushed never outnumbering the audio received.
func FuzzTwilioStream(f *testing.F) {
	join := func(msgs ...string) string { return strings.Join(msgs, "\n") }
	other := string(tw.AppendStart(nil, 9, tw.Start{StreamSID: "MZ2", CallSID: "CA2"}))
	big := string(tw.AppendMedia(nil, "MZ1", 3, 2, 40, make([]byte, 8000), tw.TrackInbound))
	f.Add(join(twConnected, twStart, twMedia, twMedia, twMark, twDTMF, twStop))
	f.Add(join(twMedia, twStart, big, twMedia, other, twStop, twMedia))
	f.Add(join(`{not json`, `{"event":"party"}`, `{"event":"media","media":{"payload":"***"}}`, `{"event":"start"}`,
		`{"event":"start","start":{"callSid":"CA 1","streamSid":"MZ"}}`, `{"event":"clear"}`, `null`, `[]`, ``))
	f.Add(join(twStop, twStart, twMedia))
	f.Add(join(twStart, `{"event":"media","streamSid":"MZ1","media":{"payload":"/w=="}}`, twMedia))
	f.Fuzz(func(t *testing.T, data string) {
		ts := newTwilioStream()
		frames := 0
		ts.push = func(fr []int16) {
			if len(fr) != pipeline.FrameSamples {
				t.Fatalf("frame of %d samples", len(fr))
			}
			frames++
		}
		var start tw.Message
		audio := 0 // mu-law bytes taken, at 8 kHz; the pipeline runs at 16 kHz
		for i, msg := range strings.SplitN(data, "\n", 256) {
			before := ts.phase
			ev, err := ts.step([]byte(msg))
			switch {
			case before == phaseStopped:
				if !errors.Is(err, errAfterStop) {
					t.Fatalf("message %d after stop: %v, %v", i, ev, err)
				}
			case err != nil && twilioKind(err) == kindUnknown:
				t.Fatalf("message %d: unclassified error %v", i, err)
			case err == nil && ev == tw.EventMedia:
				audio += len(ts.mulaw)
			}
			if ts.phase < before {
				t.Fatalf("message %d: phase went back from %v to %v", i, before, ts.phase)
			}
			if before == phaseAwaitStart && ts.phase == phaseLive {
				if ev != tw.EventStart || err != nil || !validCallID(ts.start.Start.CallSID) || ts.streamSID() == "" {
					t.Fatalf("message %d: went live on %v (%v) with start %+v", i, ev, err, ts.start)
				}
				start = ts.start
			}
			if before == phaseLive && ts.start.Start.CallSID != start.Start.CallSID {
				t.Fatalf("message %d: start replaced", i)
			}
			if len(ts.pending) >= pipeline.FrameSamples {
				t.Fatalf("message %d: %d samples waiting", i, len(ts.pending))
			}
			if frames*pipeline.FrameSamples > 2*audio {
				t.Fatalf("message %d: %d frames from %d bytes of audio", i, frames, audio)
			}
		}
	})
}
