package report

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/checks"
)

// seedProbe is the seed's end-of-turn table as probe results: 4 conversations per pause.
func seedProbe() *ProbeSection {
	row := func(name string, split ...int) ProbeSetting {
		s := ProbeSetting{Name: name, Wait: checks.Summary{N: 16, P50: 801, P95: 927}}
		for i, k := range split {
			s.Pauses = append(s.Pauses, PauseResult{Pause: callers.Ms(300 + 200*i), Turns: 4, Split: k})
		}
		return s
	}
	p := &ProbeSection{Pauses: []callers.Ms{300, 500, 700, 900}, Conversations: 4, TurnsPerCall: 1, Settings: []ProbeSetting{
		row("1300/1000", 0, 0, 4, 4), row("1300/400", 0, 4, 4, 4), row("1000/400", 2, 4, 4, 4), row("800/400", 4, 4, 4, 4)}}
	for i := range p.Settings {
		for j := range p.Settings[i].Pauses {
			pr := &p.Settings[i].Pauses[j]
			pr.Verdict = map[int]string{0: "one turn", 2: "2 of 4 split", 4: "split"}[pr.Split]
		}
	}
	return p
}

func renderScen(t table) []string {
	lines := []string{strings.Join(t.head, " | ")}
	for _, r := range t.rows {
		lines = append(lines, strings.Join(r, " | "))
	}
	return lines
}

// The probe's two tables come out in the seed's shape from the seed's results.
func TestProbeTablesInTheSeedsShape(t *testing.T) {
	p := seedProbe()
	want := []string{
		"Min silence / gate hold (ms) | 300 ms pause | 500 ms pause | 700 ms and longer",
		"1300/1000 | one turn | one turn | split",
		"1300/400 | one turn | split | split",
		"1000/400 | 2 of 4 split | split | split",
		"800/400 | split | split | split",
	}
	if got := renderScen(SplitTable(p)); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("split table:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	want = []string{
		"Min silence / gate hold (ms) | Pauses that stay one turn (ms) | Pauses that split | Last speech to final transcript, p50 / p95",
		"1300 / 1000 | 300, 500 | 700 and longer | 801 / 927 ms",
		"1300 / 400 | 300 | 500 and longer | 801 / 927 ms",
		"1000 / 400 | 300 in 2 of 4 | 300 in 2 of 4, and 500 and longer | 801 / 927 ms",
		"800 / 400 | none | 300 and longer | 801 / 927 ms",
	}
	if got := renderScen(TradeOffTable(p)); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("trade-off table:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestSplitTableKeepsColumnsThatDiffer(t *testing.T) {
	p := seedProbe()
	p.Settings = p.Settings[:1]
	p.Settings[0].Name = ""
	if got := renderScen(SplitTable(p)); got[0] != "Agent | 300 ms pause | 500 ms pause | 700 ms and longer" || got[1] != "agent | one turn | one turn | split" {
		t.Errorf("one setting: %q", got)
	}
	p.Settings[0].Pauses[3].Split = 2 // 900 ms no longer always splits: no merged column
	if got := renderScen(SplitTable(p)); got[0] != "Agent | 300 ms pause | 500 ms pause | 700 ms pause | 900 ms pause" {
		t.Errorf("not merged: %q", got)
	}
}

// A scenario report goes to disk and back with its sections, and prints them.
func TestScenarioReportRoundTrip(t *testing.T) {
	dir := t.TempDir()
	lat := callers.Ms(41)
	r := &ScenarioReport{Report: Build(RunConfig{Target: "ws://x", Transport: "twilio", Seed: 3}, nil, checks.DefaultThresholds()),
		Scenarios: Scenarios{Probe: seedProbe(),
			BargeIn: &BargeInSection{Offset: 500, MaxP95: 300, Calls: []BargeInCall{{Call: 1, Latency: &lat, Signal: "clear", Understood: true}},
				Verdict: ScenarioVerdict{OK: true}},
			Idle: &IdleSection{ExpectPrompt: 1000, ExpectHangup: 1000, Tolerance: 60, Verdict: ScenarioVerdict{Reasons: []string{"call 0: the agent did not hang up"}}}}}
	if err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	back, err := LoadScenarios(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	if back.Schema != Schema || back.Probe == nil || len(back.Probe.Settings) != 4 || back.BargeIn == nil ||
		*back.BargeIn.Calls[0].Latency != 41 || back.Idle == nil || back.Idle.Verdict.OK {
		t.Errorf("back: %+v", back)
	}
	if plain, err := Load(filepath.Join(dir, FileName)); err != nil || plain.Config.Seed != 3 {
		t.Errorf("as a plain report: %v", err)
	}
	var out bytes.Buffer
	if err := TextScenarios(&out, back); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"pause-probe", "700 ms and longer", "barge-in: ok", "41 ms", "idle: FAIL", "did not hang up"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if err := MarkdownScenarios(&out, back); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Pause probe", "| 1300/1000 | one turn | one turn | split |", "## Barge-in", "| 41 ms", "## Idle", "did not hang up"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, out.String())
		}
	}
	old := filepath.Join(dir, "old.json")
	os.WriteFile(old, []byte(`{"schema":"callfleet.report/v1","config":{"seed":9}}`), 0o644)
	if o, err := LoadScenarios(old); err != nil || o.Config.Seed != 9 || o.Probe != nil {
		t.Errorf("v1 report: %v", err)
	}
	os.WriteFile(old, []byte(`{"schema":"callfleet.report/v0"}`), 0o644)
	if _, err := LoadScenarios(old); !errors.Is(err, ErrSchema) {
		t.Errorf("v0 report: %v", err)
	}
}

func TestTextReplay(t *testing.T) {
	ms := func(v float64) *callers.Ms { m := callers.Ms(v); return &m }
	turn := callers.Turn{Phrase: "1234", Heard: "1234", TranscriptChannel: true, ServerTranscripts: []string{"one two three four"},
		Marks: callers.Marks{SpeechEnd: ms(1000), Transcript: ms(1800), ReplyStart: ms(2000)}}
	var out bytes.Buffer
	if err := TextReplay(&out, []ReplayRow{{Turn: 1, Phrase: "1234", Before: &turn, Again: &turn}, {Turn: 2, Phrase: "5678", Before: &turn}}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"understood  understood", "800 ms / 800 ms", "1.00 s / 1.00 s", "1234 / 1234", "5678"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("replay text lacks %q:\n%s", want, out.String())
		}
	}
}
