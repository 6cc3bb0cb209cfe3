package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/checks"
)

// laneWidth is one lane's cells: call, state, turns, recent verdicts, last latency; a probe's
// lane, probeLaneWidth: call, state, pause, how the agent took the turn, the wait.
const laneWidth, probeLaneWidth = 38, 44

// laneGap separates lane columns.
const laneGap = 3

var stateGlyphs = map[callers.State]string{
	callers.StateUnknown: "·", callers.StateDialing: "◌", callers.StateSpeaking: "▶", callers.StateWaiting: "…",
	callers.StateListening: "◀", callers.StatePausing: "◦", callers.StateDone: "■", callers.StateFailed: "✗",
}

// lanes shows a lane per call of the current step, in as many columns as fit, scrolling by rows.
type lanes struct {
	c    *common
	l    *live
	w, h int
	top  int // first visible row
}

func (s *lanes) SetSize(w, h int) { s.w, s.h = w, h; s.clamp() }

func (s *lanes) cols() int { return max(1, (s.w-4+laneGap)/(s.width()+laneGap)) }

func (s *lanes) width() int {
	if s.probeLanes() {
		return probeLaneWidth
	}
	return laneWidth
}

// probeLanes says the lanes are a pause-probe's.
func (s *lanes) probeLanes() bool { return s.l.probe != nil && s.l.probe.cfg.Mode == ProbePause }

func (s *lanes) rows() int { return max(1, s.h-2) }

func (s *lanes) totalRows() int { return (len(s.l.lanes) + s.cols() - 1) / s.cols() }

// rowsFor is how many rows every lane needs at width w, for the layout.
func (s *lanes) rowsFor(w int) int {
	cols := max(1, (w-4+laneGap)/(s.width()+laneGap))
	return max(1, (len(s.l.lanes)+cols-1)/cols)
}

func (s *lanes) clamp() { s.top = max(0, min(s.top, s.totalRows()-s.rows())) }

// Update scrolls; every other message is the root's.
func (s *lanes) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	keys := s.c.Keys
	switch {
	case key.Matches(k, keys.Up):
		s.top--
	case key.Matches(k, keys.Down):
		s.top++
	case key.Matches(k, keys.PageUp):
		s.top -= s.rows()
	case key.Matches(k, keys.PageDown):
		s.top += s.rows()
	case key.Matches(k, keys.Top):
		s.top = 0
	case key.Matches(k, keys.Bottom):
		s.top = s.totalRows()
	}
	s.clamp()
	return nil
}

func (s *lanes) View() string {
	s.clamp()
	cols, rows := s.cols(), s.rows()
	cell := s.width()
	if cols == 1 {
		cell = s.w - 4 // one column: room for the last failure's reason
	}
	var lines []string
	for r := s.top; r < s.top+rows && r < s.totalRows(); r++ {
		var cells []string
		for c := 0; c < cols; c++ {
			if i := r*cols + c; i < len(s.l.lanes) {
				cells = append(cells, fit(s.lane(s.l.lanes[i], cols == 1), cell))
			}
		}
		lines = append(lines, strings.Join(cells, strings.Repeat(" ", laneGap)))
	}
	if len(s.l.lanes) == 0 {
		lines = append(lines, s.c.Styles.Dim.Render("no calls yet"))
	}
	return box(s.c.Styles, s.title(cols), s.w, s.h, lines)
}

func (s *lanes) title(cols int) string {
	n := len(s.l.lanes)
	if n == 0 || s.totalRows() <= s.rows() {
		return fmt.Sprintf("calls (%d)", n)
	}
	first := s.top*cols + 1
	last := min(n, (s.top+s.rows())*cols)
	return fmt.Sprintf("calls %d–%d of %d  ↑↓", first, last, n)
}

// lane is one call (numbered as in turns.jsonl): "c12   ▶ speaking    7 ✓✓✓✗✓✓   1.78 s", then
// the last turn's failure reason when the lane has the row to itself.
func (s *lanes) lane(ln *lane, wide bool) string {
	st := s.c.Styles
	name := ln.state.String()
	if ln.state == callers.StateUnknown {
		name = "queued"
	}
	ss := st.State[ln.state]
	if s.probeLanes() {
		return s.probeLane(ln, name, wide)
	}
	var hist strings.Builder
	for _, o := range ln.history {
		hist.WriteString(s.outcomeGlyph(o))
	}
	hist.WriteString(strings.Repeat(" ", historyLen-len(ln.history)))
	lat := "-"
	if ln.hasLat {
		lat = checks.FormatMs(ln.latency)
	}
	line := fmt.Sprintf("%-5s %s %s %3d %s %8s", fmt.Sprintf("c%d", ln.call), ss.Render(stateGlyphs[ln.state]),
		ss.Render(fmt.Sprintf("%-9s", name)), ln.turns, hist.String(), lat)
	switch {
	case !wide || ln.reason == checks.ReasonNone:
	case ln.reason.Failed():
		line += "  " + st.Fail.Render(ln.reason.String())
	default: // slip, unjudged, cancelled: shown, but not as the agent's failure
		line += "  " + st.Dim.Render(ln.reason.String())
	}
	return line
}

// outcomeGlyph marks one turn of a lane's history: ✓ understood, ✗ failed, and dimmed ~ slip,
// ? unjudged, - cancelled.
func (s *lanes) outcomeGlyph(o checks.Outcome) string {
	st := s.c.Styles
	switch o {
	case checks.OutcomeUnderstood:
		return st.OK.Render("✓")
	case checks.OutcomeSlip:
		return st.Dim.Render("~")
	case checks.OutcomeUnjudged:
		return st.Dim.Render("?")
	case checks.OutcomeCancelled:
		return st.Dim.Render("-")
	}
	return st.Fail.Render("✗")
}

// probeLane is one call of a pause-probe: "c5    ◀ listening 700ms  one turn     1.23 s", the
// wait being speech end to the final transcript.
func (s *lanes) probeLane(ln *lane, name string, wide bool) string {
	st := s.c.Styles
	ss := st.State[ln.state]
	w := 11
	if wide {
		w = 28 // the row to itself: room for the reason after "one turn, "
	}
	word := st.Dim.Render(fit("-", w))
	switch {
	case ln.word == "split":
		word = st.Warn.Render(fit(ln.word, w))
	case ln.word == "one turn":
		word = st.OK.Render(fit(ln.word, w))
	case ln.word != "":
		word = st.Fail.Render(fit(ln.word, w))
	}
	lat := "-"
	if ln.hasLat {
		lat = checks.FormatMs(ln.latency)
	}
	return fmt.Sprintf("%-5s %s %s %6s %s %7s", fmt.Sprintf("c%d", ln.call), ss.Render(stateGlyphs[ln.state]),
		ss.Render(fmt.Sprintf("%-9s", name)), ln.pause, word, lat)
}
