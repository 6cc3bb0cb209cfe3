package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// frameGap is the least time between two batches of events: at most ~10 redraws a second from the
// event stream however fast it flows.
const frameGap = 100 * time.Millisecond

// maxFailureLines bounds the failures panel, which otherwise grows with the failures.
const maxFailureLines = 10

// sideBySideMin is the width from which the lanes and the figures sit next to each other.
const sideBySideMin = 106

// eventsMsg carries one batch of events into the program.
type eventsMsg batch

// tickMsg moves the clocks on when no event does.
type tickMsg time.Time

// model is the root: it folds events into live, routes keys, lays the screens out.
type model struct {
	c       *common
	l       *live
	ui      *UI
	header  *header
	lanes   *lanes
	figures *figures
	steps   interface {
		SetSize(w int)
		Height() int
		View() string
	} // the ramp's steps, or the probe's table
	failures *failuresPanel
	help     *helpScreen
	showHelp bool
	stopping bool
	ending   int // 1-based step being ended by s, 0 when none
}

func newModel(u *UI) *model {
	c := newCommon(u.cfg.Out, u.cfg.Now)
	l := newLive(u.cfg.Plan, u.cfg.Thresholds, u.cfg.Probe)
	m := &model{c: c, l: l, ui: u,
		header: &header{c: c, l: l, cfg: u.cfg}, lanes: &lanes{c: c, l: l}, figures: &figures{c: c, l: l},
		steps: &stepsTable{c: c, l: l}, failures: &failuresPanel{c: c, l: l}, help: newHelp(c)}
	if l.probe != nil {
		m.steps = &probeTable{c: c, l: l}
		c.Keys.EndStep.SetEnabled(false) // a probe's steps are its pauses: none to end early
		m.help.probe = l.probe.cfg.Mode == ProbePause
	}
	return m
}

func (m *model) Init() tea.Cmd { return tea.Batch(m.wait(), m.tick()) }

// wait is the command that blocks on the event queue (bubbletea's examples/realtime pattern).
func (m *model) wait() tea.Cmd {
	q := m.ui.q
	return func() tea.Msg {
		b, ok := q.next(frameGap)
		if !ok {
			return nil
		}
		return eventsMsg(b)
	}
}

// tick redraws the clocks once a second; it ends with the program.
func (m *model) tick() tea.Cmd {
	gone := m.ui.q.gone
	return func() tea.Msg {
		select {
		case t := <-time.After(time.Second):
			return tickMsg(t)
		case <-gone:
			return nil
		}
	}
}

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.c.Width, m.c.Height = msg.Width, msg.Height
		m.layout()
	case eventsMsg:
		m.l.apply(batch(msg))
		if m.ending > 0 && len(m.l.finished) >= m.ending {
			m.ending = 0
		}
		m.layout()
		if msg.done {
			return m, tea.Quit
		}
		return m, m.wait()
	case tickMsg:
		return m, m.tick()
	case tea.KeyMsg:
		return m, m.key(msg)
	}
	return m, nil
}

func (m *model) key(k tea.KeyMsg) tea.Cmd {
	keys := m.c.Keys
	switch {
	case key.Matches(k, keys.Stop, keys.Interrupt):
		if m.stopping {
			return tea.Quit // asked twice: leave now, the run goes on hanging up behind us
		}
		m.stopping = true
		m.ui.stop(key.Matches(k, keys.Interrupt))
	case key.Matches(k, keys.EndStep):
		if m.l.inStep && !m.stopping && m.ending == 0 && m.ui.endStep() {
			m.ending = m.l.step.Index + 1
		}
	case key.Matches(k, keys.Help):
		m.showHelp = !m.showHelp
	default:
		return m.lanes.Update(k)
	}
	return nil
}

// layout sizes the screens: header and footer lines and the steps table whole, the failures as
// many lines as they have (within bounds), and the rest to the lanes beside or above the live
// figures, whose latency chart grows into any room left.
func (m *model) layout() {
	w, h := m.c.Width, m.c.Height
	body := h - 3
	m.help.SetSize(w, body)
	m.steps.SetSize(w)
	room := body - m.steps.Height()
	fail := min(max(len(m.l.failures)+2, 3), maxFailureLines+2)
	if room-fail < figuresHeight {
		fail = max(3, room-figuresHeight)
	}
	m.failures.SetSize(w, fail)
	mid := room - fail
	if w >= sideBySideMin {
		figW := 64
		if w >= 150 {
			figW = 76
		}
		m.figures.SetSize(figW, max(figuresHeight, mid))
		m.lanes.SetSize(w-figW, max(figuresHeight, mid))
		return
	}
	lanesH := max(3, min(mid-figuresHeight, m.lanes.rowsFor(w)+2))
	m.lanes.SetSize(w, lanesH)
	m.figures.SetSize(w, max(figuresHeight, mid-lanesH))
}

func (m *model) View() string {
	if m.c.Width <= 0 || m.c.Height <= 0 {
		return "callfleet: starting the live view..."
	}
	m.header.status = m.status()
	parts := []string{m.header.View()}
	switch {
	case m.showHelp:
		parts = append(parts, m.help.View())
	case m.c.Width >= sideBySideMin:
		parts = append(parts, sideBySide(m.lanes.View(), m.figures.View()), m.steps.View(), m.failures.View())
	default:
		parts = append(parts, m.lanes.View(), m.figures.View(), m.steps.View(), m.failures.View())
	}
	frame := clip(strings.Join(parts, "\n"), m.c.Width, m.c.Height-1)
	pad := strings.Repeat("\n", max(0, m.c.Height-1-strings.Count(frame, "\n")-1))
	return frame + pad + "\n" + fit(m.help.Footer(), m.c.Width)
}

// status is the header's right-hand note: what the last key asked for.
func (m *model) status() string {
	switch {
	case m.stopping && m.ui.Interrupted():
		return "interrupted: hanging up, then the report (ctrl+c again: leave now)"
	case m.stopping:
		return "stopping: hanging up, then the report (q again: leave now)"
	case m.ending > 0:
		return fmt.Sprintf("ending step %d...", m.ending)
	}
	return ""
}
