package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/checks"
	"github.com/callfleet/callfleet/scenarios"
)

// Probe modes: what a `callfleet probe` view shows as its steps.
const (
	ProbePause   = "pause"   // a step per agent setting and pause (scenarios.ProbeStep)
	ProbeBargeIn = "bargein" // one step: every barge-in call
	ProbeIdle    = "idle"    // one step: every idle call
)

// Probe is what the view of a `callfleet probe` shows instead of a ramp's steps: in pause mode
// a step is one pause of one agent setting, and the table is the seed's, settings by pauses.
type Probe struct {
	Mode          string
	Pauses        []time.Duration // pause mode: the pauses probed
	Conversations int             // calls per pause (pause mode), or in all
	Settings      []string        // pause mode: the agent settings swept, in order; none when not swept
	What          string          // bargein and idle: the step's label ("talks 500ms into the reply")
}

// probeCell is one pause of one setting as far as it has run.
type probeCell struct {
	started, ended bool
	decided, split int
	waits          []float64 // speech_end to the final transcript
}

// probeLive is a probe's progress, folded from the event stream beside live's lanes and turns.
type probeLive struct {
	cfg      Probe
	setting  int // the setting whose calls the lanes show
	pause    int // the pause whose calls started last: the step the header names
	cells    [][]probeCell
	finished int // steps ended
}

func newProbeLive(cfg Probe) *probeLive {
	cfg.Pauses = slices.Sorted(slices.Values(cfg.Pauses)) // scenarios.ProbeCalls's order
	cfg.Conversations = max(1, cfg.Conversations)
	p := &probeLive{cfg: cfg}
	p.cells = make([][]probeCell, p.settings())
	for i := range p.cells {
		p.cells[i] = make([]probeCell, p.pauses())
	}
	return p
}

// pauses is how many steps a setting has: one outside pause mode.
func (p *probeLive) pauses() int {
	if p.cfg.Mode != ProbePause {
		return 1
	}
	return max(1, len(p.cfg.Pauses))
}

func (p *probeLive) settings() int { return max(1, len(p.cfg.Settings)) }

func (p *probeLive) steps() int { return p.settings() * p.pauses() }

// cell is setting s's pause k, nil when out of range.
func (p *probeLive) cell(s, k int) *probeCell {
	if s < 0 || s >= len(p.cells) || k < 0 || k >= len(p.cells[s]) {
		return nil
	}
	return &p.cells[s][k]
}

// pauseOf is the index of a turn's pause (0 outside pause mode), -1 when it is none probed.
func (p *probeLive) pauseOf(t callers.Turn) int {
	if p.cfg.Mode != ProbePause {
		return 0
	}
	if t.Pause == nil {
		return -1
	}
	return slices.IndexFunc(p.cfg.Pauses, func(d time.Duration) bool {
		return d.Round(time.Millisecond) == t.Pause.Duration().Round(time.Millisecond)
	})
}

// startStep folds a probe step's start: a new setting brings a lane for each of its calls (its
// pauses overlap when more calls run at once than a pause has), a new pause only names the step.
func (l *live) probeStart(s scenarios.StepSchedule, at time.Time) {
	p := l.probe
	set, k := s.Index/p.pauses(), s.Index%p.pauses()
	if l.started.IsZero() {
		l.started = at
	}
	if !l.inStep || set != p.setting || len(l.lanes) == 0 {
		first, n := 0, p.pauses()*p.cfg.Conversations
		if p.cfg.Mode != ProbePause {
			first, n = s.FirstCall, s.N
		}
		l.lanes = make([]*lane, n)
		for i := range l.lanes {
			l.lanes[i] = &lane{call: first + i}
			if p.cfg.Mode == ProbePause && i/p.cfg.Conversations < len(p.cfg.Pauses) {
				l.lanes[i].pause = p.cfg.Pauses[i/p.cfg.Conversations].String()
			}
		}
		l.turns, l.stepStart = nil, at
		l.step = scenarios.StepSchedule{Index: s.Index, N: n, FirstCall: first}
	}
	l.inStep, l.step.Index, p.setting, p.pause = true, s.Index, set, k
	if c := p.cell(set, k); c != nil {
		c.started = true
	}
}

// probeEnd folds a probe step's end; the setting is over once each of its pauses is.
func (l *live) probeEnd(s scenarios.StepSchedule) {
	p := l.probe
	c := p.cell(s.Index/p.pauses(), s.Index%p.pauses())
	if c == nil || c.ended {
		return
	}
	c.ended = true
	p.finished++
	for _, c := range p.cells[s.Index/p.pauses()] {
		if !c.ended {
			return
		}
	}
	l.inStep = false
}

// probeTurn tallies a turn with its pause: how many turns the agent made of it, and the wait.
func (l *live) probeTurn(t callers.Turn) (heard int) {
	p := l.probe
	heard, _ = scenarios.TurnsHeard(t)
	c := p.cell(t.Step, p.pauseOf(t))
	if p.cfg.Mode != ProbePause || c == nil || heard == 0 {
		return heard
	}
	c.decided++
	if heard > 1 {
		c.split++
	}
	if v, ok := checks.MetricSpeechEndToTranscript.OfTurn(t); ok {
		c.waits = append(c.waits, float64(v))
	}
	return heard
}

// probeClock is the elapsed time and, once a step has ended, the remaining time at the steps'
// mean pace so far (zero, unknown, before).
func (l *live) probeClock(now time.Time) (elapsed, remaining time.Duration, known bool) {
	if l.started.IsZero() {
		return 0, 0, false
	}
	elapsed = max(0, now.Sub(l.started))
	p := l.probe
	if p.finished == 0 {
		return elapsed, 0, false
	}
	return elapsed, elapsed / time.Duration(p.finished) * time.Duration(max(0, p.steps()-p.finished)), true
}

// stepName is the header's step: "pause 700ms (3 of 4)" and, in a sweep, the setting.
func (p *probeLive) stepName() (string, string) {
	if p.cfg.Mode != ProbePause {
		return orDash(p.cfg.What), ""
	}
	name := "pause -"
	if p.pause < len(p.cfg.Pauses) {
		name = fmt.Sprintf("pause %s (%d of %d)", p.cfg.Pauses[p.pause], p.pause+1, len(p.cfg.Pauses))
	}
	if len(p.cfg.Settings) == 0 {
		return name, ""
	}
	return name, fmt.Sprintf("setting %s (%d of %d)", p.cfg.Settings[p.setting], p.setting+1, len(p.cfg.Settings))
}

// settingName labels a row of the probe table.
func (p *probeLive) settingName(i int) string {
	switch {
	case p.cfg.Mode != ProbePause:
		return orDash(p.cfg.What)
	case i < len(p.cfg.Settings):
		return p.cfg.Settings[i]
	}
	return "agent"
}

// probeTable is the seed's table as it fills: a row per agent setting, a column per pause, each
// cell one turn, k of K split or split once its calls are done; for barge-in and idle, a row of
// the calls done.
type probeTable struct {
	c *common
	l *live
	w int
}

func (s *probeTable) SetSize(w int) { s.w = w }

// Height is the box's: borders, head, a row per setting and the note under them.
func (s *probeTable) Height() int { return s.l.probe.settings() + 4 }

// probeFirstCol and probeCol are the setting's and each pause's column widths.
const probeFirstCol, probeCol = 14, 15

func (s *probeTable) View() string {
	st, p := s.c.Styles, s.l.probe
	if p.cfg.Mode != ProbePause {
		return s.scriptView()
	}
	head := fit(map[bool]string{true: "setting", false: "agent"}[len(p.cfg.Settings) > 0], probeFirstCol)
	for _, d := range p.cfg.Pauses {
		head += fit(fmt.Sprintf("%s pause", d), probeCol)
	}
	lines := []string{st.Label.Render(head + "wait p50/p95")}
	for i := range p.cells {
		row := fit(s.l.probe.settingName(i), probeFirstCol)
		var waits []float64
		for _, c := range p.cells[i] {
			row += s.cell(c)
			waits = append(waits, c.waits...)
		}
		lines = append(lines, row+waitPair(waits))
	}
	return box(st, "pause probe: one turn or two", s.w, 0, append(lines, s.shortest()))
}

// cell is one pause of one setting: pending, k of K so far, or its verdict.
func (s *probeTable) cell(c probeCell) string {
	st := s.c.Styles
	switch {
	case !c.started:
		return st.Dim.Render(fit("pending", probeCol))
	case !c.ended:
		return st.Warn.Render(fit(fmt.Sprintf("%d of %d split…", c.split, c.decided), probeCol))
	case c.split == 0:
		return st.OK.Render(fit(scenarios.SplitVerdict(c.split, c.decided), probeCol))
	}
	return st.Fail.Render(fit(scenarios.SplitVerdict(c.split, c.decided), probeCol))
}

// shortest is the shortest pause the current setting split so far.
func (s *probeTable) shortest() string {
	st, p := s.c.Styles, s.l.probe
	for k, c := range p.cells[min(p.setting, len(p.cells)-1)] {
		if c.split > 0 {
			return st.Label.Render("shortest pause that splits so far: ") + st.Value.Render(p.cfg.Pauses[k].String())
		}
	}
	return st.Label.Render("shortest pause that splits so far: ") + st.Dim.Render("none")
}

// scriptView is barge-in's or idle's one step: its calls done and turns understood.
func (s *probeTable) scriptView() string {
	st, l := s.c.Styles, s.l
	done := 0
	for _, ln := range l.lanes {
		if ln.state == callers.StateDone || ln.state == callers.StateFailed {
			done++
		}
	}
	turns := make([]callers.Turn, len(l.turns))
	for i, t := range l.turns {
		turns[i] = t.turn
	}
	state := st.Warn.Render("running")
	if !l.inStep && !l.started.IsZero() {
		state = st.OK.Render("done")
	}
	lines := []string{
		st.Label.Render(fit("scenario", 34) + fit("calls done", 12) + fit("turns ok", 12) + "state"),
		fit(l.probe.settingName(0), 34) + fit(fmt.Sprintf("%d of %d", done, len(l.lanes)), 12) +
			fit(fmt.Sprintf("%d/%d", checks.Understood(turns), len(turns)), 12) + state,
		st.Dim.Render("the scenario's figures come with the report, once every call is done"),
	}
	return box(st, "scenario", s.w, 0, lines)
}

func waitPair(waits []float64) string {
	sum := checks.Summarize(waits)
	if sum.N == 0 {
		return "-"
	}
	return checks.FormatMs(sum.P50) + "/" + checks.FormatMs(sum.P95)
}

// probeLane is a lane's verdict word in pause mode: how the agent took the call's last turn.
func probeLane(heard int, v checks.TurnVerdict) string {
	switch {
	case heard > 1:
		return "split"
	case v.Understood:
		return "one turn"
	case heard == 1:
		return "one turn, " + v.Reason.String()
	}
	return v.Reason.String()
}

// probeTitle is the live figures' box title in probe mode.
func (p *probeLive) probeTitle(live bool) string {
	name, _ := p.stepName()
	word := "finished"
	if live {
		word = "live"
	}
	return strings.Join([]string{name, fmt.Sprintf("%d calls", p.cfg.Conversations), word}, " · ")
}
