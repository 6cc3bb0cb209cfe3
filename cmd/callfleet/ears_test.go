package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/callfleet/callfleet/audio"
	"github.com/callfleet/callfleet/report"
	"github.com/callfleet/callfleet/speech"
	"github.com/callfleet/callfleet/speech/stt"
)

// fakeSTTServer is an OpenAI-compatible /v1/audio/transcriptions on loopback that really hears:
// it transcribes each posted WAV with the built-in model and answers as a whisper server writes
// digits ("Seven, one, three, four."), so a run's turns are judged through it end to end.
func fakeSTTServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	model, err := stt.Load(stt.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { model.Close() })
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/audio/transcriptions" || r.Header.Get("Authorization") != "Bearer sk-test" {
			http.Error(w, "bad path or key", http.StatusUnauthorized)
			return
		}
		f, _, err := r.FormFile("file")
		if err != nil || r.FormValue("model") != "tiny.en" {
			http.Error(w, "bad form", http.StatusBadRequest)
			return
		}
		defer f.Close()
		clip, err := audio.ReadWAV(f)
		if err != nil || clip.Rate != 16000 {
			http.Error(w, "bad wav", http.StatusBadRequest)
			return
		}
		digits, err := model.Transcribe(r.Context(), clip.Samples)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		n.Add(1)
		words := strings.Fields(speech.Words(digits))
		for i, w := range words {
			words[i] = strings.ToUpper(w[:1]) + w[1:]
		}
		json.NewEncoder(w).Encode(map[string]string{"text": strings.Join(words, ", ") + "."})
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// TestRunWithSTTURL: `run --stt-url` hears every reply through the server, and the turns are
// judged on what it heard.
func TestRunWithSTTURL(t *testing.T) {
	agentAddr := startAgent(t)
	srv, requests := fakeSTTServer(t)
	out := t.TempDir()
	t.Setenv(sttKeyEnv, "sk-test") // the key comes from the environment, never the command line
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p := start(t, ctx, "run", "--transport", "twilio", "--target", "ws://"+agentAddr+"/twilio/ws",
		"--events-url", "http://"+agentAddr+"/calls/{callSid}/events",
		"--steps", "1", "--step-duration", "8s", "--ramp", "0s", "--warmup", "0s", "--seed", "5",
		"--pool-size", "8", "--scrape", "none", "--no-tui", "--out", out,
		"--max-lateness-p99", "1s", "--max-underruns-per-min", "1000", "--p95-slack", "3s",
		"--stt-url", srv.URL, "--stt-model", "tiny.en", "--stt-concurrency", "2")
	p.wait(t, "run")
	recs, err := report.ReadRecords(filepath.Join(out, report.TurnsFileName))
	if err != nil {
		t.Fatal(err)
	}
	heard := 0
	for _, tr := range recs.Turns {
		if tr.Unjudged != "" {
			t.Errorf("turn %d/%d unjudged: %s", tr.Call, tr.Turn, tr.Unjudged)
		}
		if tr.Heard == tr.Phrase {
			heard++
		}
		if tr.DecodeTime <= 0 {
			t.Errorf("turn %d/%d: decode time %v", tr.Call, tr.Turn, tr.DecodeTime)
		}
	}
	if len(recs.Turns) < 2 || heard < len(recs.Turns)-1 {
		t.Errorf("%d of %d turns heard right through --stt-url", heard, len(recs.Turns))
	}
	if got := requests.Load(); got < int64(len(recs.Turns)) {
		t.Errorf("the server transcribed %d replies for %d turns", got, len(recs.Turns))
	}
}

// TestSTTURLErrors: bad ears flags are refused before anything starts.
func TestSTTURLErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--stt-url", "ftp://x"}, "--stt-url"},
		{[]string{"--stt-url", "http://"}, "--stt-url"},
		{[]string{"--stt-url", "http://127.0.0.1:1", "--stt-concurrency", "-1"}, "--stt-concurrency"},
		{[]string{"--stt-timeout", "-1s"}, "--stt-timeout"},
		{[]string{"--tolerate-slips", "2000"}, "tolerate_slips"},
		{[]string{"--stt-url", "http://127.0.0.1:1", "--stt-adapted"}, "--stt-adapted"},
	} {
		all := append([]string{"run", "--target", "ws://127.0.0.1:1/twilio/ws", "--transport", "twilio", "--no-tui"}, tc.args...)
		_, stderr, code := callfleet(t, all...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q", tc.args, code, stderr)
		}
	}
}
