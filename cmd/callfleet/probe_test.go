package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/callfleet/callfleet/checks"
	"github.com/callfleet/callfleet/report"
)

func TestProbeAndReplayUsage(t *testing.T) {
	cases := []struct {
		args []string
		err  string
	}{
		{[]string{"probe", "--mode", "dance", "--local"}, "--mode"},
		{[]string{"probe", "--scenario", "idle", "--agent-sweep", "800/400"}, "--agent-sweep is for --mode pause"},
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
	dir := filepath.Join(t.TempDir(), "sweep")
	out, stderr, code := callfleet(t, "probe", "--agent-sweep", "300/200,1300/200", "--pauses", "200ms,900ms",
		"--conversations", "1", "--parallel", "2", "--transport", "twilio", "--seed", "4", "--out", dir)
	if code != 0 {
		t.Fatalf("sweep: exit %d\n%s\n%s", code, out, stderr)
	}
	// The turns kept whole carry the caller's transcription of the reply and are understood, as
	// a ramp's turns are: the turn checks hold for a probe too.
	turns, _, err := report.ReadJSONL(filepath.Join(dir, report.TurnsFileName))
	if err != nil || len(turns) != 4 {
		t.Fatalf("turns.jsonl: %d turns, %v", len(turns), err)
	}
	for _, tr := range turns {
		var pause float64
		if tr.Pause != nil {
			pause = float64(*tr.Pause)
		}
		split := tr.Step == 0 && pause == 900 // 300/200 splits from 500 ms
		if v := checks.Turn(tr); v.Understood == split || tr.Heard == "" {
			t.Errorf("step %d, %.0f ms pause: %s, heard %q, server %q; want understood %v", tr.Step, pause, v.Reason, tr.Heard, tr.ServerTranscripts, !split)
		}
	}
	// The HTML report, as written and as `report --format html` prints it, has the probe's tables.
	page, err := os.ReadFile(filepath.Join(dir, report.HTMLFileName))
	again, _, rcode := callfleet(t, "report", filepath.Join(dir, report.FileName), "--format", "html")
	for name, html := range map[string]string{"report.html": string(page), "report --format html": again} {
		if err != nil || rcode != 0 || !strings.Contains(html, `<section id="probe" class="extra">`) ||
			!strings.Contains(html, "<td>1300/200</td><td>one turn</td><td>one turn</td>") || !strings.Contains(html, "End-of-turn trade-off") {
			t.Errorf("%s lacks the probe's tables (%v, exit %d)", name, err, rcode)
		}
	}
	// Not a terminal: plain progress lines, a pause of a setting being a step.
	for _, want := range []string{"pause 200ms (1 of 2), setting 300/200: 1 calls", "pause 900ms (2 of 2), setting 300/200 done: split",
		"pause 900ms (2 of 2), setting 1300/200 done: one turn"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("progress lacks %q:\n%s", want, stderr)
		}
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
