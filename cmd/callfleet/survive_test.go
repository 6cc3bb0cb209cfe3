package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/callfleet/callfleet/report"
)

func TestWatchInterrupts(t *testing.T) {
	tests := []struct {
		name      string
		signals   int
		cancelled bool
		exit      int // -1: not called
	}{
		{"none", 0, false, -1},
		{"first stops gracefully", 1, true, -1},
		{"second quits at once", 2, true, exitInterrupted},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sigs := make(chan os.Signal)
			exited := make(chan int, 1)
			var stderr syncBuffer
			ctx, stop := watchInterrupts(sigs, &stderr, func(code int) { exited <- code })
			for range tc.signals {
				sigs <- os.Interrupt // unbuffered: the watch has taken it when the send returns
			}
			code := -1
			if tc.exit >= 0 {
				select {
				case code = <-exited:
				case <-time.After(10 * time.Second):
					t.Fatal("no exit after the second signal")
				}
			}
			stop() // the watch's goroutine ends: stop waits for it
			if (ctx.Err() != nil && tc.signals > 0) != tc.cancelled || code != tc.exit || len(exited) > 0 {
				t.Errorf("cancelled %v, exit %d; want %v and %d (stderr %q)", ctx.Err() != nil, code, tc.cancelled, tc.exit, stderr.String())
			}
			if tc.signals > 0 && !strings.Contains(stderr.String(), "stopping (once more to quit at once)") {
				t.Errorf("stderr %q: the first signal should say how to quit at once", stderr.String())
			}
		})
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader on other goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startRun starts `callfleet run` against the agent at addr with long steps, writing to out; it
// is killed when the test ends if it is still running.
func startRun(t *testing.T, addr, out string, extra ...string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	args := append([]string{"run", "--transport", "twilio", "--target", "ws://" + addr + "/twilio/ws",
		"--steps", "2,4", "--step-duration", "5m", "--ramp", "0s", "--warmup", "0s", "--seed", "7",
		"--pool-size", "8", "--scrape", "none", "--no-tui", "--out", out}, extra...)
	cmd := exec.Command(bin, args...)
	var stderr syncBuffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd, &stderr
}

// awaitTurns waits until the run's turns file holds n whole turn lines.
func awaitTurns(t *testing.T, out string, n int, stderr *syncBuffer) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(filepath.Join(out, report.TurnsFileName))
		if wholeTurns(b) >= n {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("no %d turns in %s within 90 s; the run said:\n%s", n, out, stderr.String())
}

// wholeTurns counts the turn lines that end in a newline.
func wholeTurns(b []byte) int {
	n := 0
	for _, l := range bytes.SplitAfter(b, []byte("\n")) {
		if bytes.HasPrefix(l, []byte(`{"kind":"turn"`)) && bytes.HasSuffix(l, []byte("\n")) {
			n++
		}
	}
	return n
}

// waitExit waits up to d for cmd to exit and returns its exit code (-1 for a signal).
func waitExit(t *testing.T, cmd *exec.Cmd, d time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		return cmd.ProcessState.ExitCode()
	case <-time.After(d):
		t.Fatalf("still running %v later", d)
		return 0
	}
}

// A run killed mid-step leaves turns.jsonl; `callfleet report DIR` rebuilds report.json and
// report.html from it, counting every turn that survived. A run stopped by Ctrl-C writes its report
// itself, and a second Ctrl-C quits at once.
func TestRunSurvivesKillAndInterrupt(t *testing.T) {
	addr := startAgent(t)
	dir := t.TempDir()

	t.Run("SIGKILL, then report DIR", func(t *testing.T) {
		out := filepath.Join(dir, "killed")
		cmd, stderr := startRun(t, addr, out, "--events-url", "http://"+addr+"/calls/{callSid}/events")
		awaitTurns(t, out, 2, stderr)
		cmd.Process.Signal(syscall.SIGKILL)
		waitExit(t, cmd, 30*time.Second)
		if _, err := os.Stat(filepath.Join(out, report.FileName)); err == nil {
			t.Fatal("a killed run wrote report.json")
		}
		b, err := os.ReadFile(filepath.Join(out, report.TurnsFileName))
		if err != nil {
			t.Fatal(err)
		}
		survived := wholeTurns(b)

		stdout, errOut, code := callfleet(t, "report", out)
		if code != 0 || !strings.Contains(errOut, "rebuilt") || !strings.Contains(stdout, "did not finish") {
			t.Fatalf("report DIR: exit %d\nstderr %s\nstdout %s", code, errOut, stdout)
		}
		r, err := report.Load(filepath.Join(out, report.FileName))
		if err != nil {
			t.Fatal(err)
		}
		total := 0
		for _, s := range r.Steps {
			total += s.Turns.Total
		}
		if total != survived || len(r.Steps) != 1 || r.Steps[0].N != 2 || r.Stopped == nil || r.Stopped.Reason != report.StopUnfinished {
			t.Errorf("rebuilt report: %d turns (%d survived), %d steps, stopped %+v", total, survived, len(r.Steps), r.Stopped)
		}
		if r.Config.Seed != 7 || r.Config.Transport != "twilio" || len(r.Config.Steps) != 2 {
			t.Errorf("rebuilt config %+v: want the run's", r.Config)
		}
		if page, err := os.ReadFile(filepath.Join(out, report.HTMLFileName)); err != nil || !bytes.Contains(page, []byte("did not finish")) {
			t.Errorf("report.html: %v (%d bytes)", err, len(page))
		}
		// Now the report is newer than the records: shown as written, not rebuilt again.
		if _, errOut, code := callfleet(t, "report", filepath.Join(out, report.FileName), "--format", "json"); code != 0 || strings.Contains(errOut, "rebuilt") {
			t.Errorf("second report: exit %d, %q", code, errOut)
		}
	})

	t.Run("SIGINT stops gracefully", func(t *testing.T) {
		out := filepath.Join(dir, "interrupted")
		cmd, stderr := startRun(t, addr, out, "--events-url", "http://"+addr+"/calls/{callSid}/events")
		awaitTurns(t, out, 1, stderr)
		cmd.Process.Signal(os.Interrupt)
		begun := time.Now()
		if code := waitExit(t, cmd, 60*time.Second); code != exitInterrupted {
			t.Fatalf("exit %d, want %d\n%s", code, exitInterrupted, stderr.String())
		}
		t.Logf("graceful stop took %v", time.Since(begun))
		r, err := report.Load(filepath.Join(out, report.FileName))
		if err != nil {
			t.Fatal(err)
		}
		if r.Stopped == nil || r.Stopped.Reason != report.StopInterrupted || len(r.Steps) != 1 || r.Steps[0].Turns.Total == 0 {
			t.Errorf("report after Ctrl-C: stopped %+v, steps %+v", r.Stopped, r.Steps)
		}
	})

	t.Run("second SIGINT quits at once", func(t *testing.T) {
		// An agent that never answers a hang-up holds the graceful stop for the callers' close
		// timeout (2 s): the second Ctrl-C surely comes first.
		silent, calls := silentAgent(t)
		out := filepath.Join(dir, "quit")
		cmd, stderr := startRun(t, silent, out, "--answer-timeout", "5m") // calls wait, never answered
		deadline := time.Now().Add(90 * time.Second)
		for calls.Load() < 2 && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if calls.Load() < 2 {
			t.Fatalf("%d of 2 calls reached the agent within 90 s\n%s", calls.Load(), stderr.String())
		}
		cmd.Process.Signal(os.Interrupt)
		deadline = time.Now().Add(10 * time.Second) // the first must be seen before the second is sent
		for !strings.Contains(stderr.String(), "stopping") && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		cmd.Process.Signal(os.Interrupt)
		if code := waitExit(t, cmd, 5*time.Second); code != exitInterrupted {
			t.Fatalf("exit %d, want %d\n%s", code, exitInterrupted, stderr.String())
		}
		if !strings.Contains(stderr.String(), "again: quitting at once") {
			t.Errorf("stderr %q", stderr.String())
		}
		if _, err := os.Stat(filepath.Join(out, report.FileName)); err == nil {
			t.Errorf("the run wrote its report: it did not quit at once\n%s", stderr.String())
		}
	})
}

// silentAgent is a Twilio Media Streams endpoint that takes every message and answers none, not
// even a close; it counts the calls that reached it.
func silentAgent(t *testing.T) (string, *atomic.Int64) {
	var calls atomic.Int64
	up := websocket.Upgrader{}
	held := make(chan struct{}) // closed when the test ends: until then no connection closes
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		ws.SetCloseHandler(func(int, string) error { return nil }) // no close answered
		calls.Add(1)
		for {
			if _, _, err := ws.ReadMessage(); err != nil {
				<-held // the caller's close came: hold the line open anyway
				return
			}
		}
	}))
	t.Cleanup(func() {
		close(held)
		srv.Close()
	})
	return strings.TrimPrefix(srv.URL, "http://"), &calls
}
