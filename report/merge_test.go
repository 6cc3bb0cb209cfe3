package report

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/checks"
)

// recordsOf is what turns.jsonl holds for steps built by synthStep: every turn and call, with the
// run's 0-based step index (synthStep numbers them from 1), plus a warm-up turn per call before
// the window that the window must keep out.
func recordsOf(steps []StepData) ([]callers.Turn, []callers.CallResult) {
	var turns []callers.Turn
	var calls []callers.CallResult
	for i, d := range steps {
		for _, c := range d.Calls {
			c.Step = i
			calls = append(calls, c)
			warm := synthTurn(i+1, d.N, c.Call, 99, d.Window[0].Add(-time.Second), true)
			warm.Step, warm.Marks.ReplyStart = i, ms(999999)
			turns = append(turns, warm)
		}
		for _, t := range d.Turns {
			t.Step = i
			turns = append(turns, t)
		}
	}
	return turns, calls
}

// synthRun is the golden run with its records, as LoadRun would read it.
func synthRun() *Run {
	steps := synthSteps()
	turns, calls := recordsOf(steps)
	return &Run{Path: "run/report.json", Report: synthReport(), Turns: turns, Calls: calls}
}

func TestStepRecordsRebuild(t *testing.T) {
	run := synthRun()
	again := Build(run.Report.Config, run.Steps(), run.Report.Config.Thresholds)
	again.Machine = run.Report.Machine
	if !reflect.DeepEqual(again, run.Report) {
		t.Errorf("Build over StepRecords differs from the report:\n%+v\n%+v", again.Steps, run.Report.Steps)
	}
}

func TestStepRecordsStepCutShort(t *testing.T) {
	r := &Report{Steps: []Step{{Index: 1, N: 1, Start: synthStart, End: synthStart.Add(time.Minute)}}}
	early := callers.Turn{Step: 0, Wall: synthStart.Add(-time.Hour)}
	got := StepRecords(r, []callers.Turn{early}, nil)
	if len(got[0].Turns) != 1 {
		t.Errorf("a step with no turn in its window keeps them all, as the runner does: %d", len(got[0].Turns))
	}
}

// shards splits the golden run's steps between two shards: calls alternate, so each shard has
// its share of N (one shard has none of step 1's single call).
func shards() (a, b []StepData) {
	for _, d := range synthSteps() {
		sa := StepData{Window: d.Window, GeneratorCPU: d.GeneratorCPU, MachineSteal: d.MachineSteal / 2}
		sb := StepData{Window: d.Window, GeneratorCPU: d.GeneratorCPU / 2, MachineSteal: d.MachineSteal}
		sb.Window[0] = sb.Window[0].Add(200 * time.Millisecond) // the shards' clocks are not one clock
		sb.Window[1] = sb.Window[1].Add(200 * time.Millisecond)
		mine := map[int]bool{}
		for j, c := range d.Calls {
			if j%2 == 0 {
				sa.Calls, sa.N, mine[c.Call] = append(sa.Calls, c), sa.N+1, true
			} else {
				sb.Calls, sb.N = append(sb.Calls, c), sb.N+1
			}
		}
		for _, tr := range d.Turns {
			if mine[tr.Call] {
				sa.Turns = append(sa.Turns, tr)
			} else {
				sb.Turns = append(sb.Turns, tr)
			}
		}
		if d.AgentCPUMilli != nil {
			// Both shards scraped the one agent: each divides its whole cost by its own N.
			total, rss := *d.AgentCPUMilli*float64(d.N), *d.AgentRSSMiBPerCall*float64(d.N)
			for _, s := range []*StepData{&sa, &sb} {
				if s.N > 0 {
					s.AgentCPUMilli, s.AgentRSSMiBPerCall = f64(total/float64(s.N)), f64(rss/float64(s.N))
				}
			}
		}
		a, b = append(a, sa), append(b, sb)
	}
	return a, b
}

func shardRun(name string, steps []StepData) *Run {
	cfg := synthConfig()
	cfg.Steps = nil
	for _, d := range steps {
		cfg.Steps = append(cfg.Steps, d.N)
	}
	r := Build(cfg, steps, checks.DefaultThresholds())
	r.Machine = synthMachine
	r.Machine.Hostname = name
	turns, calls := recordsOf(steps)
	return &Run{Path: name + "/report.json", Report: r, Turns: turns, Calls: calls}
}

func TestMergeEqualsBuildOverUnion(t *testing.T) {
	a, b := shards()
	merged, err := Merge([]*Run{shardRun("a", a), shardRun("b", b)})
	if err != nil {
		t.Fatal(err)
	}
	union := synthSteps()
	for i := range union {
		union[i].Window[1] = union[i].Window[1].Add(200 * time.Millisecond)
	}
	want := Build(synthConfig(), union, checks.DefaultThresholds())
	got := merged.Report
	for i := range want.Steps {
		w, g := want.Steps[i], got.Steps[i]
		if g.N != w.N || g.Calls != w.Calls || g.Turns != w.Turns || g.Clean != w.Clean || g.Cross != w.Cross ||
			!reflect.DeepEqual(g.Latency, w.Latency) || g.Playout != w.Playout || !reflect.DeepEqual(g.Verdict, w.Verdict) ||
			!reflect.DeepEqual(g.Failures, w.Failures) || !reflect.DeepEqual(g.CallFailures, w.CallFailures) {
			t.Errorf("step %d:\n got %+v\nwant %+v", i+1, g, w)
		}
		if !near(g.AgentCPUMilli, w.AgentCPUMilli) || !near(g.AgentRSSMiBPerCall, w.AgentRSSMiBPerCall) {
			t.Errorf("step %d agent cost: %v %v, want %v %v", i+1, deref(g.AgentCPUMilli), deref(g.AgentRSSMiBPerCall),
				deref(w.AgentCPUMilli), deref(w.AgentRSSMiBPerCall))
		}
		if g.Generator.CPU != w.Generator.CPU {
			t.Errorf("step %d generator CPU %v, want the busiest shard's %v", i+1, g.Generator.CPU, w.Generator.CPU)
		}
	}
	if got.Capacity != want.Capacity || !reflect.DeepEqual(got.Config.Steps, want.Config.Steps) {
		t.Errorf("capacity %+v steps %v, want %+v %v", got.Capacity, got.Config.Steps, want.Capacity, want.Config.Steps)
	}
	if got.Machine.Hostname != "a,b" || got.Machine.Cores != 16 || got.Config.Extra["shards"] != "2" {
		t.Errorf("machine %+v extra %v", got.Machine, got.Config.Extra)
	}
	// The merged records split again into the same steps.
	again := Build(got.Config, merged.Steps(), got.Config.Thresholds)
	for i := range again.Steps {
		if !reflect.DeepEqual(again.Steps[i].Latency, got.Steps[i].Latency) || again.Steps[i].Turns != got.Steps[i].Turns {
			t.Errorf("step %d does not survive a second split", i+1)
		}
	}
}

func TestMergeRenumbersCollidingCalls(t *testing.T) {
	run := synthRun()
	merged, err := Merge([]*Run{run, run})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]int{}
	for _, c := range merged.Calls {
		seen[c.Call]++
	}
	if len(seen) != 2*len(run.Calls) {
		t.Errorf("%d distinct calls, want %d", len(seen), 2*len(run.Calls))
	}
	if run.Calls[len(run.Calls)-1].Call != 14 {
		t.Errorf("the shard given was renumbered in place")
	}
	for i, s := range merged.Report.Steps {
		if s.N != 2*run.Report.Steps[i].N || s.Turns.Total != 2*run.Report.Steps[i].Turns.Total {
			t.Errorf("step %d: N %d, %d turns", i+1, s.N, s.Turns.Total)
		}
	}
}

func TestMergeMismatch(t *testing.T) {
	run := synthRun()
	short := synthRun()
	short.Report.Steps = short.Report.Steps[:2]
	other := synthRun()
	other.Report.Config.Thresholds.MinUnderstood = 0.9
	for name, shards := range map[string][]*Run{"none": nil, "steps": {run, short}, "thresholds": {run, other}} {
		if _, err := Merge(shards); !errors.Is(err, ErrShardMismatch) {
			t.Errorf("%s: %v, want ErrShardMismatch", name, err)
		}
	}
}

func TestWriteRun(t *testing.T) {
	dir := t.TempDir()
	a, b := shards()
	merged, err := Merge([]*Run{shardRun("a", a), shardRun("b", b)})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "merged.json")
	if err := WriteRun(path, merged); err != nil {
		t.Fatal(err)
	}
	back, err := LoadRun(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Report.TurnsFile != "merged.turns.jsonl" || len(back.Turns) != len(merged.Turns) || len(back.Calls) != len(merged.Calls) {
		t.Errorf("turns file %q, %d turns, %d calls", back.Report.TurnsFile, len(back.Turns), len(back.Calls))
	}
	if err := WriteRun(path, merged); !errors.Is(err, os.ErrExist) {
		t.Errorf("a second write over the records: %v, want os.ErrExist", err)
	}
	if TurnsNameFor("x/report.json") != TurnsFileName || TurnsNameFor("m.v2.json") != "m.v2.turns.jsonl" {
		t.Error("TurnsNameFor")
	}
}

func near(a, b *float64) bool {
	if a == nil || b == nil {
		return a == b
	}
	d := *a - *b
	return d < 1e-9 && d > -1e-9
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// shardOf marks run as shard label of a sharded run of the golden plan, as `callfleet run
// --shard` writes it: the plan's steps in the config, its share in each step's N.
func shardOf(run *Run, label string) *Run {
	c := *run
	r := *run.Report
	r.Config.Steps = synthConfig().Steps
	r.Config.Extra = map[string]string{"scenario": "ramp", ExtraShard: label, ExtraStartAt: "2026-05-01T12:00:00Z"}
	c.Report = &r
	return &c
}

func TestMergeShardSet(t *testing.T) {
	a, b := shards()
	// Given in reverse order: joined by index, so the first shard's machine leads.
	merged, err := Merge([]*Run{shardOf(shardRun("b", b), "1/2"), shardOf(shardRun("a", a), "0/2")})
	if err != nil {
		t.Fatal(err)
	}
	got := merged.Report
	if !reflect.DeepEqual(got.Config.Steps, synthConfig().Steps) || got.Machine.Hostname != "a,b" {
		t.Errorf("steps %v, hosts %q", got.Config.Steps, got.Machine.Hostname)
	}
	for i, s := range got.Steps {
		if s.N != synthConfig().Steps[i] || s.Index != i+1 {
			t.Errorf("step %d: index %d N %d, want the plan's %d", i+1, s.Index, s.N, synthConfig().Steps[i])
		}
	}
	x := got.Config.Extra
	if _, ok := x[ExtraShard]; ok || x[ExtraShards] != "2" || x[ExtraStartAt] != "2026-05-01T12:00:00Z" || x["scenario"] != "ramp" {
		t.Errorf("extra %v", x)
	}
	// The records keep their steps, 0-based, and their call numbers (distinct by plan).
	for _, c := range merged.Calls {
		if c.Call > 14 || c.Step < 0 || c.Step > 3 {
			t.Errorf("call %d step %d", c.Call, c.Step)
		}
	}
}

func TestMergeShardSetMismatch(t *testing.T) {
	a, b := shards()
	ra, rb := shardRun("a", a), shardRun("b", b)
	with := func(run *Run, label string, edit func(*Report)) *Run {
		s := shardOf(run, label)
		if edit != nil {
			edit(s.Report)
		}
		return s
	}
	cases := []struct {
		name   string
		shards []*Run
		want   string
	}{
		{"missing", []*Run{with(ra, "0/3", nil), with(rb, "1/3", nil)}, "missing shard 2/3"},
		{"twice", []*Run{with(ra, "0/2", nil), with(rb, "0/2", nil)}, "both shard 0/2"},
		{"counts", []*Run{with(ra, "0/2", nil), with(rb, "1/3", nil)}, "another is one of 2"},
		{"unlabelled", []*Run{with(ra, "0/2", nil), rb}, "names no shard"},
		{"bad label", []*Run{with(ra, "0/2", nil), with(rb, "2/2", nil)}, "not INDEX/COUNT"},
		{"seed", []*Run{with(ra, "0/2", nil), with(rb, "1/2", func(r *Report) { r.Config.Seed = 7 })}, "other seed"},
		{"steps", []*Run{with(ra, "0/2", nil), with(rb, "1/2", func(r *Report) { r.Config.Steps = []int{1, 2, 4, 16} })}, "other steps"},
		{"timing", []*Run{with(ra, "0/2", nil), with(rb, "1/2", func(r *Report) { r.Config.Ramp = 1 })}, "other step timing"},
		{"start", []*Run{with(ra, "0/2", nil), with(rb, "1/2", func(r *Report) { r.Config.Extra[ExtraStartAt] = "2026-05-01T12:05:00Z" })}, "other start"},
		{"share", []*Run{with(ra, "0/2", nil), with(rb, "1/2", func(r *Report) {
			r.Steps = slices.Clone(r.Steps)
			r.Steps[2].N++
		})}, "step 3: the shards placed 5 calls, the plan has 4"},
	}
	for _, c := range cases {
		_, err := Merge(c.shards)
		if !errors.Is(err, ErrShardMismatch) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrShardMismatch saying %q", c.name, err, c.want)
		}
	}
}

// A corrupt line in a shard's records is skipped, the records after it kept, and the merged
// report counts it.
func TestLoadRunSkipsCorruptLines(t *testing.T) {
	dir := t.TempDir()
	a, b := shards()
	paths := []string{filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")}
	for i, run := range []*Run{shardRun("a", a), shardRun("b", b)} {
		if err := WriteRun(paths[i], run); err != nil {
			t.Fatal(err)
		}
	}
	tp := filepath.Join(dir, TurnsNameFor(paths[0]))
	data, err := os.ReadFile(tp)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	mid := len(lines) / 2
	lines[mid] = lines[mid][:len(lines[mid])/2] // half a line in the middle: its newline gone too
	lines = append(lines, []byte(`{"kind":"turn","sch`))
	if err := os.WriteFile(tp, bytes.Join(lines, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	whole, err := LoadRun(paths[1])
	if err != nil {
		t.Fatal(err)
	}
	cut, err := LoadRun(paths[0])
	if err != nil {
		t.Fatalf("a corrupt line is skipped, not an error: %v", err)
	}
	// The half line swallowed the next one: two records lost, and the half last line.
	if len(cut.Skipped) != 2 || len(cut.Turns)+len(cut.Calls) != len(lines)-1-2-1 {
		t.Errorf("skipped %v, kept %d records of %d lines", cut.Skipped, len(cut.Turns)+len(cut.Calls), len(lines))
	}
	merged, err := Merge([]*Run{cut, whole})
	if err != nil {
		t.Fatal(err)
	}
	if merged.Report.SkippedLines != 2 {
		t.Errorf("merged report counts %d skipped lines, want 2", merged.Report.SkippedLines)
	}
	var txt bytes.Buffer
	if err := Text(&txt, merged.Report); err != nil || !strings.Contains(txt.String(), "2 unreadable line(s)") {
		t.Errorf("the text report does not warn of the skipped lines (%v):\n%s", err, txt.String())
	}
}
