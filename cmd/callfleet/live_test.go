package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestDemoLiveView runs `callfleet demo` on a real terminal (a tmux pane of 160x50): the live view
// must show its header and steps table, and q must hang up and still write the report.
func TestDemoLiveView(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Fatal("tmux is needed for the live view test (make deps installs it)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	dir := t.TempDir()
	exe := filepath.Join(dir, "callfleet")
	if out, err := exec.CommandContext(ctx, "go", "build", "-tags", "nolibopusfile", "-o", exe, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	sock, results := filepath.Join(dir, "tmux.sock"), filepath.Join(dir, "results")
	tm := func(args ...string) (string, error) {
		out, err := exec.CommandContext(ctx, tmux, append([]string{"-S", sock}, args...)...).CombinedOutput()
		return string(out), err
	}
	// The shell stays after callfleet exits so the pane can still be read.
	script := fmt.Sprintf("'%s' demo --steps 1 --step-duration 6s --ramp 1s --warmup 1s --transports twilio --out '%s'; "+
		"echo callfleet-exit=$?; sleep 600", exe, results)
	if out, err := tm("new-session", "-d", "-s", "cf", "-x", "160", "-y", "50", script); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command(tmux, "-S", sock, "kill-server").Run() })
	screen := func() string { s, _ := tm("capture-pane", "-p", "-t", "cf"); return s }
	waitFor := func(what string, d time.Duration, ok func(string) bool) string {
		t.Helper()
		deadline := time.Now().Add(d)
		for {
			s := screen()
			if ok(s) {
				return s
			}
			if time.Now().After(deadline) || ctx.Err() != nil {
				t.Fatalf("no %s after %v; the pane:\n%s", what, d, s)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}

	waitFor("live view with its header and steps table", 2*time.Minute, func(s string) bool {
		return strings.Contains(s, "target ws://127.0.0.1:") && strings.Contains(s, "transport twilio") &&
			strings.Contains(s, "seed 2026") && strings.Contains(s, "step 1 of 1 with 1 calls") &&
			strings.Contains(s, "turns ok") && strings.Contains(s, "capacity so far") && strings.Contains(s, "q stop")
	})
	if out, err := tm("send-keys", "-t", "cf", "q"); err != nil {
		t.Fatalf("tmux send-keys: %v\n%s", err, out)
	}
	s := waitFor("exit after q", time.Minute, func(s string) bool { return strings.Contains(s, "callfleet-exit=") })
	code := regexp.MustCompile(`callfleet-exit=(\d+)`).FindStringSubmatch(s)
	if code == nil || code[1] == "130" || code[1] == "2" {
		t.Errorf("q should be a normal stop (demo exits 0, or 1 when not every turn was understood): %v\n%s", code, s)
	}
	for _, want := range []string{"callfleet report", "capacity:", "report.json"} {
		if !strings.Contains(s, want) {
			t.Errorf("after q the pane lacks %q:\n%s", want, s)
		}
	}
	if _, err := os.Stat(filepath.Join(results, "twilio", "report.json")); err != nil {
		t.Errorf("no report written: %v", err)
	}
	if !callCancelled(t, filepath.Join(results, "twilio", "turns.jsonl")) {
		t.Error("the call was not hung up by q (no call record ended_by cancelled)")
	}
}

// callCancelled reports whether a call record in turns.jsonl was ended by the run's cancellation.
func callCancelled(t *testing.T, path string) bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		var rec struct {
			EndedBy string `json:"ended_by"`
		}
		if json.Unmarshal([]byte(line), &rec) == nil && rec.EndedBy == "cancelled" {
			return true
		}
	}
	return false
}
