package webrtc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/wire/signaling"
	pwebrtc "github.com/pion/webrtc/v4"
)

const escapes = "\x1b]0;owned\x07\x1b[2J\x1b[31m\u202e\u009b1m\u0085"

// TestHostileSignaling dials agents whose signaling endpoint answers badly on purpose. Each dial
// fails within its deadline, saying why in printable text, and leaves nothing running (the
// package's goroutine-leak check).
func TestHostileSignaling(t *testing.T) {
	cases := []struct {
		name    string
		kind    string
		handler func(w http.ResponseWriter, r *http.Request, release <-chan struct{})
		want    error
	}{
		{"503 with escapes", SignalingSmallWebRTC, func(w http.ResponseWriter, _ *http.Request, _ <-chan struct{}) {
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, escapes+`{"detail":"busy"}`)
		}, signaling.ErrStatus},
		{"pc_id with escapes", SignalingSmallWebRTC, answer(func(sdp string) any {
			return signaling.Answer{SDP: sdp, Type: signaling.TypeAnswer, PCID: escapes}
		}), signaling.ErrMalformed},
		{"answer over the body cap", SignalingSmallWebRTC, answer(func(sdp string) any {
			return signaling.Answer{SDP: sdp + strings.Repeat("a=x\r\n", signaling.MaxBodySize), Type: signaling.TypeAnswer}
		}), signaling.ErrTooLarge},
		{"garbage sdp", SignalingSmallWebRTC, answer(func(string) any {
			return signaling.Answer{SDP: "v=0\r\n" + escapes + "\r\n", Type: signaling.TypeAnswer}
		}), nil},
		{"whip location not http", SignalingWHIP, func(w http.ResponseWriter, r *http.Request, _ <-chan struct{}) {
			offer, _ := io.ReadAll(r.Body)
			w.Header().Set("Content-Type", signaling.ContentTypeSDP)
			w.Header().Set("Location", "javascript:alert(1)")
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, answerFor(string(offer)))
		}, signaling.ErrMissingLocation},
		{"never answers", SignalingWHIP, func(_ http.ResponseWriter, _ *http.Request, release <-chan struct{}) { <-release },
			context.DeadlineExceeded},
		{"trickles the body", SignalingSmallWebRTC, func(w http.ResponseWriter, _ *http.Request, release <-chan struct{}) {
			w.Header().Set("Content-Type", signaling.ContentTypeJSON)
			w.WriteHeader(http.StatusOK)
			for {
				if _, err := io.WriteString(w, " "); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-release:
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		}, context.DeadlineExceeded},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			release := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { tc.handler(w, r, release) }))
			t.Cleanup(srv.Close)
			t.Cleanup(func() { close(release) }) // before srv.Close
			d := newTestDialer(t, Config{Signaling: tc.kind, URL: srv.URL, HTTPClient: srv.Client()})
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			start := time.Now()
			c, err := d.Dial(ctx, callers.CallInfo{Call: 1})
			if err == nil {
				c.Close(context.Background())
				t.Fatal("dial succeeded")
			}
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("dial took %v", took)
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
			if msg := err.Error(); strings.ContainsFunc(msg, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }) {
				t.Errorf("control characters in %q", msg)
			}
		})
	}
}

// answer is a SmallWebRTC endpoint answering with body(answer SDP for the offer) as JSON.
func answer(body func(sdp string) any) func(http.ResponseWriter, *http.Request, <-chan struct{}) {
	return func(w http.ResponseWriter, r *http.Request, _ <-chan struct{}) {
		o, err := signaling.DecodeOffer(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", signaling.ContentTypeJSON)
		json.NewEncoder(w).Encode(body(answerFor(o.SDP)))
	}
}

// answerFor is a real answer to offer from a throwaway pion peer, so only the part under test is
// wrong.
func answerFor(offer string) string {
	pc, err := pwebrtc.NewPeerConnection(pwebrtc.Configuration{})
	if err != nil {
		return "v=0\r\n"
	}
	defer pc.Close()
	if err := pc.SetRemoteDescription(pwebrtc.SessionDescription{Type: pwebrtc.SDPTypeOffer, SDP: offer}); err != nil {
		return "v=0\r\n"
	}
	a, err := pc.CreateAnswer(nil)
	if err != nil {
		return "v=0\r\n"
	}
	return a.SDP
}

// TestOfferCapsDataChannelMessages checks the offer tells the agent the largest data channel
// message the caller takes (RFC 8841 a=max-message-size).
func TestOfferCapsDataChannelMessages(t *testing.T) {
	api, closer, err := NewAPI(APIOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	pc, err := api.NewPeerConnection(pwebrtc.Configuration{})
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	if _, err := pc.CreateDataChannel(DataChannelLabel, nil); err != nil {
		t.Fatal(err)
	}
	offer, err := pc.CreateOffer(nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("a=max-message-size:%d", MaxDataChannelMessage); !strings.Contains(offer.SDP, want) {
		t.Errorf("offer lacks %s:\n%s", want, offer.SDP)
	}
}

// TestFloodFromPeer has a real pion agent answer with 60 s of Opus at 100x real time: the
// caller's Audio carries no more than DefaultMaxAhead plus the time the flood took, and counts
// the rest as dropped.
func TestFloodFromPeer(t *testing.T) {
	pkts := opusTone(t, 50)
	p := startPeer(t, 0)
	for i := 0; i < 3000; i++ {
		p.flood = append(p.flood, pkts[i%len(pkts)])
	}
	p.floodSpeed = 100
	d := newTestDialer(t, Config{URL: p.offerURL()})
	c := dial(t, d, 1)
	defer c.Close(testCtx(t, 5*time.Second))
	clip := toneClip(t, 0.2)
	start := time.Now()
	var out, dropped int
	for i := 0; time.Since(start) < 4*time.Second; i++ {
		if err := c.Send(clip, i%len(clip.Opus)); err != nil {
			t.Fatal(err)
		}
	collect:
		for {
			select {
			case ch, ok := <-c.Audio():
				if !ok {
					t.Fatal("call ended")
				}
				out, dropped = out+len(ch.PCM), dropped+ch.Dropped
			default:
				break collect
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	st := c.Stats()
	got := time.Duration(out) * time.Second / 16000
	t.Logf("received %d packets (%d lost): %v delivered, %v dropped", st.Received, st.Lost, got, time.Duration(dropped)*time.Second/16000)
	if limit := 5*time.Second + time.Since(start); got > limit {
		t.Errorf("delivered %v of audio in %v", got, time.Since(start))
	}
	if st.Received < 2000 || dropped < 40*16000 || uint64(dropped) > st.AheadDropped {
		t.Errorf("dropped %d samples (stats %d) of %d packets received", dropped, st.AheadDropped, st.Received)
	}
}
