package checks

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/callfleet/callfleet/callers"
)

// StepInput is what one step of a ramp measured: its turns and calls (those the controller counts,
// inside the measured window) and the generator's CPU as a fraction of its cores.
type StepInput struct {
	N            int // concurrent calls
	Turns        []callers.Turn
	Calls        []callers.CallResult
	GeneratorCPU float64
	MachineSteal float64 // share of the machine's CPU the hypervisor took during the step; < 0 unknown
}

// StepVerdict is the verdict on one step; Reasons say, one line each, why it is not ok.
type StepVerdict struct {
	OK             bool     `json:"ok"`
	Reasons        []string `json:"reasons,omitempty"`
	GeneratorBound bool     `json:"generator_bound"` // the generator fell behind: figures not trusted
}

// Capacity is the largest N with every step up to it ok.
type Capacity struct {
	N     int    `json:"n"`
	Bound bool   `json:"generator_bound"` // the first failed step was generator_bound: capacity may be higher
	Note  string `json:"note"`
}

// baseline is the first step's median speech_end_to_reply, the latency rule's anchor.
type baseline struct {
	median callers.Ms
	ok     bool
}

// Steps judges every step and finds the capacity. Steps are taken in order of N (the first step
// is the smallest); verdicts come back in the order given. th must be valid.
func Steps(steps []StepInput, th Thresholds) ([]StepVerdict, Capacity) {
	order := make([]int, len(steps))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(steps[a].N, steps[b].N) })
	verdicts := make([]StepVerdict, len(steps))
	var base baseline
	for k, i := range order {
		if k == 0 {
			s := Summarize(Samples(MetricSpeechEndToReply, steps[i].Turns, nil))
			base = baseline{median: s.P50, ok: s.N > 0}
		}
		verdicts[i] = step(steps[i], base, th)
	}
	return verdicts, capacity(steps, verdicts, order)
}

// step applies every rule to one step.
func step(s StepInput, base baseline, th Thresholds) StepVerdict {
	g := GeneratorOf(s.Turns, s.GeneratorCPU, s.MachineSteal, th)
	var why []string
	for _, w := range g.Why {
		why = append(why, "generator_bound: "+w+"; figures not trusted")
	}
	why = append(why, ruleAnswered(s)...)
	why = append(why, ruleUnderruns(s, th)...)
	why = append(why, ruleLatency(s, base, th)...)
	why = append(why, ruleUnderstood(s, th)...)
	return StepVerdict{OK: len(why) == 0, Reasons: why, GeneratorBound: g.Bound}
}

// ruleAnswered: every call connects and every call and turn is answered.
func ruleAnswered(s StepInput) []string {
	var why []string
	if len(s.Calls) == 0 {
		return []string{"no calls measured"}
	}
	down := 0
	for _, c := range s.Calls {
		if !c.Connected {
			down++
		}
	}
	if down > 0 {
		why = append(why, fmt.Sprintf("%d of %d calls did not connect", down, len(s.Calls)))
	}
	silentCalls, silentTurns := answers(s.Turns, s.Calls)
	if silentCalls > 0 {
		why = append(why, fmt.Sprintf("%d of %d calls got no reply audio", silentCalls, len(s.Calls)))
	}
	if silentTurns > 0 {
		why = append(why, fmt.Sprintf("%d of %d turns got no reply audio", silentTurns, len(s.Turns)))
	}
	return why
}

// ruleUnderruns: underruns per minute of agent audio within the threshold.
func ruleUnderruns(s StepInput, th Thresholds) []string {
	p := PlayoutOf(s.Turns)
	rate, ok := p.PerMin()
	switch {
	case !ok && p.Underruns > 0:
		return []string{fmt.Sprintf("%d underruns with no agent audio", p.Underruns)}
	case ok && rate > th.UnderrunsPerMin:
		return []string{fmt.Sprintf("underruns %.1f/min > %s/min of agent audio (%d in %.1f min)",
			rate, formatRate(th.UnderrunsPerMin), p.Underruns, float64(p.AgentAudio)/60000)}
	}
	return nil
}

// ruleLatency: p95 speech_end_to_reply within the slack of the first step's median.
func ruleLatency(s StepInput, base baseline, th Thresholds) []string {
	if !base.ok {
		return []string{"p95 speech_end_to_reply: no baseline (the first step has no samples)"}
	}
	p := Summarize(Samples(MetricSpeechEndToReply, s.Turns, nil))
	if p.N == 0 {
		return []string{"p95 speech_end_to_reply: no samples"}
	}
	limit := base.median + callers.D(th.P95Slack)
	if p.P95 > limit {
		return []string{fmt.Sprintf("p95 speech_end_to_reply %s > %s (first step median %s + %s)",
			FormatMs(p.P95), FormatMs(limit), FormatMs(base.median), FormatMs(callers.D(th.P95Slack)))}
	}
	return nil
}

// ruleUnderstood: enough turns understood.
func ruleUnderstood(s StepInput, th Thresholds) []string {
	if len(s.Turns) == 0 {
		return []string{"no turns measured"}
	}
	u := Understood(s.Turns)
	f := float64(u) / float64(len(s.Turns))
	if f < th.MinUnderstood {
		return []string{fmt.Sprintf("turns understood %s (%d of %d) < %s",
			FormatPct(f), u, len(s.Turns), FormatPct(th.MinUnderstood))}
	}
	return nil
}

// capacity walks steps in order of N and stops at the first that is not ok.
func capacity(steps []StepInput, verdicts []StepVerdict, order []int) Capacity {
	if len(order) == 0 {
		return Capacity{Note: "no steps"}
	}
	var c Capacity
	for _, i := range order {
		v := verdicts[i]
		if v.OK {
			c.N = steps[i].N
			continue
		}
		c.Bound = v.GeneratorBound
		c.Note = fmt.Sprintf("step N=%d failed: %s", steps[i].N, strings.Join(v.Reasons, "; "))
		if c.Bound {
			c.Note = fmt.Sprintf("step N=%d was generator_bound (the load generator fell behind), so "+
				"capacity may be higher: rerun with more generator", steps[i].N)
		}
		return c
	}
	c.Note = fmt.Sprintf("every step was ok: capacity is at least %d, the largest step run", c.N)
	return c
}
