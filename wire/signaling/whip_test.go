package signaling

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// whipServer is a fake RFC 9725 endpoint at /whip/endpoint that hands out location.
type whipServer struct {
	mu       sync.Mutex
	location string
	deleted  []string
	token    string
}

func (f *whipServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.token != "" && r.Header.Get("Authorization") != "Bearer "+f.token {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/old":
		http.Redirect(w, r, "/whip/endpoint", http.StatusTemporaryRedirect)
	case r.Method == http.MethodPost && r.URL.Path == "/whip/endpoint":
		offer, err := ReadWHIPOffer(r)
		if err != nil || offer != offerSDP {
			http.Error(w, "bad offer", http.StatusUnsupportedMediaType)
			return
		}
		w.Header().Set("Content-Type", ContentTypeSDP)
		w.Header().Set("Location", f.location)
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, answerSDP)
	case r.Method == http.MethodDelete && strings.HasPrefix(r.URL.Path, "/whip/"):
		f.deleted = append(f.deleted, r.URL.Path)
		w.WriteHeader(http.StatusOK)
	default:
		http.NotFound(w, r)
	}
}

func TestWHIPExchange(t *testing.T) {
	tests := []struct {
		name, path, location, wantPath string
	}{
		{"absolute-path location", "/whip/endpoint", "/whip/resource/abc", "/whip/resource/abc"},
		{"relative location", "/whip/endpoint", "resource/def", "/whip/resource/def"},
		{"relative location after redirect", "/old", "resource/ghi", "/whip/resource/ghi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &whipServer{location: tt.location, token: "s3cret"}
			srv := server(t, fake.ServeHTTP)
			wc := WHIP{URL: srv.URL + tt.path, BearerToken: "s3cret", Client: srv.Client()}
			ans, sess, err := wc.Exchange(testCtx(t), offerSDP)
			if err != nil {
				t.Fatal(err)
			}
			if ans != answerSDP || sess.ID != srv.URL+tt.wantPath {
				t.Fatalf("answer %q session %q", ans, sess.ID)
			}
			if err := sess.Close(testCtx(t)); err != nil {
				t.Fatal(err)
			}
			fake.mu.Lock()
			defer fake.mu.Unlock()
			if len(fake.deleted) != 1 || fake.deleted[0] != tt.wantPath {
				t.Fatalf("deleted %v", fake.deleted)
			}
		})
	}
}

func TestWHIPAbsoluteLocation(t *testing.T) {
	fake := &whipServer{location: "https://media.example/sessions/1"}
	srv := server(t, fake.ServeHTTP)
	_, sess, err := WHIP{URL: srv.URL + "/whip/endpoint", Client: srv.Client()}.Exchange(testCtx(t), offerSDP)
	if err != nil || sess.ID != "https://media.example/sessions/1" {
		t.Fatalf("session %q, %v", sess.ID, err)
	}
}

func TestWHIPErrors(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    error
		text    string
	}{
		{"unauthorized", (&whipServer{location: "/x", token: "other"}).ServeHTTP, ErrStatus, "401"},
		{"503 with json error", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Retry-After", "10")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, `{"error":"too many sessions"}`)
		}, ErrStatus, `503 Service Unavailable: {"error":"too many sessions"}`},
		{"200 instead of 201", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ContentTypeSDP)
			w.Header().Set("Location", "/r")
			_, _ = io.WriteString(w, answerSDP)
		}, ErrStatus, "want 201 Created"},
		{"json answer", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ContentTypeJSON)
			w.Header().Set("Location", "/r")
			w.WriteHeader(http.StatusCreated)
			_, _ = io.WriteString(w, `{"sdp":"v=0"}`)
		}, ErrContentType, "application/json"},
		{"no location", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ContentTypeSDP)
			w.WriteHeader(http.StatusCreated)
			_, _ = io.WriteString(w, answerSDP)
		}, ErrMissingLocation, ""},
		{"bad location", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ContentTypeSDP)
			w.Header().Set("Location", "http://[::1")
			w.WriteHeader(http.StatusCreated)
			_, _ = io.WriteString(w, answerSDP)
		}, ErrMissingLocation, "location"},
		{"empty answer", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ContentTypeSDP)
			w.Header().Set("Location", "/r")
			w.WriteHeader(http.StatusCreated)
		}, ErrEmptySDP, ""},
		{"garbage answer", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ContentTypeSDP)
			w.Header().Set("Location", "/r")
			w.WriteHeader(http.StatusCreated)
			_, _ = io.WriteString(w, "hello")
		}, ErrBadSDP, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := server(t, tt.handler)
			_, _, err := WHIP{URL: srv.URL + "/whip/endpoint", BearerToken: "s3cret", Client: srv.Client()}.Exchange(testCtx(t), offerSDP)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.text) {
				t.Fatalf("err %q lacks %q", err, tt.text)
			}
		})
	}
}

func TestWHIPCloseErrors(t *testing.T) {
	var mu sync.Mutex
	deleteStatus := http.StatusNotFound
	release := make(chan struct{})
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			w.Header().Set("Content-Type", ContentTypeSDP)
			w.Header().Set("Location", "/whip/res/1")
			w.WriteHeader(http.StatusCreated)
			_, _ = io.WriteString(w, answerSDP)
			return
		}
		mu.Lock()
		status := deleteStatus
		mu.Unlock()
		if status == 0 {
			select {
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		w.WriteHeader(status)
	})
	t.Cleanup(func() { close(release) })
	_, sess, err := WHIP{URL: srv.URL + "/whip/endpoint", Client: srv.Client()}.Exchange(testCtx(t), offerSDP)
	if err != nil {
		t.Fatal(err)
	}
	var se *StatusError
	if err := sess.Close(testCtx(t)); !errors.As(err, &se) || se.StatusCode != http.StatusNotFound {
		t.Fatalf("Close on 404: %v", err)
	}
	mu.Lock()
	deleteStatus = 0 // hang
	mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := sess.Close(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Close on a hung server: %v", err)
	}
}
