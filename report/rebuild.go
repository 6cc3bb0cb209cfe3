package report

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/callfleet/callfleet/callers"
)

// maxSteps bounds the step lines a rebuild takes: a plan has tens; a corrupt file's index of
// millions must not size an allocation.
const maxSteps = 10000

// Rebuild makes the report of a run from its turns file alone, as the run would have written it:
// the config and machine of its run line, a step per step line (its window and N), the records
// each step holds (the turns inside its window, or all of them for a step cut short) and the
// figures of its end and agent lines (generator CPU and steal, unknown for a step that never
// ended; agent costs, none for a step not scraped). A step whose end line says it was stopped, or
// that has none, was cut short. A file without a run line is ErrNoRunLine. A run that never wrote
// its end line is marked StopUnfinished; skipped lines are counted in SkippedLines.
func Rebuild(recs *Records) (*Report, error) {
	if recs == nil || recs.Run == nil {
		return nil, ErrNoRunLine
	}
	cfg := recs.Run.Config
	if errs := cfg.Thresholds.Validate(); len(errs) > 0 {
		return nil, fmt.Errorf("%w: run line: thresholds: %w", ErrCorrupt, errors.Join(errs...))
	}
	steps, err := rebuildSteps(recs)
	if err != nil {
		return nil, err
	}
	r := Build(cfg, steps, cfg.Thresholds)
	r.Machine = recs.Run.Machine
	if r.Started.IsZero() { // as Execute: the windows' span, else when the run began
		r.Started = recs.Run.Started
	}
	r.SkippedLines = len(recs.Skipped)
	if e := recs.RunEnd; e != nil {
		r.Ended, r.Stopped = e.Ended, e.Stopped
	} else {
		r.Ended = lastRecord(recs, r.Ended)
		if r.Ended.Before(r.Started) { // killed before any record: it ran no time the file shows
			r.Ended = r.Started
		}
		r.Stopped = &Stop{Reason: StopUnfinished}
	}
	return r, nil
}

// rebuildSteps is each begun step's data, in schedule order; a step's first start line counts.
func rebuildSteps(recs *Records) ([]StepData, error) {
	starts := map[int]StepLine{}
	for _, s := range recs.Steps {
		if s.Step < 0 || s.Step >= maxSteps || s.N < 0 {
			return nil, fmt.Errorf("%w: step line: step %d of %d calls", ErrCorrupt, s.Step, s.N)
		}
		if _, dup := starts[s.Step]; !dup {
			starts[s.Step] = s
		}
	}
	ends := map[int]StepEndLine{}
	for _, e := range recs.StepEnds {
		ends[e.Step] = e
	}
	agent := map[int]AgentLine{}
	for _, a := range recs.Agent {
		agent[a.Step] = a
	}
	turns := map[int][]callers.Turn{}
	for _, t := range recs.Turns {
		turns[t.Step] = append(turns[t.Step], t)
	}
	calls := map[int][]callers.CallResult{}
	for _, c := range recs.Calls {
		calls[c.Step] = append(calls[c.Step], c)
	}
	order := make([]StepLine, 0, len(starts))
	for _, s := range starts {
		order = append(order, s)
	}
	slices.SortFunc(order, func(a, b StepLine) int { return cmp.Compare(a.Step, b.Step) })
	out := make([]StepData, len(order))
	for i, s := range order {
		d := StepData{N: s.N, Window: s.Window, MachineSteal: -1, Forecast: s.Forecast,
			Turns: inWindow(turns[s.Step], s.Window), Calls: calls[s.Step]}
		e, ended := ends[s.Step]
		if ended {
			d.GeneratorCPU, d.MachineSteal = e.GeneratorCPU, e.MachineSteal
		}
		d.Cut = !ended || e.Stopped // no end line: the run died during the step
		if a, ok := agent[s.Step]; ok {
			d.AgentCPUMilli, d.AgentRSSMiBPerCall = &a.AgentCPUMilli, &a.AgentRSSMiBPerCall
		}
		out[i] = d
	}
	return out, nil
}

// lastRecord is the latest wall-clock time the records show (a call's end, a turn's start),
// or end when it is later: a killed run's end as near as the file tells.
func lastRecord(recs *Records, end time.Time) time.Time {
	for _, c := range recs.Calls {
		if t := c.Wall.Add(c.Duration.Duration()); t.After(end) {
			end = t
		}
	}
	for _, t := range recs.Turns {
		if t.Wall.After(end) {
			end = t.Wall
		}
	}
	return end
}
