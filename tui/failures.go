package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/callfleet/callfleet/speech"
)

// failuresPanel lists the latest failed turns, newest first: where, why and what was heard.
type failuresPanel struct {
	c    *common
	l    *live
	w, h int
}

func (s *failuresPanel) SetSize(w, h int) { s.w, s.h = w, max(3, h) }

func (s *failuresPanel) View() string {
	st := s.c.Styles
	var lines []string
	for i := len(s.l.failures) - 1; i >= 0 && len(lines) < s.h-2; i-- {
		lines = append(lines, s.line(s.l.failures[i]))
	}
	if len(lines) == 0 {
		lines = append(lines, st.Dim.Render("none yet"))
	}
	return box(st, fmt.Sprintf("last failures (%d)", len(s.l.failures)), s.w, s.h, lines)
}

// line is "step 2  c3 t4  wrong_reply  said 7134  heard "seven one three"  server "7134"".
func (s *failuresPanel) line(f failure) string {
	st := s.c.Styles
	t := f.turn
	where := fmt.Sprintf("step %d  c%d t%d", f.step+1, t.Call, t.Turn)
	if p := s.l.probe; p != nil && p.cfg.Mode == ProbePause && t.Pause != nil {
		where = fmt.Sprintf("%s  c%d t%d", t.Pause.Duration().Round(time.Millisecond), t.Call, t.Turn)
		if len(p.cfg.Settings) > 0 {
			where = p.settingName(t.Step) + " " + where
		}
	}
	heard := st.Dim.Render("nothing")
	if t.Heard != "" {
		heard = fmt.Sprintf("%q", t.Heard)
	}
	style := st.Fail
	if !f.reason.Failed() { // a slip, unjudged or cancelled turn: listed, not the agent's failure
		style = st.Dim
	}
	out := fmt.Sprintf("%-18s %s  said %s  heard %s", where, style.Render(fmt.Sprintf("%-16s", f.reason)),
		speech.Normalize(t.Phrase), heard)
	if t.TranscriptChannel {
		server := st.Dim.Render("nothing")
		if len(t.ServerTranscripts) > 0 {
			server = fmt.Sprintf("%q", strings.Join(t.ServerTranscripts, " | "))
		}
		out += "  server " + server
	}
	if t.Error != "" {
		out += st.Dim.Render("  (" + t.Error + ")")
	}
	return out
}
