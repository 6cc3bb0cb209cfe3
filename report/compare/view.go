package compare

import (
	"fmt"
	"math"
	"slices"

	"github.com/montanaflynn/stats"

	"github.com/callfleet/callfleet/checks"
	"github.com/callfleet/callfleet/report"
)

// view is one scope of one run: its steps' aggregates and records, pooled.
type view struct {
	run   *report.Run
	steps []report.Step
	data  []report.StepData
	whole bool // overall: capacity applies
}

// overall is every step of a run; byN its step of n calls (false when it has none).
func overall(run *report.Run, data []report.StepData) view {
	return view{run: run, steps: run.Report.Steps, data: data, whole: true}
}

func byN(run *report.Run, data []report.StepData, n int) (view, bool) {
	for i, s := range run.Report.Steps {
		if s.N == n {
			return view{run: run, steps: []report.Step{s}, data: []report.StepData{data[i]}}, true
		}
	}
	return view{}, false
}

// samples pools metric m over the view's records.
func (v view) samples(m checks.Metric) []float64 {
	var xs []float64
	for _, d := range v.data {
		xs = append(xs, checks.Samples(m, d.Turns, d.Calls)...)
	}
	return xs
}

// value is q's value in the view; false when the view has nothing to say (no samples, no agent
// metrics, a capacity of part of a run).
func (v view) value(q Quantity) (float64, bool) {
	switch q.Kind {
	case KindLatency:
		return percentile(v.samples(q.Metric), q.Percentile)
	case KindUnderstood:
		var u, n int
		for _, s := range v.steps {
			u, n = u+s.Turns.Understood, n+s.Turns.Total
		}
		return ratio(float64(u), float64(n))
	case KindClean:
		var c, n int
		for _, s := range v.steps {
			c, n = c+s.Clean, n+s.Calls
		}
		return ratio(float64(c), float64(n))
	case KindUnderruns:
		var p checks.Playout
		for _, s := range v.steps {
			p.Underruns += s.Playout.Underruns
			p.AgentAudio += s.Playout.AgentAudio
		}
		return p.PerMin()
	case KindCapacity:
		return float64(v.run.Report.Capacity.N), v.whole
	case KindAgentCPU:
		return v.perCall(func(s report.Step) *float64 { return s.AgentCPUMilli })
	case KindAgentRSS:
		return v.perCall(func(s report.Step) *float64 { return s.AgentRSSMiBPerCall })
	}
	return 0, false
}

// perCall is the N-weighted mean of a per-call figure over the steps that have it.
func (v view) perCall(of func(report.Step) *float64) (float64, bool) {
	var sum, n float64
	for _, s := range v.steps {
		if x := of(s); x != nil && s.N > 0 {
			sum += *x * float64(s.N)
			n += float64(s.N)
		}
	}
	return ratio(sum, n)
}

func ratio(a, b float64) (float64, bool) {
	if b <= 0 {
		return 0, false
	}
	return a / b, true
}

// percentile is p of xs as package checks computes it (type 7, rounded to the microsecond), so a
// rule's p95 is the report's p95.
func percentile(xs []float64, p float64) (float64, bool) {
	if len(xs) == 0 {
		return 0, false
	}
	v, err := stats.Percentile(xs, p)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return math.Round(v*1000) / 1000, true
}

// commonNs are the step sizes both runs have, in order.
func commonNs(a, b *report.Report) []int {
	var out []int
	for _, s := range a.Steps {
		for _, t := range b.Steps {
			if s.N == t.N && !slices.Contains(out, s.N) {
				out = append(out, s.N)
			}
		}
	}
	slices.Sort(out)
	return out
}

// allNs are the step sizes either run has, in order.
func allNs(a, b *report.Report) []int {
	var out []int
	for _, r := range []*report.Report{a, b} {
		for _, s := range r.Steps {
			if !slices.Contains(out, s.N) {
				out = append(out, s.N)
			}
		}
	}
	slices.Sort(out)
	return out
}

func scopeLabel(n int) string { return fmt.Sprintf("N=%d", n) }
