package tui

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/checks"
	"github.com/callfleet/callfleet/scenarios"
)

// figuresHeight is the live figures box's height: six lines of figures, the sparkline's label and
// line, and the borders.
const figuresHeight = 10

// figures are the current step's live numbers and a sparkline of turn latency over the step.
type figures struct {
	c    *common
	l    *live
	w, h int
}

func (s *figures) SetSize(w, h int) { s.w, s.h = w, h }

func (s *figures) View() string {
	if s.l.probe != nil {
		return s.probeView()
	}
	title := "current step"
	switch {
	case s.l.inStep:
		title = fmt.Sprintf("step %d · %d calls · live", s.l.step.Index+1, s.l.step.N)
	case !s.l.started.IsZero():
		title = fmt.Sprintf("step %d · %d calls · finished", s.l.step.Index+1, s.l.step.N)
	}
	turns := s.l.measured()
	lines := []string{
		s.phase(),
		s.verdicts(turns),
		s.latency(checks.MetricSpeechEndToReply, turns),
		s.latency(checks.MetricReplyStart, turns),
		s.underruns(turns),
		s.lateness(turns),
	}
	lines = append(lines, s.spark(s.w-4, s.h-3-len(lines))...)
	return box(s.c.Styles, title, s.w, s.h, lines)
}

func (s *figures) row(label, value string) string {
	return s.c.Styles.Label.Render(fmt.Sprintf("%-18s", label)) + value
}

// phase says which part of the step is running: the ramp, the warm-up or the measured window.
func (s *figures) phase() string {
	if !s.l.inStep {
		return s.row("phase", s.c.Styles.Dim.Render("between steps"))
	}
	at, m := s.c.Now().Sub(s.l.stepStart), s.l.step.Measure
	switch {
	case at < s.l.plan.Ramp:
		return s.row("phase", fmt.Sprintf("ramping %s of %s", clockText(at), clockText(s.l.plan.Ramp)))
	case at < m[0]:
		return s.row("phase", fmt.Sprintf("warming up %s of %s", clockText(at-s.l.plan.Ramp), clockText(s.l.plan.Warmup)))
	case at < m[1]:
		return s.row("phase", fmt.Sprintf("measuring %s of %s", clockText(at-m[0]), clockText(m[1]-m[0])))
	}
	return s.row("phase", "finishing the last turns, then hanging up")
}

// verdicts counts the step's turns: failed ones by reason in priority order, then slips, unjudged
// and cancelled turns, dimmed: counted, but not the agent's failures.
func (s *figures) verdicts(turns []callers.Turn) string {
	st := s.c.Styles
	var x checks.TurnTally
	by := map[checks.Reason]int{}
	for _, t := range turns {
		v := checks.Turn(t)
		x.Add(v)
		by[v.Reason]++
	}
	out := st.OK.Render(fmt.Sprintf("ok %d", x.Understood)) + "  "
	if x.Failed == 0 {
		out += st.Dim.Render("failed 0")
	} else {
		out += st.Fail.Render(fmt.Sprintf("failed %d", x.Failed)) + st.Dim.Render(": ") + reasonList(by, true)
	}
	if others := reasonList(by, false); others != "" {
		out += st.Dim.Render("  · " + others)
	}
	return s.row("turns", out)
}

// reasonList is "reason n, ..." in priority order over the failures, or over the other reasons.
func reasonList(by map[checks.Reason]int, failures bool) string {
	var parts []string
	for _, r := range checks.Reasons() {
		if n := by[r]; n > 0 && r.Failed() == failures {
			parts = append(parts, fmt.Sprintf("%s %d", r, n))
		}
	}
	return strings.Join(parts, ", ")
}

func (s *figures) latency(m checks.Metric, turns []callers.Turn) string {
	return s.latencyAs(strings.ReplaceAll(m.String(), "_to_", "→"), m, turns)
}

func (s *figures) latencyAs(label string, m checks.Metric, turns []callers.Turn) string {
	sum := checks.Summarize(checks.Samples(m, turns, nil))
	if sum.N == 0 {
		return s.row(label, s.c.Styles.Dim.Render("no samples yet"))
	}
	v := s.c.Styles.Value
	return s.row(label, fmt.Sprintf("p50 %s  p95 %s  %s", v.Render(checks.FormatMs(sum.P50)),
		v.Render(checks.FormatMs(sum.P95)), s.c.Styles.Dim.Render(fmt.Sprintf("(n %d)", sum.N))))
}

func (s *figures) underruns(turns []callers.Turn) string {
	p := checks.PlayoutOf(turns)
	rate, ok := p.PerMin()
	if !ok {
		return s.row("underruns", s.c.Styles.Dim.Render("no agent audio yet"))
	}
	st := s.c.Styles.OK
	if rate > s.l.th.UnderrunsPerMin {
		st = s.c.Styles.Fail
	}
	heard := checks.FormatMs(p.AgentAudio)
	if p.AgentAudio >= 60000 {
		heard = fmt.Sprintf("%.1f min", float64(p.AgentAudio)/60000)
	}
	return s.row("underruns", st.Render(fmt.Sprintf("%.1f/min", rate))+
		s.c.Styles.Dim.Render(fmt.Sprintf(" (%d in %s of agent audio)", p.Underruns, heard)))
}

// lateness is the generator's own health: if it falls behind, the step's figures are not trusted.
func (s *figures) lateness(turns []callers.Turn) string {
	if len(turns) == 0 {
		return s.row("send lateness", s.c.Styles.Dim.Render("no turns yet"))
	}
	g := checks.GeneratorOf(turns, 0, -1, s.l.th)
	text := fmt.Sprintf("p50 %s  p99 %s  max %s", checks.FormatMs(g.LatenessP50), checks.FormatMs(g.LatenessP99),
		checks.FormatMs(g.LatenessMax))
	if g.Bound {
		return s.row("send lateness", s.c.Styles.Warn.Render(text+"  generator_bound"))
	}
	return s.row("send lateness", text)
}

// maxChartRows bounds the latency chart's height.
const maxChartRows = 6

// spark is a label and a chart of speech_end_to_reply (p95 per bucket) across the whole step, so
// it fills left to right as the step runs; rows is the room it has (one: a sparkline).
func (s *figures) spark(width, rows int) []string {
	if width < 8 || !s.l.inStep && len(s.l.turns) == 0 {
		return []string{s.c.Styles.Dim.Render("latency over the step: no turns yet")}
	}
	step := max(time.Second, s.l.stepLen())
	perCol := (step + time.Duration(width) - 1) / time.Duration(width) // the whole step fits the width
	bucket := max(time.Second, (perCol + time.Second - 1).Truncate(time.Second))
	n := int((step + bucket - 1) / bucket)
	samples := make([][]float64, n)
	for _, t := range s.l.turns {
		v, ok := checks.MetricSpeechEndToReply.OfTurn(t.turn)
		if i := int(t.at / bucket); ok && i >= 0 {
			i = min(i, n-1) // a late reply after the step's planned end lands in the last bucket
			samples[i] = append(samples[i], float64(v))
		}
	}
	vals, top := make([]float64, n), 0.0
	for i, xs := range samples {
		vals[i] = math.NaN()
		if len(xs) > 0 {
			vals[i] = float64(checks.Summarize(xs).P95)
			top = max(top, vals[i])
		}
	}
	label := fmt.Sprintf("speech_end→reply p95 per %s over the step, top %s", bucket, checks.FormatMs(callers.Ms(top)))
	lines := []string{s.c.Styles.Label.Render(label)}
	for _, l := range chart(vals, top, min(max(1, rows), maxChartRows), max(1, width/n)) {
		lines = append(lines, s.c.Styles.Value.Render(l))
	}
	return lines
}

// probeView is the figures of the pause being probed (of every call, for barge-in and idle):
// how far its calls are, how many the agent split, the wait to its transcript and reply, and the
// generator's health.
func (s *figures) probeView() string {
	p, st := s.l.probe, s.c.Styles
	title := "current step"
	if !s.l.started.IsZero() {
		title = p.probeTitle(s.l.inStep)
	}
	first, n := 0, len(s.l.lanes)
	if p.cfg.Mode == ProbePause {
		first, n = p.pause*p.cfg.Conversations, p.cfg.Conversations
	}
	done := 0
	for i := first; i < first+n && i < len(s.l.lanes); i++ {
		if ln := s.l.lanes[i]; ln.state == callers.StateDone || ln.state == callers.StateFailed {
			done++
		}
	}
	var all, step, whole []callers.Turn
	for _, t := range s.l.turns {
		all = append(all, t.turn)
		if p.cfg.Mode != ProbePause || p.pauseOf(t.turn) == p.pause {
			step = append(step, t.turn)
			if heard, _ := scenarios.TurnsHeard(t.turn); heard <= 1 {
				whole = append(whole, t.turn)
			}
		}
	}
	lines := []string{s.row("calls", fmt.Sprintf("%d of %d done", done, n))}
	if c := p.cell(p.setting, p.pause); p.cfg.Mode == ProbePause && c != nil {
		text := fmt.Sprintf("%d of %d decided", c.split, c.decided)
		if u := len(step) - c.decided; u > 0 {
			text += st.Dim.Render(fmt.Sprintf("  (%d with neither a final nor a reply)", u))
		}
		lines = append(lines, s.row("split", text))
	}
	lines = append(lines, s.verdicts(whole), s.latencyAs("end→transcript", checks.MetricSpeechEndToTranscript, step),
		s.latency(checks.MetricSpeechEndToReply, step), s.lateness(all))
	return box(st, title, s.w, s.h, lines)
}
