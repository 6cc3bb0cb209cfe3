package main

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/checks"
	"github.com/callfleet/callfleet/report"
)

// writeRun writes a synthetic run of the given steps to dir/report.json and its turns.jsonl:
// every call has six understood turns whose reply latency grows with i and is scaled by slow.
// Calls are numbered from firstCall, so shards can share or not share call numbers.
func writeRun(t *testing.T, dir string, steps []int, slow float64, firstCall int) string {
	t.Helper()
	t0 := time.Date(2026, 10, 8, 15, 0, 0, 0, time.UTC)
	run := &report.Run{}
	var data []report.StepData
	call := firstCall
	for i, n := range steps {
		from := t0.Add(time.Duration(i) * 3 * time.Minute)
		d := report.StepData{N: n, Window: [2]time.Time{from, from.Add(2 * time.Minute)}}
		for range n {
			c := callers.CallResult{Schema: callers.Schema, Call: call, Step: i, Wall: from, Connected: true, Turns: 6, EndedBy: "caller"}
			d.Calls = append(d.Calls, c)
			for k := range 6 {
				end := callers.Ms(3000 + 8000*k)
				tr := end + callers.Ms(700+float64((call*7+k*3)%11)*10)
				reply := tr + callers.Ms((250+float64((call*5+k*13)%17)*10)*slow)
				d.Turns = append(d.Turns, callers.Turn{Schema: callers.Schema, Call: call, Step: i, Turn: k, Phrase: "4821",
					Wall: from.Add(time.Duration(k) * 8 * time.Second), Marks: callers.Marks{SpeechEnd: &end, Transcript: &tr, ReplyStart: &reply},
					Heard: "four eight two one", Replies: 1, AgentAudio: 3000, LatenessP99: 1})
			}
			call++
		}
		run.Turns, run.Calls = append(run.Turns, d.Turns...), append(run.Calls, d.Calls...)
		data = append(data, d)
	}
	run.Report = report.Build(report.RunConfig{Transport: "twilio", Steps: steps}, data, checks.DefaultThresholds())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, report.FileName)
	if err := report.WriteRun(path, run); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCompareCommand(t *testing.T) {
	dir := t.TempDir()
	base := writeRun(t, filepath.Join(dir, "base"), []int{2, 4}, 1, 0)
	same := writeRun(t, filepath.Join(dir, "same"), []int{2, 4}, 1, 0)
	slow := writeRun(t, filepath.Join(dir, "slow"), []int{2, 4}, 2, 0)
	gate := filepath.Join(dir, "gate.yaml")
	os.WriteFile(gate, []byte("alpha: 0.01\nrules:\n  - p95(speech_end_to_reply){each} <= +10%\n"), 0o644)
	badGate := filepath.Join(dir, "bad.yaml")
	os.WriteFile(badGate, []byte("rules:\n  - p95(speech_end_to_reply) <= 10%\n"), 0o644)
	noTurns := filepath.Join(dir, "noturns")
	os.MkdirAll(noTurns, 0o755)
	b, _ := os.ReadFile(base)
	os.WriteFile(filepath.Join(noTurns, report.FileName), b, 0o644)
	cases := []struct {
		name     string
		args     []string
		code     int
		out, err string
	}{
		{"same run passes", []string{base, same}, 0, "result: pass", ""},
		{"slower replies regress", []string{base, slow}, 1, "result: REGRESSION", ""},
		{"gate file", []string{base, slow, "--gate", gate}, 1, "FAIL   p95(speech_end_to_reply){each}", ""},
		{"markdown", []string{"--format", "markdown", base, slow}, 1, "## callfleet compare: ❌ regression", ""},
		{"flag after arguments", []string{base, same, "--rule", "capacity >= base"}, 0, "PASS   capacity >= base", ""},
		{"bad rule", []string{base, slow, "--rule", "p95(reply) <= +10%"}, 2, "", `"p95(reply) <= +10%": unknown latency "reply"`},
		{"bad gate", []string{base, slow, "--gate", badGate}, 2, "", "bad.yaml"},
		{"bad alpha", []string{base, slow, "--alpha", "2"}, 2, "", "bad alpha 2"},
		{"missing report", []string{base, filepath.Join(dir, "nope.json")}, 2, "", "no such file"},
		{"missing turns", []string{noTurns + "/report.json", base}, 2, "", "turns.jsonl"},
		{"one argument", []string{base}, 2, "", "Usage"},
		{"bad format", []string{base, same, "--format", "pdf"}, 2, "", "--format"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, stderr, code := callfleet(t, append([]string{"compare"}, c.args...)...)
			if code != c.code || !strings.Contains(out, c.out) || !strings.Contains(stderr, c.err) {
				t.Errorf("exit %d, stdout:\n%s\nstderr: %s\nwant exit %d, %q, %q", code, out, stderr, c.code, c.out, c.err)
			}
		})
	}
}

func TestCompareJUnit(t *testing.T) {
	dir := t.TempDir()
	base := writeRun(t, filepath.Join(dir, "base"), []int{2, 4}, 1, 0)
	slow := writeRun(t, filepath.Join(dir, "slow"), []int{2, 4}, 2, 0)
	junit, md := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "cmp.md")
	_, stderr, code := callfleet(t, "compare", base, slow, "--junit", junit, "--format", "markdown", "-o", md)
	if code != 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil || doc.Tests != 3 || doc.Failures < 1 {
		t.Errorf("junit %+v, %v:\n%s", doc, err, b)
	}
	if m, _ := os.ReadFile(md); !strings.HasPrefix(string(m), "## callfleet compare") {
		t.Errorf("-o markdown: %q", m)
	}
}

func TestMergeCommand(t *testing.T) {
	dir := t.TempDir()
	a := writeRun(t, filepath.Join(dir, "shard-0"), []int{1, 2}, 1, 0)
	b := writeRun(t, filepath.Join(dir, "shard-1"), []int{1, 2}, 1, 0) // the same call numbers: renumbered
	out := filepath.Join(dir, "merged.json")
	stdout, stderr, code := callfleet(t, "merge", a, b, "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	run, err := report.LoadRun(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(run.Report.Config.Steps); got != "[2 4]" || len(run.Calls) != 6 || len(run.Turns) != 36 {
		t.Errorf("merged steps %s, %d calls, %d turns", got, len(run.Calls), len(run.Turns))
	}
	if !strings.Contains(stdout, "merged 2 shards") || !strings.Contains(stdout, "merged.turns.jsonl") {
		t.Errorf("stdout:\n%s", stdout)
	}
	if _, stderr, code := callfleet(t, "merge", a, b, "-o", out); code != 2 || !strings.Contains(stderr, "exists") {
		t.Errorf("second merge onto the same records: exit %d, %s", code, stderr)
	}
	short := writeRun(t, filepath.Join(dir, "short"), []int{1}, 1, 100)
	if _, stderr, code := callfleet(t, "merge", a, short, "-o", filepath.Join(dir, "m2.json")); code != 2 || !strings.Contains(stderr, "shards do not match") {
		t.Errorf("mismatched shards: exit %d, %s", code, stderr)
	}
	if _, stderr, code := callfleet(t, "merge", a); code != 2 || !strings.Contains(stderr, "Usage") {
		t.Errorf("no -o: exit %d, %s", code, stderr)
	}
}

func TestReportHTML(t *testing.T) {
	dir := t.TempDir()
	path := writeRun(t, filepath.Join(dir, "run"), []int{1, 2, 4}, 1, 0)
	html := filepath.Join(dir, "report.html")
	if _, stderr, code := callfleet(t, "report", path, "--format", "html", "-o", html); code != 0 || stderr != "" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(html)
	if n := strings.Count(string(b), "<svg"); n < 5 || !strings.Contains(string(b), `id="dist-speech_end_to_reply"`) {
		t.Errorf("%d charts, distributions %v", n, strings.Contains(string(b), "dist-"))
	}
	os.Remove(filepath.Join(dir, "run", report.TurnsFileName))
	out, stderr, code := callfleet(t, "report", path, "--format", "html")
	if code != 0 || !strings.Contains(stderr, "distributions are left out") || !strings.Contains(out, "<svg") {
		t.Errorf("without records: exit %d, %s", code, stderr)
	}
}
