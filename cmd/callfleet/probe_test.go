package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestProbeAndReplayUsage(t *testing.T) {
	cases := []struct {
		args []string
		err  string
	}{
		{[]string{"probe", "--mode", "dance", "--local"}, "--mode"},
		{[]string{"probe", "--mode", "idle", "--agent-sweep", "800/400"}, "--agent-sweep is for --mode pause"},
		{[]string{"probe"}, "give --target URL, or --local"},
		{[]string{"probe", "--target", "ws://127.0.0.1:1/twilio/ws", "--transport", "pigeon"}, "--transport"},
		{[]string{"replay", "/nonexistent"}, "Usage"},
		{[]string{"replay", "/nonexistent", "--call", "1"}, "no such file"},
	}
	for _, c := range cases {
		if _, stderr, code := callfleet(t, c.args...); code != 2 || !strings.Contains(stderr, c.err) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.err)
		}
	}
}

// The idle scenario against the bundled agent, then one of its calls replayed over the other
// transport.
func TestProbeIdleThenReplay(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "idle")
	out, stderr, code := callfleet(t, "probe", "--mode", "idle", "--local", "--transport", "twilio", "--conversations", "1",
		"--agent-idle-prompt", "1s", "--agent-idle-hangup", "1s", "--agent-vad-min-silence", "600ms", "--agent-stt-gate-hold", "200ms",
		"--tolerance", "200ms", "--seed", "8", "--out", dir)
	if code != 0 || !strings.Contains(out, "idle: ok") {
		t.Fatalf("probe idle: exit %d\n%s\n%s", code, out, stderr)
	}
	var r struct {
		Schema string          `json:"schema"`
		Idle   json.RawMessage `json:"idle"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil || json.Unmarshal(b, &r) != nil || r.Schema != "callfleet.report/v2" || len(r.Idle) == 0 {
		t.Fatalf("report.json: %v, schema %q, idle %s", err, r.Schema, r.Idle)
	}
	for _, f := range []string{"turns.jsonl", "traces.jsonl"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	out, stderr, code = callfleet(t, "replay", dir, "--call", "0", "--local", "--transport", "webrtc",
		"--agent-vad-min-silence", "600ms", "--agent-stt-gate-hold", "200ms")
	if code != 0 || !strings.Contains(out, "over twilio first and webrtc now") || !regexp.MustCompile(`understood: 1 of 1 first, 1 of 1 now`).MatchString(out) {
		t.Errorf("replay: exit %d\n%s\n%s", code, out, stderr)
	}
}

// A sweep of two settings of the bundled agent prints the seed's two tables.
func TestProbeSweep(t *testing.T) {
	out, stderr, code := callfleet(t, "probe", "--agent-sweep", "300/200,1300/200", "--pauses", "200ms,900ms",
		"--conversations", "1", "--parallel", "2", "--transport", "twilio", "--seed", "4", "--out", filepath.Join(t.TempDir(), "sweep"))
	if code != 0 {
		t.Fatalf("sweep: exit %d\n%s\n%s", code, out, stderr)
	}
	flat := regexp.MustCompile(`[ \t]{2,}`).ReplaceAllString(out, " | ")
	for _, want := range []string{
		"Min silence / gate hold (ms) | 200 ms pause | 900 ms pause",
		"300/200 | one turn | split",
		"1300/200 | one turn | one turn",
		"300 / 200 | 200 | 900 |",
		"1300 / 200 | 200, 900 | none |",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("sweep output lacks %q:\n%s", want, out)
		}
	}
}
