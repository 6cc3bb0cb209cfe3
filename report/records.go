package report

import (
	"fmt"
	"time"

	"github.com/callfleet/callfleet/callers"
)

// Run is a report read back with the records of its turns file: what compare, merge and the HTML
// report work from.
type Run struct {
	Path    string // the report.json it was loaded from
	Report  *Report
	Turns   []callers.Turn
	Calls   []callers.CallResult
	Skipped []SkippedLine // lines of the turns file that could not be read and were left out
}

// LoadRun reads a report.json and the turns file it names beside it. A report without a turns
// file, or one that cannot be read, is an error: the per-turn samples are the point. Lines of the
// turns file that do not parse are skipped and listed in Skipped.
func LoadRun(path string) (*Run, error) {
	r, err := Load(path)
	if err != nil {
		return nil, err
	}
	tp := r.TurnsPath(path)
	if tp == "" {
		return nil, fmt.Errorf("report: %s names no turns file", path)
	}
	recs, err := ReadRecords(tp)
	if err != nil {
		return nil, err // names the turns file, beside the report
	}
	return &Run{Path: path, Report: r, Turns: recs.Turns, Calls: recs.Calls, Skipped: recs.Skipped}, nil
}

// Steps splits the run's records into the report's steps, as the runner handed them to Build.
func (run *Run) Steps() []StepData { return StepRecords(run.Report, run.Turns, run.Calls) }

// StepRecords rebuilds each step's StepData from the report and all its records, so that
// Build(r.Config, StepRecords(r, turns, calls), r.Config.Thresholds) gives back r's steps. A
// record belongs to step Index when its Step is Index-1 (the run's 0-based schedule index); its
// turns are those inside the step's measured window, or all of them when none is (a step cut
// short, as the runner does). Agent costs, generator CPU and whether the step was cut, which no
// record holds, come from the report.
func StepRecords(r *Report, turns []callers.Turn, calls []callers.CallResult) []StepData {
	byStep := map[int][]callers.Turn{}
	for _, t := range turns {
		byStep[t.Step] = append(byStep[t.Step], t)
	}
	callsByStep := map[int][]callers.CallResult{}
	for _, c := range calls {
		callsByStep[c.Step] = append(callsByStep[c.Step], c)
	}
	out := make([]StepData, len(r.Steps))
	for i, s := range r.Steps {
		w := [2]time.Time{s.Start, s.End}
		out[i] = StepData{
			N:                  s.N,
			Turns:              inWindow(byStep[s.Index-1], w),
			Calls:              callsByStep[s.Index-1],
			AgentCPUMilli:      s.AgentCPUMilli,
			AgentRSSMiBPerCall: s.AgentRSSMiBPerCall,
			GeneratorCPU:       s.Generator.CPU,
			MachineSteal:       s.Generator.StealOrUnknown(),
			Window:             w,
			Cut:                s.Verdict.Incomplete,
		}
	}
	return out
}

// inWindow keeps the turns that began speaking inside w, or all of them when none did; the
// runner's rule, repeated here because the records file holds every turn.
func inWindow(turns []callers.Turn, w [2]time.Time) []callers.Turn {
	if w[0].IsZero() && w[1].IsZero() {
		return turns
	}
	var out []callers.Turn
	for _, t := range turns {
		if !t.Wall.Before(w[0]) && t.Wall.Before(w[1]) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return turns
	}
	return out
}
