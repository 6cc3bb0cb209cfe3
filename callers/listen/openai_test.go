package listen

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/callfleet/callfleet/speech/stt"
)

// fakeServer is a loopback /v1/audio/transcriptions whose behaviour each path prefix picks:
// /ok answers at once, /slow never (until the client gives up), /500 fails, /garbage answers
// HTML, /busy takes 150 ms and counts the requests in flight.
type fakeServer struct {
	srv            *httptest.Server
	requests       atomic.Int64
	inFlight, peak atomic.Int64
}

func newFakeServer(t *testing.T) *fakeServer {
	f := &fakeServer{}
	answer := func(w http.ResponseWriter, r *http.Request) bool {
		f.requests.Add(1)
		if err := r.ParseMultipartForm(1 << 22); err != nil {
			t.Errorf("form: %v", err)
			http.Error(w, "bad form", http.StatusBadRequest)
			return false
		}
		if _, _, err := r.FormFile("file"); err != nil || r.FormValue("model") != "whisper-1" {
			t.Errorf("file %v, model %q", err, r.FormValue("model"))
		}
		return true
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/ok/v1/audio/transcriptions", func(w http.ResponseWriter, r *http.Request) {
		if answer(w, r) {
			io.WriteString(w, `{"text":"Seven, one, three, four."}`)
		}
	})
	mux.HandleFunc("/slow/v1/audio/transcriptions", func(w http.ResponseWriter, r *http.Request) {
		answer(w, r)
		<-r.Context().Done()
	})
	mux.HandleFunc("/500/v1/audio/transcriptions", func(w http.ResponseWriter, r *http.Request) {
		answer(w, r)
		http.Error(w, `{"error":"model overloaded"}`, http.StatusInternalServerError)
	})
	mux.HandleFunc("/garbage/v1/audio/transcriptions", func(w http.ResponseWriter, r *http.Request) {
		if answer(w, r) {
			io.WriteString(w, "<html>")
		}
	})
	mux.HandleFunc("/busy/v1/audio/transcriptions", func(w http.ResponseWriter, r *http.Request) {
		n := f.inFlight.Add(1)
		defer f.inFlight.Add(-1)
		for p := f.peak.Load(); n > p && !f.peak.CompareAndSwap(p, n); p = f.peak.Load() {
		}
		if answer(w, r) {
			time.Sleep(150 * time.Millisecond)
			io.WriteString(w, `{"text":"71-34"}`)
		}
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeServer) ears(path string, concurrency int, timeout time.Duration) *OpenAIEars {
	return NewOpenAIEars(stt.OpenAI{URL: f.srv.URL + path, Model: "whisper-1", Client: f.srv.Client()}, concurrency, timeout)
}

// hearOne feeds a reply of secs seconds to a session of e and finishes it.
func hearOne(t *testing.T, ctx context.Context, e Ears, secs float64) Hearing {
	t.Helper()
	s, err := e.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	frame := make([]int16, FrameSamples)
	for range int(secs * 50) {
		s.Feed(frame)
	}
	return s.Finish()
}

func TestOpenAIEars(t *testing.T) {
	f := newFakeServer(t)
	tests := []struct {
		name     string
		path     string
		timeout  time.Duration
		digits   string
		unjudged string
		count    func(EarsStats) uint64
	}{
		{"heard", "/ok", time.Second, "7134", "", func(s EarsStats) uint64 { return s.Heard }},
		{"slow server", "/slow", 200 * time.Millisecond, "", "stt server: timeout", func(s EarsStats) uint64 { return s.Timeouts }},
		{"500", "/500", time.Second, "", "stt server: 500 Internal Server Error", func(s EarsStats) uint64 { return s.Failures }},
		{"garbage JSON", "/garbage", time.Second, "", "stt server: bad response", func(s EarsStats) uint64 { return s.Failures }},
		{"no server", "/nowhere", time.Second, "", "stt server: 404 Not Found", func(s EarsStats) uint64 { return s.Failures }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := f.ears(tt.path, 2, tt.timeout)
			start := time.Now()
			h := hearOne(t, context.Background(), e, 1)
			if h.Digits != tt.digits || h.Unjudged != tt.unjudged || (tt.unjudged != "") != (h.Err != nil) {
				t.Fatalf("Hearing %+v; want %q, unjudged %q", h, tt.digits, tt.unjudged)
			}
			if d := time.Since(start); d > tt.timeout+2*time.Second || h.Time > d || h.Wait > 50*time.Millisecond {
				t.Errorf("took %v (wait %v, time %v) with a %v timeout", d, h.Wait, h.Time, tt.timeout)
			}
			s := e.Stats()
			if tt.count(s) != 1 || s.Requests != 1 || s.Started != 1 || s.Audio != time.Second || s.Slots != 2 {
				t.Errorf("stats %+v", s)
			}
			if tt.unjudged != "" && s.Unjudged() != 1 {
				t.Errorf("unjudged %d", s.Unjudged())
			}
		})
	}
}

// TestOpenAIEarsConcurrency: however many callers finish replies at once, no more than the
// bound are in flight at the server; the others wait for a slot, and that wait is DecodeWait.
func TestOpenAIEarsConcurrency(t *testing.T) {
	f := newFakeServer(t)
	const n, bound = 8, 2
	e := NewOpenAIEars(stt.OpenAI{URL: f.srv.URL + "/busy", Model: "whisper-1"}, bound, 5*time.Second) // its own client
	var wg sync.WaitGroup
	hs := make([]Hearing, n)
	for i := range hs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hs[i] = hearOne(t, context.Background(), e, 0.5)
		}()
	}
	wg.Wait()
	var waited time.Duration
	for i, h := range hs {
		if h.Digits != "7134" || h.Unjudged != "" {
			t.Errorf("reply %d: %+v", i, h)
		}
		waited = max(waited, h.Wait)
	}
	if p := f.peak.Load(); p > bound || p < 1 {
		t.Errorf("%d requests in flight at once, bound %d", p, bound)
	}
	// 8 replies, 2 at a time, 150 ms each: the last waited about 3 rounds.
	if waited < 300*time.Millisecond {
		t.Errorf("longest wait %v", waited)
	}
	s := e.Stats()
	if s.Heard != n || s.DecodeWait < waited || s.DecodeTime < n*150*time.Millisecond || s.Waiting != 0 || s.Busy != 0 {
		t.Errorf("stats %+v", s)
	}
}

func TestOpenAIEarsTooLongAndCancel(t *testing.T) {
	f := newFakeServer(t)
	t.Run("too long", func(t *testing.T) {
		e := f.ears("/ok", 1, time.Second)
		before := f.requests.Load()
		h := hearOne(t, context.Background(), e, stt.DefaultMaxUtterance.Seconds()+1)
		if h.Unjudged != UnjudgedTooLong || !errors.Is(h.Err, ErrReplyTooLong) || f.requests.Load() != before {
			t.Errorf("Hearing %+v, %d requests", h, f.requests.Load()-before)
		}
	})
	t.Run("call ends mid-request", func(t *testing.T) {
		e := f.ears("/slow", 1, 10*time.Second)
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		h := hearOne(t, ctx, e, 1)
		if h.Unjudged != "" || h.Err == nil || e.Stats().Cancelled != 1 || e.Stats().Unjudged() != 0 {
			t.Errorf("Hearing %+v, stats %+v", h, e.Stats())
		}
		if _, err := e.Open(ctx); err == nil {
			t.Error("Open after the call ended")
		}
	})
	t.Run("limit", func(t *testing.T) {
		if l := f.ears("/ok", 1, 3*time.Second).Limit(); l != DefaultMaxWait+3*time.Second {
			t.Errorf("Limit = %v", l)
		}
	})
}

func TestServerFailure(t *testing.T) {
	for _, tc := range []struct {
		err     error
		want    string
		timeout bool
	}{
		{context.DeadlineExceeded, "stt server: timeout", true},
		{&stt.HTTPError{Code: 502, Status: "502 Bad\x1b[31m Gateway"}, "stt server: 502 Bad Gateway", false},
		{stt.ErrBadResponse, "stt server: bad response", false},
		{errors.New("dial tcp: connection refused"), "stt server: request failed", false},
	} {
		got, timeout := serverFailure(tc.err)
		if got != tc.want || timeout != tc.timeout || strings.ContainsRune(got, 0x1b) {
			t.Errorf("serverFailure(%v) = %q, %v", tc.err, got, timeout)
		}
	}
}
