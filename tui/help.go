package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/help"

	"github.com/callfleet/callfleet/callers"
)

// helpScreen is the keys and what the lanes' glyphs mean; the footer is its short form.
type helpScreen struct {
	c     *common
	h     help.Model
	w, y  int
	probe bool // a pause-probe's lanes
}

func newHelp(c *common) *helpScreen {
	h := help.New()
	st := c.Styles
	h.Styles = help.Styles{ShortKey: st.Key, ShortDesc: st.Label, ShortSeparator: st.Dim, Ellipsis: st.Dim,
		FullKey: st.Key, FullDesc: st.Label, FullSeparator: st.Dim}
	h.ShortSeparator = " · "
	return &helpScreen{c: c, h: h}
}

func (s *helpScreen) SetSize(w, h int) { s.w, s.y = w, h; s.h.Width = w }

// Footer is the one-line key hint.
func (s *helpScreen) Footer() string { return s.h.ShortHelpView(s.c.Keys.ShortHelp()) }

func (s *helpScreen) View() string {
	st := s.c.Styles
	lines := strings.Split(s.h.FullHelpView(s.c.Keys.FullHelp()), "\n")
	legend := "a lane: call (as in turns.jsonl), state, turns, the last verdicts, the last speech_end→reply"
	if s.probe {
		legend = "a lane: call (as in turns.jsonl), state, its pause, how the agent took the turn (one turn, split, or why it failed), speech_end→transcript"
	}
	lines = append(lines, "", st.Label.Render(legend))
	var states []string
	for _, x := range []callers.State{callers.StateUnknown, callers.StateDialing, callers.StateSpeaking, callers.StateWaiting,
		callers.StateListening, callers.StatePausing, callers.StateDone, callers.StateFailed} {
		name := x.String()
		if x == callers.StateUnknown {
			name = "queued"
		}
		states = append(states, st.State[x].Render(stateGlyphs[x]+" "+name))
	}
	lines = append(lines, strings.Join(states, "  "),
		st.OK.Render("✓")+st.Label.Render(" understood  ")+st.Fail.Render("✗")+st.Label.Render(" failed (the reason follows when there is room)"),
		"", st.Label.Render("press ? again to go back"))
	return box(st, "help", s.w, s.y, lines)
}
