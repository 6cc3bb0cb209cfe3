package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// header is the run's two top lines: what is called, then where the ramp stands.
type header struct {
	c      *common
	l      *live
	cfg    Config
	status string // set by the root model: running, ending step, stopping
}

func (h *header) View() string {
	st := h.c.Styles
	seed := h.cfg.Seed
	if seed == 0 {
		seed = h.cfg.Plan.Seed
	}
	title := "callfleet"
	if h.l.probe != nil {
		title += " probe"
	}
	first := st.Title.Render(title) + "  " + st.Label.Render("target ") + st.Value.Render(orDash(h.cfg.Target)) +
		"  " + st.Label.Render("transport ") + st.Value.Render(orDash(h.cfg.Transport)) +
		"  " + st.Label.Render("seed ") + st.Value.Render(fmt.Sprint(seed))
	var parts []string
	if h.l.probe != nil {
		parts = h.probe()
	} else {
		parts = h.ramp()
	}
	second := strings.Join(parts, st.Dim.Render("  ·  "))
	if h.status != "" {
		tag := st.Warn.Render(h.status)
		gap := h.c.Width - lipgloss.Width(second) - lipgloss.Width(tag)
		second += strings.Repeat(" ", max(2, gap)) + tag
	}
	return fit(first, h.c.Width) + "\n" + fit(second, h.c.Width)
}

// ramp is where a ramp stands: step k of n with N calls, elapsed and remaining.
func (h *header) ramp() []string {
	st := h.c.Styles
	elapsed, remaining := h.l.clock(h.c.Now())
	var parts []string
	if h.l.started.IsZero() {
		parts = append(parts, st.Label.Render("waiting for the first step"))
	} else {
		s := h.l.step
		parts = append(parts, st.Label.Render("step ")+st.Value.Render(fmt.Sprintf("%d of %d", s.Index+1, len(h.l.plan.Steps)))+
			st.Label.Render(" with ")+st.Value.Render(fmt.Sprintf("%d calls", s.N))+
			st.Label.Render(fmt.Sprintf(" (%d up)", h.l.callsUp())))
	}
	return append(parts, st.Label.Render("elapsed ")+st.Value.Render(clockText(elapsed)),
		st.Label.Render("remaining ")+st.Value.Render(clockText(remaining)))
}

// probe is where a probe stands: the pause being probed (the step), the setting in a sweep, the
// calls, elapsed and remaining at the pace so far.
func (h *header) probe() []string {
	st := h.c.Styles
	elapsed, remaining, known := h.l.probeClock(h.c.Now())
	var parts []string
	if h.l.started.IsZero() {
		parts = append(parts, st.Label.Render("waiting for the first call"))
	} else {
		name, setting := h.l.probe.stepName()
		parts = append(parts, st.Value.Render(name)+st.Label.Render(" with ")+
			st.Value.Render(fmt.Sprintf("%d calls", h.l.probe.cfg.Conversations))+st.Label.Render(fmt.Sprintf(" (%d up)", h.l.callsUp())))
		if setting != "" {
			parts = append(parts, st.Value.Render(setting))
		}
	}
	rem := st.Dim.Render("-")
	if known {
		rem = st.Value.Render("~" + clockText(remaining))
	}
	return append(parts, st.Label.Render("elapsed ")+st.Value.Render(clockText(elapsed)), st.Label.Render("remaining ")+rem)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
