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
	// Cut is set by the controller when the step ended before its measured window did (the user
	// pressed q or s, Ctrl-C, or the generator ended it): the step is incomplete, not failed.
	Cut bool
}

// StepVerdict is the verdict on one step: ok, failed, or incomplete (cut short: OK false but not
// a failure). Reasons say, one line each, why it is not ok; Notes qualify the verdict without
// failing it (the step was cut, slips were tolerated, the caller-side check was not trusted).
type StepVerdict struct {
	OK             bool     `json:"ok"`
	Incomplete     bool     `json:"incomplete,omitempty"` // cut short: not judged as a whole, never FAIL
	Reasons        []string `json:"reasons,omitempty"`
	Notes          []string `json:"notes,omitempty"`
	GeneratorBound bool     `json:"generator_bound"` // the generator fell behind: figures not trusted
	// Turns counts the step's turns by outcome, for "Turns ok / failed / STT slips".
	Turns TurnTally `json:"turns"`
	// SlipsTolerated says the step had slips, within Thresholds.TolerateSlips, and counted them ok.
	SlipsTolerated bool `json:"slips_tolerated,omitempty"`
	// CallerUntrusted says the calibration did not trust the caller's ears: failures resting on
	// the caller's transcription alone (TurnVerdict.CallerOnly) did not count against the step.
	CallerUntrusted bool `json:"caller_check_untrusted,omitempty"`
}

// Failed reports whether the step failed: not ok and not merely cut short.
func (v StepVerdict) Failed() bool { return !v.OK && !v.Incomplete }

// Word names the verdict as reports print it: "ok", "FAIL" or "incomplete".
func (v StepVerdict) Word() string {
	switch {
	case v.OK:
		return "ok"
	case v.Incomplete:
		return "incomplete"
	}
	return "FAIL"
}

// Capacity is the largest N with every completed step up to it ok.
type Capacity struct {
	N     int    `json:"n"`
	Bound bool   `json:"generator_bound"` // the first failed step was generator_bound: capacity may be higher
	Note  string `json:"note"`
	// Incomplete says a step above N was cut short before any step failed: capacity is at least N.
	Incomplete bool `json:"incomplete,omitempty"`
}

// baseline is the first step's median speech_end_to_reply, the latency rule's anchor.
type baseline struct {
	median callers.Ms
	ok     bool
}

// Steps judges every step and finds the capacity, calibrating the caller's ears on the steps
// themselves (CalibrateSteps). Steps are taken in order of N (the first step is the smallest);
// verdicts come back in the order given. th must be valid.
func Steps(steps []StepInput, th Thresholds) ([]StepVerdict, Capacity) {
	return StepsCalibrated(steps, th, CalibrateSteps(steps))
}

// StepsCalibrated is Steps with the calibration given: when it is not trusted, every step says so
// and failures resting on the caller's transcription alone do not fail it.
func StepsCalibrated(steps []StepInput, th Thresholds, cal Calibration) ([]StepVerdict, Capacity) {
	order := make([]int, len(steps))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(steps[a].N, steps[b].N) })
	verdicts := make([]StepVerdict, len(steps))
	base := baselineOf(steps, order)
	for _, i := range order {
		verdicts[i] = step(steps[i], base, th, cal)
	}
	return verdicts, capacity(steps, verdicts, order)
}

// baselineOf takes the median of the first completed step, or of the first step when every step
// was cut.
func baselineOf(steps []StepInput, order []int) baseline {
	if len(order) == 0 {
		return baseline{}
	}
	pick := order[0]
	for _, i := range order {
		if !steps[i].Cut {
			pick = i
			break
		}
	}
	s := Summarize(Samples(MetricSpeechEndToReply, steps[pick].Turns, nil))
	return baseline{median: s.P50, ok: s.N > 0}
}

// step applies every rule to one step.
func step(s StepInput, base baseline, th Thresholds, cal Calibration) StepVerdict {
	verdicts := make([]TurnVerdict, len(s.Turns))
	v := StepVerdict{Incomplete: s.Cut, CallerUntrusted: !cal.Trusted}
	for i, t := range s.Turns {
		verdicts[i] = Turn(t)
		v.Turns.Add(verdicts[i])
	}
	g := GeneratorOf(s.Turns, s.GeneratorCPU, s.MachineSteal, th)
	v.GeneratorBound = g.Bound
	for _, w := range g.Why {
		v.Reasons = append(v.Reasons, "generator_bound: "+w+"; figures not trusted")
	}
	v.Reasons = append(v.Reasons, ruleAnswered(s)...)
	if under := ruleUnderruns(s, th); saturation(g.LatenessP99, s.GeneratorCPU, th) != "" && len(under) > 0 {
		// a caller short of CPU reads arrivals late, so the gaps it counts are its own
		v.Notes = append(v.Notes, "not judged, the generator being saturated: "+strings.Join(under, "; "))
	} else {
		v.Reasons = append(v.Reasons, under...)
	}
	v.Reasons = append(v.Reasons, ruleLatency(s, base, th)...)
	slips := ruleSlips(verdicts, v.Turns, th, cal)
	v.SlipsTolerated = slips.tolerated && v.Turns.Slips > 0
	v.Reasons = append(v.Reasons, slips.why...)
	v.Reasons = append(v.Reasons, ruleUnderstood(s, verdicts, v.Turns, slips.tolerated, th, cal)...)
	v.Notes = append(v.Notes, notes(s, cal, slips)...)
	v.OK = !s.Cut && len(v.Reasons) == 0
	return v
}

// notes qualify a verdict: cut short, caller-side check untrusted, slips tolerated.
func notes(s StepInput, cal Calibration, slips slipRule) []string {
	var out []string
	if s.Cut {
		out = append(out, "incomplete: the step was cut short (stopped by the user or the generator); "+
			"turns in flight are cancelled, and capacity counts only completed steps")
	}
	if !cal.Trusted {
		out = append(out, "caller-side check not trusted ("+cal.Describe()+", below "+FormatPct(MinCalibration)+
			"): failures resting on the caller's transcription alone are not counted; see --stt-url")
	}
	if slips.note != "" {
		out = append(out, slips.note)
	}
	return out
}

// ruleAnswered: every call connects and every call and turn is answered; turns and calls the run
// cancelled, or the generator could not judge, are not counted.
func ruleAnswered(s StepInput) []string {
	var why []string
	if len(s.Calls) == 0 {
		if s.Cut {
			return nil // cut before a call was measured: nothing to say
		}
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
		if s.Cut {
			return nil
		}
		return []string{"p95 speech_end_to_reply: no baseline (the first step has no samples)"}
	}
	p := Summarize(Samples(MetricSpeechEndToReply, s.Turns, nil))
	if p.N == 0 {
		if s.Cut {
			return nil // cut before a reply: nothing to judge
		}
		return []string{"p95 speech_end_to_reply: no samples"}
	}
	limit := base.median + callers.D(th.P95Slack)
	if p.P95 > limit {
		return []string{fmt.Sprintf("p95 speech_end_to_reply %s > %s (first step median %s + %s)",
			FormatMs(p.P95), FormatMs(limit), FormatMs(base.median), FormatMs(callers.D(th.P95Slack)))}
	}
	return nil
}

// slipRule is the slip rule's finding: failing lines, or a note when the slips were tolerated.
type slipRule struct {
	why       []string
	note      string
	tolerated bool
}

// ruleSlips: STT slips per 1,000 judged turns within Thresholds.TolerateSlips. With the ears not
// trusted, the caller's own slips are not counted (the understood rule passes them too).
func ruleSlips(verdicts []TurnVerdict, tally TurnTally, th Thresholds, cal Calibration) slipRule {
	n := 0
	for _, v := range verdicts {
		if v.Outcome == OutcomeSlip && (cal.Trusted || !v.CallerOnly()) {
			n++
		}
	}
	judged := tally.Judged()
	if n == 0 || judged == 0 {
		return slipRule{tolerated: true}
	}
	rate := 1000 * float64(n) / float64(judged)
	if rate <= th.TolerateSlips+1e-9 {
		return slipRule{tolerated: true, note: fmt.Sprintf("%d STT slips tolerated: %.2f per 1,000 turns <= %s (%d of %d judged turns)",
			n, rate, formatRate(th.TolerateSlips), n, judged)}
	}
	return slipRule{why: []string{fmt.Sprintf("STT slips %.2f per 1,000 turns > %s tolerated (%d of %d judged turns)",
		rate, formatRate(th.TolerateSlips), n, judged)}}
}

// ruleUnderstood: enough judged turns understood (unjudged and cancelled turns are not judged).
// Slips count as understood when tolerated; with the ears not trusted, so do failures resting on
// the caller's transcription alone.
func ruleUnderstood(s StepInput, verdicts []TurnVerdict, tally TurnTally, slipsOK bool, th Thresholds, cal Calibration) []string {
	judged := tally.Judged()
	switch {
	case len(s.Turns) == 0 && s.Cut:
		return nil
	case len(s.Turns) == 0:
		return []string{"no turns measured"}
	case judged == 0 && s.Cut:
		return nil
	case judged == 0:
		return []string{fmt.Sprintf("no turns judged (%d unjudged, %d cancelled)", tally.Unjudged, tally.Cancelled)}
	}
	ok := 0
	for _, v := range verdicts {
		if v.Understood || (slipsOK && v.Outcome == OutcomeSlip) || (!cal.Trusted && v.CallerOnly()) {
			ok++
		}
	}
	f := float64(ok) / float64(judged)
	if f >= th.MinUnderstood {
		return nil
	}
	aside := ""
	if n := tally.Unjudged + tally.Cancelled; n > 0 {
		aside = fmt.Sprintf("; %d unjudged and %d cancelled not counted", tally.Unjudged, tally.Cancelled)
	}
	return []string{fmt.Sprintf("turns understood %s (%d of %d%s) < %s",
		FormatPct(f), ok, judged, aside, FormatPct(th.MinUnderstood))}
}

// capacity walks steps in order of N and stops at the first completed step that is not ok; steps
// cut short are passed over.
func capacity(steps []StepInput, verdicts []StepVerdict, order []int) Capacity {
	if len(order) == 0 {
		return Capacity{Note: "no steps"}
	}
	var c Capacity
	cut := 0 // the largest N cut short above the capacity
	for _, i := range order {
		v := verdicts[i]
		switch {
		case v.Incomplete:
			cut = steps[i].N
			continue
		case v.OK:
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
	if cut > c.N {
		c.Incomplete = true
		c.Note = fmt.Sprintf("every completed step was ok: capacity is at least %d (step N=%d was cut short)", c.N, cut)
		return c
	}
	c.Note = fmt.Sprintf("every step was ok: capacity is at least %d, the largest step run", c.N)
	return c
}
