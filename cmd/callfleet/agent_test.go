package main

import (
	"bufio"
	"flag"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	agent "github.com/callfleet/callfleet/agent-under-test"
)

// TestAgentMaxCallsFlag: --max-calls unset is the derived default; 0 means no limit only when
// said; the same holds under demo's "agent-" prefix.
func TestAgentMaxCallsFlag(t *testing.T) {
	for _, tc := range []struct {
		name, prefix string
		args         []string
		want         int
		valid        bool
	}{
		{"unset: the derived default", "", nil, agent.DefaultMaxCalls(), true},
		{"0 said: no limit", "", []string{"--max-calls", "0"}, 0, true},
		{"a number", "", []string{"--max-calls=12"}, 12, true},
		{"negative", "", []string{"--max-calls=-1"}, -1, false},
		{"prefixed, unset", "agent-", nil, agent.DefaultMaxCalls(), true},
		{"prefixed, 0 said", "agent-", []string{"--agent-max-calls=0"}, 0, true},
	} {
		fs := flag.NewFlagSet("agent", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var af agentFlags
		af.register(fs, tc.prefix)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if af.cfg.MaxCalls != tc.want {
			t.Errorf("%s: max calls %d, want %d", tc.name, af.cfg.MaxCalls, tc.want)
		}
		if errs := af.cfg.Validate(); (len(errs) == 0) != tc.valid {
			t.Errorf("%s: validation %v, want valid=%v", tc.name, errs, tc.valid)
		}
	}
	if agent.DefaultMaxCalls() < 1 {
		t.Errorf("default limit %d", agent.DefaultMaxCalls())
	}
}

func TestAgentHelpStatesLimits(t *testing.T) {
	_, stderr, code := callfleet(t, "agent", "-h")
	if code != exitOK {
		t.Fatalf("agent -h: exit %d", code)
	}
	for _, want := range []string{"RLIMIT_NOFILE", "0 = no limit", "-max-call-length", "(default 1h0m0s)", "/twilio/ws upgrade"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("agent -h does not say %q:\n%s", want, stderr)
		}
	}
}

// TestAgentWarnsUnauthenticated: listening beyond loopback without a Twilio auth token, the
// agent warns at start-up that calls are unauthenticated, and says its limits.
func TestAgentWarnsUnauthenticated(t *testing.T) {
	cmd := exec.Command(bin, "agent", "--listen", "0.0.0.0:0", "--max-calls", "0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout // one stream, in order
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	lines := make(chan string, 16)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default: // the test has what it needs
			}
		}
	}()
	want := []string{"agent listening on", "live-call limit: none", "calls are unauthenticated"}
	timeout := time.After(60 * time.Second)
	for len(want) > 0 {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("agent exited before saying %q", want[0])
			}
			if strings.Contains(l, want[0]) {
				want = want[1:]
			}
		case <-timeout:
			t.Fatalf("agent did not say %q within 60 s", want[0])
		}
	}
}
