package checks

import (
	"fmt"
	"slices"

	"github.com/callfleet/callfleet/callers"
)

// Playout sums a step's playout model: underruns over agent audio, and the longest gap heard.
type Playout struct {
	Underruns  int        `json:"underruns"`
	AgentAudio callers.Ms `json:"agent_audio"`
	LongestGap callers.Ms `json:"longest_gap"`
}

// PlayoutOf sums the playout figures of turns, leaving out turns whose caller stalled.
func PlayoutOf(turns []callers.Turn) Playout {
	var p Playout
	for _, t := range turns {
		if t.LatenessMax.Duration() > CallerStall {
			continue // a caller that stalled past the playout tolerance reads its own stall as a gap
		}
		p.Underruns += t.Underruns
		p.AgentAudio += t.AgentAudio
		p.LongestGap = max(p.LongestGap, t.LongestGap)
	}
	return p
}

// PerMin is underruns per minute of agent audio; false when there was no agent audio.
func (p Playout) PerMin() (float64, bool) {
	if p.AgentAudio <= 0 {
		return 0, false
	}
	return float64(p.Underruns) / (float64(p.AgentAudio) / 60000), true
}

// Generator is the load generator's health over a step. Lateness p50/p99 are over every 20 ms
// send of the step, read from the turns' histograms as the upper edge of their bucket (records
// without histograms fall back to the p50/p99 of turns' own p99s); max is the worst send.
type Generator struct {
	LatenessP50 callers.Ms `json:"lateness_p50"`
	LatenessP99 callers.Ms `json:"lateness_p99"`
	LatenessMax callers.Ms `json:"lateness_max"`
	Sends       int64      `json:"sends,omitempty"` // sends the p50/p99 are over (0: over turns' p99s)
	CPU         float64    `json:"cpu"`             // fraction of the generator's cores in use, from the controller
	// Steal is the share of the machine's CPU time its hypervisor took during the step (vmstat's
	// "st"), nil where unknown: a VM paused by its host makes every send late at once.
	Steal *float64 `json:"steal,omitempty"`
	// The caller's ears: each decoded reply's wait for a decoder and its decode time, and the
	// turns whose caller-side check the generator could not complete (cancelled turns aside).
	DecodeWait Summary  `json:"decode_wait"`
	DecodeTime Summary  `json:"decode_time"`
	Unjudged   int      `json:"unjudged"`
	Bound      bool     `json:"generator_bound"`
	Why        []string `json:"why,omitempty"`
}

// StealNote is the machine steal from which a generator_bound step says the host may be to blame.
const StealNote = 0.05

// GeneratorOf judges the generator of a step from its turns, its CPU fraction and the machine's
// steal (< 0 unknown).
func GeneratorOf(turns []callers.Turn, cpu, steal float64, th Thresholds) Generator {
	g := Generator{CPU: cpu}
	if steal >= 0 {
		g.Steal = &steal
	}
	g.LatenessP50, g.LatenessP99, g.LatenessMax, g.Sends = sendLateness(turns)
	if limit := callers.D(th.MaxLatenessP99); g.LatenessP99 > limit {
		g.Why = append(g.Why, "send lateness p99 "+FormatMs(g.LatenessP99)+" > "+FormatMs(limit))
	}
	if cpu >= th.MaxGeneratorCPU {
		g.Why = append(g.Why, "generator CPU "+FormatPct(cpu)+" >= "+FormatPct(th.MaxGeneratorCPU))
	}
	g.ears(turns, th)
	g.Bound = len(g.Why) > 0
	if g.Bound && steal >= StealNote { // said on the first reason, lateness when it is one
		g.Why[0] += " (the hypervisor took " + FormatPct(steal) + " of this machine's CPU: may be the host's doing)"
	}
	return g
}

// ears judges the caller's transcription as part of the generator: a reply it could not judge,
// or a decode backlog past the bound, means its figures are the generator's, not the agent's.
func (g *Generator) ears(turns []callers.Turn, th Thresholds) {
	var waits, times []float64
	for _, t := range turns {
		if t.DecodeWait > 0 || t.DecodeTime > 0 { // a decode was queued: 0 and 0 is no decode recorded
			waits = append(waits, float64(t.DecodeWait))
			times = append(times, float64(t.DecodeTime))
		}
		if o := Turn(t).Outcome; o == OutcomeUnjudged || callerUnjudged(t) && o != OutcomeCancelled { // a cut decode is the cut's doing
			g.Unjudged++
		}
	}
	g.DecodeWait, g.DecodeTime = Summarize(waits), Summarize(times)
	if g.Unjudged > 0 {
		g.Why = append(g.Why, fmt.Sprintf("ears fell behind: %d turns unjudged", g.Unjudged))
	}
	if limit := callers.D(th.MaxDecodeWaitP95); limit > 0 && g.DecodeWait.P95 > limit {
		g.Why = append(g.Why, "ears fell behind: decode wait p95 "+FormatMs(g.DecodeWait.P95)+" > "+FormatMs(limit))
	}
}

// StealOrUnknown is Steal as a number, -1 where unknown.
func (g Generator) StealOrUnknown() float64 {
	if g.Steal == nil {
		return -1
	}
	return *g.Steal
}

// answers counts connected calls that got no reply audio at all, and turns that got none. Turns
// cancelled or unjudged are not counted, nor are calls the run cancelled or that hold such a
// turn: the run or the generator, not the agent, cut them short.
func answers(turns []callers.Turn, calls []callers.CallResult) (silentCalls, silentTurns int) {
	excused := map[int]bool{}
	for _, t := range turns {
		o := Turn(t).Outcome
		switch {
		case t.Marks.ReplyStart != nil, o == OutcomeCancelled, o == OutcomeUnjudged,
			errorReason(t) == ReasonCancelled, callerUnjudged(t): // the record's word, whatever else the turn shows
			excused[t.Call] = true
		default:
			silentTurns++
		}
	}
	for _, c := range calls {
		if c.Connected && !excused[c.Call] && c.EndedBy != callers.EndedByCancelled {
			silentCalls++
		}
	}
	return silentCalls, silentTurns
}

// Understood counts the understood turns.
func Understood(turns []callers.Turn) int {
	n := 0
	for _, t := range turns {
		if Turn(t).Understood {
			n++
		}
	}
	return n
}

// TurnTally counts a step's turns by outcome: Understood + Failed + Slips + Unjudged + Cancelled
// = Total.
type TurnTally struct {
	Total      int `json:"total"`
	Understood int `json:"understood"`
	Failed     int `json:"failed"`
	Slips      int `json:"slips"`
	Unjudged   int `json:"unjudged"`
	Cancelled  int `json:"cancelled"`
}

// Tally counts turns by outcome.
func Tally(turns []callers.Turn) TurnTally {
	var x TurnTally
	for _, t := range turns {
		x.Add(Turn(t))
	}
	return x
}

// Add counts one turn's verdict.
func (x *TurnTally) Add(v TurnVerdict) {
	x.Total++
	switch v.Outcome {
	case OutcomeUnderstood:
		x.Understood++
	case OutcomeSlip:
		x.Slips++
	case OutcomeUnjudged:
		x.Unjudged++
	case OutcomeCancelled:
		x.Cancelled++
	default:
		x.Failed++
	}
}

// Judged is the turns the understood rule counts: neither unjudged nor cancelled.
func (x TurnTally) Judged() int { return x.Understood + x.Failed + x.Slips }

// sendLateness is the p50, p99 and worst send lateness over every 20 ms send of turns, read from
// their histograms, and the sends counted (0 for records without histograms: then p50 and p99
// are over the turns' own p99s, which overstates the p99).
func sendLateness(turns []callers.Turn) (p50, p99, worst callers.Ms, sends int64) {
	var h callers.LatenessHist
	for _, t := range turns {
		worst = max(worst, t.LatenessMax)
		h = h.Add(t.LatenessHist)
	}
	if p50, ok := h.Quantile(0.5, worst); ok {
		p99, _ = h.Quantile(0.99, worst)
		return p50, p99, worst, h.Count()
	}
	p99s := make([]float64, 0, len(turns))
	for _, t := range turns {
		p99s = append(p99s, float64(t.LatenessP99))
	}
	s := Summarize(p99s)
	return s.P50, s.P99, worst, 0
}

// saturation says how a step's generator failed to keep time (send lateness p99 over the limit,
// or its CPU at the bound), "" when it kept up: then what its callers measured is their own doing.
func saturation(latenessP99 callers.Ms, cpu float64, th Thresholds) string {
	switch {
	case latenessP99 > callers.D(th.MaxLatenessP99):
		return "send lateness p99 " + FormatMs(latenessP99)
	case cpu >= th.MaxGeneratorCPU:
		return "CPU " + FormatPct(cpu)
	}
	return ""
}

// UnjudgedWhenBound returns a step's turns with those failed on the caller's side alone (an
// underrun, a reply heard wrong while every other witness is right) marked unjudged when the
// generator sent late or ran out of CPU during the step: a saturated caller's playout model and
// ears measure the generator, not the agent. The input is not changed.
func UnjudgedWhenBound(turns []callers.Turn, cpu float64, th Thresholds) []callers.Turn {
	_, p99, _, _ := sendLateness(turns)
	why := saturation(p99, cpu, th)
	if why == "" {
		return turns
	}
	out := slices.Clone(turns)
	for i := range out {
		if out[i].Unjudged == "" && Turn(out[i]).CallerOnly() {
			out[i].Unjudged = "generator: " + why
		}
	}
	return out
}
