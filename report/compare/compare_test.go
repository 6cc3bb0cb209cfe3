package compare

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/callfleet/callfleet/internal/golden"

	"github.com/callfleet/callfleet/report"
)

// goldenRules exercise every status: a significant slowdown, a break that is noise, an absolute
// share, capacity, agent figures, a step neither run has.
var goldenRules = []string{
	"p95(speech_end_to_reply) <= +10%",
	"p95(speech_end_to_transcript){each} <= +10%",
	"p99(speech_end_to_transcript){n=1} <= -5%",
	"understood >= 99.9%",
	"capacity >= base",
	"agent_rss <= +5%",
	"agent_cpu{n=8} <= +10%",
	"underruns <= 1",
}

func goldenComparison(t *testing.T) *Comparison {
	t.Helper()
	g, err := NewGate(DefaultAlpha, goldenRules)
	if err != nil {
		t.Fatal(err)
	}
	return Compare(baseSynth().run("base/report.json"), candSynth().run("candidate/report.json"), g)
}

func TestGolden(t *testing.T) {
	c := goldenComparison(t)
	var txt, md, ju bytes.Buffer
	for _, r := range []struct {
		fn  func(*bytes.Buffer) error
		buf *bytes.Buffer
	}{{func(b *bytes.Buffer) error { return c.Text(b) }, &txt}, {func(b *bytes.Buffer) error { return c.Markdown(b) }, &md},
		{func(b *bytes.Buffer) error { return c.JUnit(b) }, &ju}} {
		if err := r.fn(r.buf); err != nil {
			t.Fatal(err)
		}
	}
	golden.Check(t, "compare.txt.golden", txt.Bytes())
	golden.Check(t, "compare.md.golden", md.Bytes())
	golden.Check(t, "compare.junit.xml.golden", ju.Bytes())
	var doc junitSuites
	if err := xml.Unmarshal(ju.Bytes(), &doc); err != nil {
		t.Fatalf("junit does not parse: %v", err)
	}
	if doc.Tests != len(goldenRules) || len(doc.Suites[0].Cases) != len(goldenRules) {
		t.Errorf("junit: %d tests, %d cases; want one per rule", doc.Tests, len(doc.Suites[0].Cases))
	}
}

func TestGoldenStatuses(t *testing.T) {
	c := goldenComparison(t)
	want := []Status{StatusFail, StatusPass, StatusNoise, StatusFail, StatusFail, StatusPass, StatusSkip, StatusPass}
	for i, r := range c.Results {
		if r.Status != want[i] {
			t.Errorf("%s: %v, want %v (%+v)", r.Rule.Text, r.Status, want[i], r.Checks)
		}
	}
	if !c.Regressed() {
		t.Error("not a regression")
	}
	if p := c.Results[0].Checks[0].P; !(p < 1e-6) {
		t.Errorf("a 40 %% slower reply: p %v, want tiny", p)
	}
}

// TestIdenticalNeverRegresses compares runs with themselves under rules their own values break:
// with nothing changed, no latency rule may fail.
func TestIdenticalNeverRegresses(t *testing.T) {
	g, err := NewGate(DefaultAlpha, []string{
		"p95(speech_end_to_reply) <= -10%", "p50(speech_end_to_transcript){each} < base", "p99(reply_start) <= base-5ms",
	})
	if err != nil {
		t.Fatal(err)
	}
	for seed := range uint64(20) {
		o := baseSynth()
		o.seed = seed
		c := Compare(o.run("a"), o.run("b"), g)
		for _, r := range c.Results {
			if r.Status != StatusNoise {
				t.Errorf("seed %d: %s: %v, want NOISE (%+v)", seed, r.Rule.Text, r.Status, r.Checks)
			}
		}
	}
}

// TestSameDistributionRarelyRegresses draws base and candidate from one distribution: at
// alpha 0.05 about one comparison in twenty may fail by chance, no more.
func TestSameDistributionRarelyRegresses(t *testing.T) {
	g, err := NewGate(DefaultAlpha, []string{"p95(speech_end_to_reply) <= +0%"})
	if err != nil {
		t.Fatal(err)
	}
	fails := 0
	for seed := range uint64(40) {
		a, b := baseSynth(), baseSynth()
		a.seed, b.seed = 2*seed+100, 2*seed+101
		if Compare(a.run("a"), b.run("b"), g).Regressed() {
			fails++
		}
	}
	if fails > 4 {
		t.Errorf("%d of 40 same-distribution comparisons regressed", fails)
	}
}

func TestShiftedRegresses(t *testing.T) {
	g, err := NewGate(DefaultAlpha, []string{"p95(speech_end_to_reply){each} <= +10%", "p50(speech_end_to_reply) <= +10%"})
	if err != nil {
		t.Fatal(err)
	}
	cand := baseSynth()
	cand.seed, cand.transcript, cand.reply = 9, 1.3, 1.3
	c := Compare(baseSynth().run("a"), cand.run("b"), g)
	for _, r := range c.Results {
		if r.Status != StatusFail {
			t.Errorf("%s: %v, want FAIL (%+v)", r.Rule.Text, r.Status, r.Checks)
		}
	}
	// The other way round it is an improvement.
	if back := Compare(cand.run("b"), baseSynth().run("a"), g); back.Regressed() {
		t.Error("a faster candidate regressed")
	}
}

// TestWarmupLeftOut: the warm-up turns (99 s replies) must not reach the samples.
func TestWarmupLeftOut(t *testing.T) {
	c := goldenComparison(t)
	for _, tb := range c.Tables {
		for _, r := range tb.Rows {
			if r.Quantity.Kind == KindLatency && (r.Base > 10000 || r.Cand > 10000) {
				t.Errorf("%s %s: %v / %v ms: warm-up turns counted", tb.Scope, r.Quantity, r.Base, r.Cand)
			}
		}
	}
}

// TestFromFiles round-trips both runs through report.json and turns.jsonl.
func TestFromFiles(t *testing.T) {
	dir := t.TempDir()
	var runs []*report.Run
	for _, s := range []struct {
		name string
		o    synth
	}{{"base", baseSynth()}, {"candidate", candSynth()}} {
		run := s.o.run("")
		path := filepath.Join(dir, s.name, report.FileName)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := report.WriteRun(path, run); err != nil {
			t.Fatal(err)
		}
		loaded, err := report.LoadRun(path)
		if err != nil {
			t.Fatal(err)
		}
		loaded.Path = s.name + "/report.json"
		runs = append(runs, loaded)
	}
	g, _ := NewGate(DefaultAlpha, goldenRules)
	var fromFiles, inMemory bytes.Buffer
	Compare(runs[0], runs[1], g).Text(&fromFiles)
	goldenComparison(t).Text(&inMemory)
	if fromFiles.String() != inMemory.String() {
		t.Errorf("from files:\n%s\nin memory:\n%s", fromFiles.String(), inMemory.String())
	}
	if !strings.Contains(fromFiles.String(), "result: REGRESSION") {
		t.Error("no verdict line")
	}
}

func TestWarnings(t *testing.T) {
	short := baseSynth()
	short.steps, short.cpu, short.rss = []int{1, 2}, nil, nil
	cand := short.run("b")
	cand.Report.Steps[1].Generator.Bound = true
	g, _ := NewGate(DefaultAlpha, []string{"p50(speech_end_to_reply){each} <= +50%", "agent_cpu{each} <= +10%"})
	c := Compare(baseSynth().run("a"), cand, g)
	want := []string{"the runs' steps differ (1 2 4 vs 1 2): overall figures pool other loads",
		"candidate step N=2 was generator_bound: its figures are not trusted"}
	if !slices.Equal(c.Warnings, want) {
		t.Errorf("warnings %q", c.Warnings)
	}
	if n := len(c.Results[0].Checks); n != 2 {
		t.Errorf("{each} checked %d steps, want the 2 both runs have", n)
	}
	if c.Results[1].Status != StatusSkip {
		t.Errorf("agent_cpu without agent metrics: %v", c.Results[1].Status)
	}
}
