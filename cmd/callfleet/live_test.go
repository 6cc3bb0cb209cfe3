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

// pane is a command running in a detached tmux session on a 160x50 terminal.
type pane struct {
	t    *testing.T
	ctx  context.Context
	tmux string
	sock string
}

// startPane builds callfleet and runs it with args in a tmux pane; the shell stays after it
// exits so the pane can still be read, with "callfleet-exit=N" on it.
func startPane(t *testing.T, ctx context.Context, args string) *pane {
	t.Helper()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Fatal("tmux is needed for the live view tests (make deps installs it)")
	}
	dir := t.TempDir()
	exe := filepath.Join(dir, "callfleet")
	if out, err := exec.CommandContext(ctx, "go", "build", "-tags", "nolibopusfile", "-o", exe, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	p := &pane{t: t, ctx: ctx, tmux: tmux, sock: filepath.Join(dir, "tmux.sock")}
	script := fmt.Sprintf("'%s' %s; echo callfleet-exit=$?; sleep 600", exe, args)
	if out, err := p.run("new-session", "-d", "-s", "cf", "-x", "160", "-y", "50", script); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command(tmux, "-S", p.sock, "kill-server").Run() })
	return p
}

func (p *pane) run(args ...string) (string, error) {
	out, err := exec.CommandContext(p.ctx, p.tmux, append([]string{"-S", p.sock}, args...)...).CombinedOutput()
	return string(out), err
}

func (p *pane) screen() string { s, _ := p.run("capture-pane", "-p", "-t", "cf"); return s }

// waitFor polls the pane until ok holds, failing the test after d.
func (p *pane) waitFor(what string, d time.Duration, ok func(string) bool) string {
	p.t.Helper()
	deadline := time.Now().Add(d)
	for {
		s := p.screen()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) || p.ctx.Err() != nil {
			p.t.Fatalf("no %s after %v; the pane:\n%s", what, d, s)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (p *pane) keys(k string) {
	p.t.Helper()
	if out, err := p.run("send-keys", "-t", "cf", k); err != nil {
		p.t.Fatalf("tmux send-keys: %v\n%s", err, out)
	}
}

// exitCode is the code the pane's "callfleet-exit=N" says.
func exitCode(s string) string {
	if m := regexp.MustCompile(`callfleet-exit=(\d+)`).FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return ""
}

// TestDemoLiveView runs `callfleet demo` on a real terminal (a tmux pane of 160x50): the live view
// must show its header and steps table, and q must hang up and still write the report.
func TestDemoLiveView(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	results := filepath.Join(t.TempDir(), "results")
	p := startPane(t, ctx, fmt.Sprintf("demo --steps 1 --step-duration 6s --ramp 1s --warmup 1s --transports twilio --out '%s'", results))

	p.waitFor("live view with its header and steps table", 2*time.Minute, func(s string) bool {
		return strings.Contains(s, "target ws://127.0.0.1:") && strings.Contains(s, "transport twilio") &&
			strings.Contains(s, "seed 2026") && strings.Contains(s, "step 1 of 1 with 1 calls") &&
			strings.Contains(s, "turns ok") && strings.Contains(s, "capacity so far") && strings.Contains(s, "q stop")
	})
	p.keys("q")
	s := p.waitFor("exit after q", time.Minute, func(s string) bool { return strings.Contains(s, "callfleet-exit=") })
	if code := exitCode(s); code == "" || code == "130" || code == "2" {
		t.Errorf("q should be a normal stop (demo exits 0, or 1 when not every turn was understood): %q\n%s", code, s)
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

// TestProbeLiveView runs `callfleet probe` on a real terminal: the view shows the probe (the
// pause being probed as the step, the pause table), and q hangs up and writes the report.
func TestProbeLiveView(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	results := filepath.Join(t.TempDir(), "probe")
	p := startPane(t, ctx, fmt.Sprintf("probe --local --transport twilio --pauses 200ms,900ms --conversations 1 --seed 5 "+
		"--agent-vad-min-silence 300ms --agent-stt-gate-hold 200ms --out '%s'", results))
	p.waitFor("the probe's live view", 2*time.Minute, func(s string) bool {
		return strings.Contains(s, "callfleet probe  target bundled agent on loopback  transport twilio  seed 5") &&
			strings.Contains(s, "pause 200ms (1 of 2) with 1 calls") && strings.Contains(s, "pause probe: one turn or two") &&
			strings.Contains(s, "200ms pause") && strings.Contains(s, "900ms pause") && strings.Contains(s, "c0 ") &&
			strings.Contains(s, "q stop") && !strings.Contains(s, "end step")
	})
	p.keys("q")
	s := p.waitFor("exit after q", time.Minute, func(s string) bool { return strings.Contains(s, "callfleet-exit=") })
	if code := exitCode(s); code != "0" {
		t.Errorf("q should stop the probe normally (exit 0): %q\n%s", code, s)
	}
	if !strings.Contains(s, "pause-probe:") || !strings.Contains(s, "report.json") {
		t.Errorf("after q the pane lacks the summary:\n%s", s)
	}
	if _, err := os.Stat(filepath.Join(results, "report.json")); err != nil {
		t.Errorf("no report written: %v", err)
	}
	if !callCancelled(t, filepath.Join(results, "turns.jsonl")) {
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
