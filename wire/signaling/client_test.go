package signaling

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

const (
	offerSDP  = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"
	answerSDP = "v=0\r\no=- 2 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"
)

// server starts a loopback fake, closed at test end. A handler that hangs waits on a channel the
// test closes in a cleanup registered after server's, so it runs first and srv.Close never blocks.
func server(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestSmallWebRTCExchange(t *testing.T) {
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/api/offer" || r.Header.Get("Content-Type") != ContentTypeJSON {
			http.Error(w, "bad request line", http.StatusBadRequest)
			return
		}
		o, err := DecodeOffer(r.Body)
		if err != nil || o.SDP != offerSDP || string(o.RequestData) != `{"caller":7}` || o.PCID != "" {
			http.Error(w, "bad offer", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_ = json.NewEncoder(w).Encode(Answer{SDP: answerSDP, Type: TypeAnswer, PCID: "SmallWebRTCConnection#0-abc"})
	})
	s := SmallWebRTC{URL: srv.URL + "/api/offer", Client: srv.Client(), RequestData: json.RawMessage(`{"caller":7}`)}
	ans, sess, err := s.Exchange(testCtx(t), offerSDP)
	if err != nil {
		t.Fatal(err)
	}
	if ans != answerSDP || sess.ID != "SmallWebRTCConnection#0-abc" {
		t.Fatalf("answer %q session %q", ans, sess.ID)
	}
	if err := sess.Close(testCtx(t)); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

func TestSmallWebRTCErrors(t *testing.T) {
	longBody := `{"detail":"` + strings.Repeat("x", 500) + `"}`
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    error
		text    string
	}{
		{"503 with json error", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, `{"detail":"Cannot create new connection with existing connection active"}`)
		}, ErrStatus, `503 Service Unavailable: {"detail":"Cannot create new connection`},
		{"long error body cut to 200 bytes", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, longBody)
		}, ErrStatus, longBody[:200]},
		{"html", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			_, _ = io.WriteString(w, "<html></html>")
		}, ErrContentType, "text/html"},
		{"empty sdp", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ContentTypeJSON)
			_, _ = io.WriteString(w, `{"sdp":"","type":"answer","pc_id":"p"}`)
		}, ErrEmptySDP, ""},
		{"not an answer", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ContentTypeJSON)
			_, _ = io.WriteString(w, `{"sdp":"v=0\n","type":"offer"}`)
		}, ErrMalformed, "offer"},
		{"not json", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ContentTypeJSON)
			_, _ = io.WriteString(w, `null x`)
		}, ErrMalformed, ""},
		{"huge answer", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ContentTypeJSON)
			_, _ = io.WriteString(w, `{"sdp":"v=0\n`+strings.Repeat("a=x\n", MaxBodySize/4)+`"}`)
		}, ErrTooLarge, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := server(t, tt.handler)
			_, _, err := SmallWebRTC{URL: srv.URL, Client: srv.Client()}.Exchange(testCtx(t), offerSDP)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.text) {
				t.Fatalf("err %q lacks %q", err, tt.text)
			}
			var se *StatusError
			if errors.As(err, &se) {
				if len(se.Body) > snippetSize {
					t.Fatalf("body snippet is %d bytes", len(se.Body))
				}
				if se.StatusCode == 503 && se.RetryAfter != "3" {
					t.Fatalf("RetryAfter = %q", se.RetryAfter)
				}
			}
		})
	}
}

func TestSmallWebRTCBadOfferNotSent(t *testing.T) {
	srv := server(t, func(w http.ResponseWriter, r *http.Request) { t.Error("request sent") })
	for _, sdp := range []string{"", "o=- 1 1 IN IP4 0.0.0.0\r\n"} {
		if _, _, err := (SmallWebRTC{URL: srv.URL, Client: srv.Client()}).Exchange(testCtx(t), sdp); err == nil {
			t.Errorf("Exchange(%q) succeeded", sdp)
		}
	}
}

func TestSmallWebRTCAddCandidates(t *testing.T) {
	got := make(chan Patch, 1)
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		var p Patch
		if r.URL.Path != "/api/offer" {
			http.NotFound(w, r)
			return
		}
		if r.Method != http.MethodPatch || json.NewDecoder(r.Body).Decode(&p) != nil {
			http.Error(w, "bad", http.StatusBadRequest)
			return
		}
		got <- p
		w.Header().Set("Content-Type", ContentTypeJSON)
		_, _ = io.WriteString(w, `{"status":"success"}`)
	})
	s := SmallWebRTC{URL: srv.URL + "/api/offer", Client: srv.Client()}
	c := ICECandidate{Candidate: "candidate:1 1 udp 2130706431 127.0.0.1 5000 typ host", SDPMid: "0"}
	if err := s.AddCandidates(testCtx(t), "pc1", c, ICECandidate{}); err != nil {
		t.Fatal(err)
	}
	p := <-got
	if p.PCID != "pc1" || len(p.Candidates) != 2 || p.Candidates[0] != c || p.Candidates[1] != (ICECandidate{}) {
		t.Fatalf("patch %+v", p)
	}
	s.URL = srv.URL + "/missing"
	if err := s.AddCandidates(testCtx(t), "pc1"); !errors.Is(err, ErrStatus) {
		t.Fatalf("404: %v", err)
	}
}

func TestSlowServerHonoursContext(t *testing.T) {
	release := make(chan struct{})
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	t.Cleanup(func() { close(release) })
	for name, sig := range map[string]Signaler{
		"smallwebrtc": SmallWebRTC{URL: srv.URL, Client: srv.Client()},
		"whip":        WHIP{URL: srv.URL, Client: srv.Client()},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		start := time.Now()
		_, _, err := sig.Exchange(ctx, offerSDP)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: err = %v, want deadline exceeded", name, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: returned after %v", name, d)
		}
	}
}
