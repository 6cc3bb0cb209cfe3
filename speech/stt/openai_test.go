package stt

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// fakeWhisper mimics /v1/audio/transcriptions, checking the request shape strictly.
func fakeWhisper(t *testing.T, wantSamples int, text string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fail := func(code int, f string, a ...any) {
			t.Errorf(f, a...)
			http.Error(w, "bad request", code)
		}
		if r.Method != http.MethodPost || r.URL.Path != "/v1/audio/transcriptions" {
			fail(404, "got %s %s", r.Method, r.URL.Path)
			return
		}
		if got := r.Header.Get("Authorization"); got != "Bearer sk-test" {
			fail(401, "Authorization = %q", got)
			return
		}
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			fail(400, "multipart: %v", err)
			return
		}
		if got := r.FormValue("model"); got != "whisper-1" {
			fail(400, "model = %q", got)
		}
		if got := r.FormValue("response_format"); got != "json" {
			fail(400, "response_format = %q", got)
		}
		f, fh, err := r.FormFile("file")
		if err != nil {
			fail(400, "file: %v", err)
			return
		}
		defer f.Close()
		wav, _ := io.ReadAll(f)
		if !strings.HasSuffix(fh.Filename, ".wav") {
			t.Errorf("filename %q", fh.Filename)
		}
		checkWAV(t, wav, wantSamples)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"text": "`+text+`"}`)
	}))
}

func checkWAV(t *testing.T, wav []byte, samples int) {
	t.Helper()
	if len(wav) != 44+2*samples {
		t.Fatalf("wav is %d bytes, want %d", len(wav), 44+2*samples)
	}
	le := binary.LittleEndian
	if string(wav[0:4]) != "RIFF" || string(wav[8:16]) != "WAVEfmt " || string(wav[36:40]) != "data" {
		t.Errorf("bad chunk ids: %q", wav[:40])
	}
	if le.Uint32(wav[4:]) != uint32(36+2*samples) || le.Uint32(wav[40:]) != uint32(2*samples) {
		t.Errorf("bad sizes")
	}
	if le.Uint16(wav[20:]) != 1 || le.Uint16(wav[22:]) != 1 || le.Uint32(wav[24:]) != 16000 ||
		le.Uint32(wav[28:]) != 32000 || le.Uint16(wav[32:]) != 2 || le.Uint16(wav[34:]) != 16 {
		t.Errorf("bad fmt chunk % x", wav[20:36])
	}
}

func TestWriteWAV(t *testing.T) {
	var b bytes.Buffer
	pcm := []int16{0, 1, -1, 32767, -32768}
	if err := writeWAV(&b, pcm, 16000); err != nil {
		t.Fatal(err)
	}
	checkWAV(t, b.Bytes(), len(pcm))
	for i, s := range pcm {
		if got := int16(binary.LittleEndian.Uint16(b.Bytes()[44+2*i:])); got != s {
			t.Errorf("sample %d = %d, want %d", i, got, s)
		}
	}
}

func TestOpenAI(t *testing.T) {
	pcm := make([]int16, 8000)
	srv := fakeWhisper(t, len(pcm), "Seven-one three, four.")
	defer srv.Close()
	o := &OpenAI{URL: srv.URL + "/", Model: "whisper-1", APIKey: "sk-test", Client: srv.Client()}
	text, err := o.TranscribeText(context.Background(), pcm)
	if err != nil || text != "Seven-one three, four." {
		t.Fatalf("TranscribeText = %q, %v", text, err)
	}
	var tr Transcriber = o
	digits, err := tr.Transcribe(context.Background(), pcm)
	if err != nil || digits != "7134" {
		t.Fatalf("Transcribe = %q, %v", digits, err)
	}
}

// TestOpenAITexts: the forms OpenAI-compatible servers write a spoken digit string in.
func TestOpenAITexts(t *testing.T) {
	pcm := make([]int16, 1600)
	for _, tc := range []struct{ text, want string }{
		{"7, 1, 3, 4.", "7134"},
		{"71-34", "7134"},
		{"Seven one three four.", "7134"},
		{"Seventy-one, thirty-four.", "7134"},
		{" 7 1 3 4 5.", "71345"},
		{"Thank you.", ""},
	} {
		srv := fakeWhisper(t, len(pcm), tc.text)
		o := &OpenAI{URL: srv.URL, Model: "whisper-1", APIKey: "sk-test", Client: srv.Client()}
		got, err := o.Transcribe(context.Background(), pcm)
		srv.Close()
		if err != nil || got != tc.want {
			t.Errorf("server text %q: Transcribe = %q, %v; want %q", tc.text, got, err, tc.want)
		}
	}
}

func TestOpenAIErrors(t *testing.T) {
	var release = make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/500/v1/audio/transcriptions", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":"model overloaded"}`, http.StatusInternalServerError)
	})
	mux.HandleFunc("/slow/v1/audio/transcriptions", func(w http.ResponseWriter, r *http.Request) {
		select { // return when the client gives up, so the server closes promptly
		case <-r.Context().Done():
		case <-release:
		}
	})
	mux.HandleFunc("/garbage/v1/audio/transcriptions", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "<html>")
	})
	mux.HandleFunc("/notext/v1/audio/transcriptions", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"error": null}`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	defer close(release)
	pcm := make([]int16, 1600)

	tests := []struct {
		name   string
		path   string
		client *http.Client
		ctxTO  time.Duration
		check  func(error) bool
		msg    string
	}{
		{"500", "/500", srv.Client(), 0, func(e error) bool { return errors.Is(e, ErrHTTP) }, "model overloaded"},
		{"404", "/nowhere", srv.Client(), 0, func(e error) bool { return errors.Is(e, ErrHTTP) }, "404"},
		{"ctx timeout", "/slow", srv.Client(), 100 * time.Millisecond,
			func(e error) bool { return errors.Is(e, context.DeadlineExceeded) }, "/slow"},
		{"client timeout", "/slow", &http.Client{Timeout: 100 * time.Millisecond, Transport: srv.Client().Transport}, 0,
			func(e error) bool { return e != nil }, "Timeout"},
		{"not json", "/garbage", srv.Client(), 0, func(e error) bool { return errors.Is(e, ErrBadResponse) }, "decode"},
		{"no text", "/notext", srv.Client(), 0, func(e error) bool { return errors.Is(e, ErrBadResponse) }, "text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			if tt.ctxTO > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.ctxTO)
				defer cancel()
			}
			o := &OpenAI{URL: srv.URL + tt.path, Model: "m", Client: tt.client}
			start := time.Now()
			_, err := o.Transcribe(ctx, pcm)
			if !tt.check(err) {
				t.Fatalf("err = %v", err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err %q lacks %q", err, tt.msg)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

// TestOpenAIHTTPError: a non-2xx answer is an *HTTPError carrying the status, for callers that
// report it ("stt server: 500 Internal Server Error").
func TestOpenAIHTTPError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "busy", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	o := &OpenAI{URL: srv.URL, Model: "m", Client: srv.Client()}
	_, err := o.Transcribe(context.Background(), make([]int16, 160))
	var he *HTTPError
	if !errors.As(err, &he) || !errors.Is(err, ErrHTTP) {
		t.Fatalf("err = %v, want an *HTTPError wrapping ErrHTTP", err)
	}
	if he.Code != http.StatusServiceUnavailable || he.Status != "503 Service Unavailable" || he.Body != "busy" {
		t.Errorf("HTTPError = %+v", he)
	}
}
