package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/callfleet/callfleet/checks"
)

// synthStream is the golden run written as a run writes its turns file: a run line, then per step
// a start line, its records, an end line and its agent costs, and a run end line.
func synthStream(t *testing.T) []byte {
	cfg := synthConfig()
	cfg.Thresholds = checks.DefaultThresholds()
	return streamOf(t, cfg, synthSteps(), false)
}

// streamOf writes steps as a run does; a step cut short says so on its end line. killed leaves out
// the last step's end line and the run end line, as a SIGKILL during that step does.
func streamOf(t *testing.T, cfg RunConfig, steps []StepData, killed bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	j := NewJSONL(&buf)
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(j.WriteRun(RunLine{Config: cfg, Machine: synthMachine, Started: synthStart}))
	for i, d := range steps {
		must(j.WriteStep(StepLine{Step: i, N: d.N, Start: d.Window[0].Add(-18 * time.Second), Window: d.Window}))
		for _, tr := range d.Turns {
			tr.Step = i
			must(j.WriteTurn(tr))
		}
		for _, c := range d.Calls {
			c.Step = i
			must(j.WriteCall(c))
		}
		if killed && i == len(steps)-1 {
			return buf.Bytes()
		}
		must(j.WriteStepEnd(StepEndLine{Step: i, GeneratorCPU: d.GeneratorCPU, MachineSteal: d.MachineSteal, Stopped: d.Cut}))
		if d.AgentCPUMilli != nil {
			must(j.WriteAgent(AgentLine{Step: i, AgentCPUMilli: *d.AgentCPUMilli, AgentRSSMiBPerCall: *d.AgentRSSMiBPerCall}))
		}
	}
	must(j.WriteRunEnd(RunEndLine{Ended: synthStart.Add(time.Hour)}))
	return buf.Bytes()
}

// TestRebuildCut: a step whose end line says it was stopped, or that never ended (the run was
// killed during it), comes back incomplete, and capacity from the completed steps.
func TestRebuildCut(t *testing.T) {
	want := synthReportCut()
	steps := synthCutSteps()
	for _, killed := range []bool{false, true} {
		recs, err := DecodeRecords(bytes.NewReader(streamOf(t, want.Config, steps, killed)))
		if err != nil {
			t.Fatal(err)
		}
		got, err := Rebuild(recs)
		if err != nil {
			t.Fatal(err)
		}
		last := got.Steps[len(got.Steps)-1]
		if !last.Verdict.Incomplete || last.Verdict.Failed() || !got.Capacity.Incomplete || got.Capacity.N != 4 {
			t.Errorf("killed %v: last step %+v, capacity %+v; want incomplete, at least 4", killed, last.Verdict, got.Capacity)
		}
		if a, b := jsonOf(t, want.Calibration), jsonOf(t, got.Calibration); a != b {
			t.Errorf("killed %v: calibration built %s, rebuilt %s", killed, a, b)
		}
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRebuildGolden(t *testing.T) {
	recs, err := DecodeRecords(bytes.NewReader(synthStream(t)))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Rebuild(recs)
	if err != nil {
		t.Fatal(err)
	}
	want := synthReport()
	for name, pair := range map[string][2]any{
		"steps": {want.Steps, got.Steps}, "capacity": {want.Capacity, got.Capacity}, "machine": {want.Machine, got.Machine},
		"config": {want.Config, got.Config}, "checks": {want.ChecksApplied, got.ChecksApplied},
	} {
		if a, b := jsonOf(t, pair[0]), jsonOf(t, pair[1]); a != b {
			t.Errorf("%s:\nbuilt   %s\nrebuilt %s", name, a, b)
		}
	}
	if got.Stopped != nil || got.SkippedLines != 0 || !got.Ended.Equal(synthStart.Add(time.Hour)) || got.TurnsFile != TurnsFileName {
		t.Errorf("stopped %+v, skipped %d, ended %v, turns file %q", got.Stopped, got.SkippedLines, got.Ended, got.TurnsFile)
	}
}

// TestRebuildKilled cuts the golden stream at many points, as a SIGKILL does: every cut rebuilds,
// is marked unfinished, and counts exactly the whole turn lines before it.
func TestRebuildKilled(t *testing.T) {
	stream := synthStream(t)
	lines := bytes.SplitAfter(stream, []byte("\n"))
	for _, cut := range []int{1, 2, 3, 10, len(lines) / 4, len(lines) / 2, len(lines) - 3, len(lines) - 2} {
		for _, half := range []bool{false, true} {
			var in []byte
			for _, l := range lines[:cut] {
				in = append(in, l...)
			}
			if half { // the write the kill interrupted
				in = append(in, lines[cut][:len(lines[cut])/2]...)
			}
			recs, err := DecodeRecords(bytes.NewReader(in))
			if err != nil {
				t.Fatal(err)
			}
			r, err := Rebuild(recs)
			if err != nil {
				t.Fatalf("cut at line %d: %v", cut, err)
			}
			wantTurns := bytes.Count(in, []byte(`{"kind":"turn"`)) - map[bool]int{true: 1, false: 0}[half && bytes.HasPrefix(lines[cut], []byte(`{"kind":"turn"`))]
			total := 0
			for _, s := range r.Steps {
				total += s.Turns.Total
			}
			if total != wantTurns || r.Stopped == nil || r.Stopped.Reason != StopUnfinished || r.SkippedLines != map[bool]int{true: 1, false: 0}[half] {
				t.Errorf("cut at line %d (half %v): %d turns counted, want %d; stopped %+v; skipped %d", cut, half, total, wantTurns, r.Stopped, r.SkippedLines)
			}
			if r.Ended.Before(r.Started) {
				t.Errorf("cut at line %d: ended %v before started %v", cut, r.Ended, r.Started)
			}
		}
	}
}

func TestRebuildRefuses(t *testing.T) {
	run := `{"kind":"run","schema":1,"config":{"steps":[1],"thresholds":{"underruns_per_min":1,"p95_slack":300,"min_understood":1,"max_lateness_p99":10,"max_generator_cpu":0.9}}}`
	badTh := `{"kind":"run","schema":1,"config":{"steps":[1],"thresholds":{"min_understood":7}}}`
	tests := []struct {
		name string
		in   string
		err  error
	}{
		{"no run line (an old or merged file)", `{"kind":"turn","schema":1}` + "\n", ErrNoRunLine},
		{"empty", "", ErrNoRunLine},
		{"bad thresholds", badTh + "\n", ErrCorrupt},
		{"negative N", run + "\n" + `{"kind":"step","step":0,"n":-2}` + "\n", ErrCorrupt},
		{"absurd step index", run + "\n" + `{"kind":"step","step":123456789,"n":1}` + "\n", ErrCorrupt},
		{"ok", run + "\n" + `{"kind":"step","step":0,"n":1}` + "\n", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			recs, _ := DecodeRecords(strings.NewReader(tc.in))
			_, err := Rebuild(recs)
			if !errors.Is(err, tc.err) || (err == nil) != (tc.err == nil) {
				t.Errorf("err %v, want %v", err, tc.err)
			}
		})
	}
}
