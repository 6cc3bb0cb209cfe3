package tui

import (
	"fmt"
	"strings"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/checks"
)

// stepsTable is every step of the plan as a row: finished ones with their verdicts, the running
// one live, the rest pending; and the capacity so far under them.
type stepsTable struct {
	c     *common
	l     *live
	w     int
	shown []bool // by column, set by SetSize
}

// stepCols are the table's columns; the verdict takes what is left. A narrow terminal drops the
// columns with a drop rank first, lowest rank first.
var stepCols = []struct {
	head        string
	width, drop int
}{{"step", 5, 0}, {"N", 5, 0}, {"calls", 7, 3}, {"turns ok", 11, 0}, {"speech_end→reply", 18, 0},
	{"reply_start", 18, 1}, {"underruns", 10, 4}, {"lateness p99", 13, 2}, {"verdict", 0, 0}}

// verdictMin is the least room the verdict column keeps before columns are dropped.
const verdictMin = 28

func (s *stepsTable) SetSize(w int) {
	s.w = w
	s.shown = make([]bool, len(stepCols))
	total := verdictMin
	for i, c := range stepCols {
		s.shown[i] = true
		total += c.width
	}
	for rank := 1; total > w-4 && rank <= 4; rank++ {
		for i, c := range stepCols {
			if c.drop == rank {
				s.shown[i] = false
				total -= c.width
			}
		}
	}
}

// Height is the box's: borders, head, a row per step and the capacity line.
func (s *stepsTable) Height() int { return len(s.l.plan.Steps) + 4 }

func (s *stepsTable) View() string {
	st := s.c.Styles
	head := make([]string, len(stepCols))
	for i, c := range stepCols {
		head[i] = c.head
	}
	lines := []string{st.Label.Render(s.cells(head))}
	for i, n := range s.l.plan.Steps {
		lines = append(lines, s.row(i, n))
	}
	return box(st, "steps", s.w, 0, append(lines, s.capacity()))
}

// cells lays out one row; values are plain text, styled after padding so widths stay right.
func (s *stepsTable) cells(vals []string) string {
	var b strings.Builder
	for i, v := range vals {
		if i < len(s.shown) && !s.shown[i] {
			continue
		}
		if w := stepCols[i].width; w > 0 {
			b.WriteString(fit(v, w-1) + " ")
		} else {
			b.WriteString(v)
		}
	}
	return b.String()
}

func (s *stepsTable) row(i, n int) string {
	st := s.c.Styles
	base := []string{fmt.Sprint(i + 1), fmt.Sprint(n)}
	switch {
	case i < len(s.l.finished):
		f, v := s.l.finished[i], s.l.verdicts[i]
		return s.cells(append(base, s.figures(f.input.Turns, f.input.Calls)...)) + s.verdict(v)
	case i == len(s.l.finished) && s.l.inStep:
		return s.cells(append(base, s.figures(s.l.measured(), nil)...)) + st.Warn.Render("running")
	}
	return st.Dim.Render(s.cells(append(base, "", "", "", "", "", "")) + "pending")
}

// figures are a row's numbers, the report's own.
func (s *stepsTable) figures(turns []callers.Turn, calls []callers.CallResult) []string {
	callsText := "-"
	if calls != nil {
		clean := 0
		for _, c := range calls {
			if checks.Call(c, byCall(turns, c.Call)).Clean {
				clean++
			}
		}
		callsText = fmt.Sprintf("%d/%d", clean, len(calls))
	}
	under := "-"
	if r, ok := checks.PlayoutOf(turns).PerMin(); ok {
		under = fmt.Sprintf("%.1f/min", r)
	}
	late := "-"
	if len(turns) > 0 {
		late = checks.FormatMs(checks.GeneratorOf(turns, 0, -1, s.l.th).LatenessP99)
	}
	x := checks.Tally(turns)
	return []string{callsText, fmt.Sprintf("%d/%d", x.Understood, x.Judged()),
		pair(checks.MetricSpeechEndToReply, turns), pair(checks.MetricReplyStart, turns), under, late}
}

// verdict is "ok", "FAIL" or "incomplete", then the first reason (+ how many more), flagged when
// the generator fell behind or slips were counted against the step.
func (s *stepsTable) verdict(v checks.StepVerdict) string {
	st := s.c.Styles
	var tags []string
	if v.GeneratorBound {
		tags = append(tags, "generator_bound")
	}
	if n := v.Turns.Slips; n > 0 {
		tags = append(tags, slipsTag(n, v.SlipsTolerated))
	}
	word, style := v.Word(), st.OK
	switch {
	case v.Incomplete:
		style = st.Dim // cut short: not the agent's failure
	case v.GeneratorBound:
		style = st.Warn
	case !v.OK:
		style = st.Fail
	}
	if len(tags) > 0 {
		word += " (" + strings.Join(tags, ", ") + ")"
	}
	if len(v.Reasons) > 0 {
		word += ": " + v.Reasons[0]
		if len(v.Reasons) > 1 {
			word += fmt.Sprintf(" (+%d)", len(v.Reasons)-1)
		}
	}
	return style.Render(word)
}

func (s *stepsTable) capacity() string {
	st := s.c.Styles
	if len(s.l.finished) == 0 {
		return st.Label.Render("capacity so far: ") + st.Dim.Render("no step finished yet")
	}
	c := s.l.capacity
	n := fmt.Sprintf("%d calls", c.N)
	if c.Incomplete {
		n = "at least " + n
	}
	line := st.Label.Render("capacity so far: ") + st.Value.Render(n)
	if e := s.l.ears; !e.Trusted { // short: the line is the box's last, cut at its width
		line += st.Warn.Render(fmt.Sprintf("; ears not trusted (%s agreed at N=%d): try --stt-url",
			checks.FormatPct(e.Fraction), e.StepN))
	}
	return line + st.Dim.Render("; "+c.Note)
}

// slipsTag says a step's STT slips and whether they were tolerated.
func slipsTag(n int, tolerated bool) string {
	if tolerated {
		return fmt.Sprintf("%d slips tolerated", n)
	}
	return fmt.Sprintf("%d slips not tolerated", n)
}

// pair is "p50/p95" of a metric over turns.
func pair(m checks.Metric, turns []callers.Turn) string {
	sum := checks.Summarize(checks.Samples(m, turns, nil))
	if sum.N == 0 {
		return "-"
	}
	return checks.FormatMs(sum.P50) + "/" + checks.FormatMs(sum.P95)
}

func byCall(turns []callers.Turn, call int) []callers.Turn {
	var out []callers.Turn
	for _, t := range turns {
		if t.Call == call {
			out = append(out, t)
		}
	}
	return out
}
