package tui

import (
	"time"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/checks"
	"github.com/callfleet/callfleet/scenarios"
)

// maxFailures is how many recent failures are kept for the failures panel.
const maxFailures = 50

// historyLen is how many verdicts a lane remembers.
const historyLen = 6

// live is the run as the view knows it, folded from the event stream. Only the program's goroutine
// touches it.
type live struct {
	plan      scenarios.Plan
	th        checks.Thresholds
	started   time.Time // the first step's start
	inStep    bool
	step      scenarios.StepSchedule
	stepStart time.Time
	lanes     []*lane // the current step's calls, in call order
	turns     []timedTurn
	finished  []stepRow
	verdicts  []checks.StepVerdict // of finished, judged together as the report will
	capacity  checks.Capacity
	ears      checks.Calibration // the caller's ears, calibrated on the finished steps as the report will
	failures  []failure          // newest last
	probe     *probeLive         // a probe's steps instead of a ramp's; nil for a ramp
}

// lane is one call of the current step.
type lane struct {
	call    int
	state   callers.State
	turns   int
	history []checks.Outcome // oldest first
	latency callers.Ms
	hasLat  bool
	reason  checks.Reason // of the last turn, ReasonNone when understood; not always a failure
	word    string        // probe: how the agent took the last turn ("one turn", "split")
	pause   string        // probe: the pause the call probes
}

type timedTurn struct {
	at   time.Duration // since the step's start
	turn callers.Turn
}

// stepRow is one finished step as the table shows it.
type stepRow struct {
	sched scenarios.StepSchedule
	input checks.StepInput // Cut when the step was ended early
}

type failure struct {
	step   int
	turn   callers.Turn
	reason checks.Reason
}

func newLive(plan scenarios.Plan, th checks.Thresholds, probe *Probe) *live {
	l := &live{plan: plan, th: th}
	if probe != nil {
		l.probe = newProbeLive(*probe)
	}
	return l
}

// apply folds one batch into the state.
func (l *live) apply(b batch) {
	for _, e := range b.events {
		l.event(e)
	}
	for call, s := range b.states {
		if ln := l.lane(call); ln != nil {
			ln.state = s
		}
	}
}

func (l *live) event(e scenarios.Event) {
	switch {
	case l.probe != nil && e.Kind == scenarios.EventStepStart:
		l.probeStart(e.Step, e.At)
		return
	case l.probe != nil && e.Kind == scenarios.EventStepEnd:
		l.probeEnd(e.Step)
		return
	}
	switch e.Kind {
	case scenarios.EventStepStart:
		l.startStep(e.Step, e.At)
	case scenarios.EventTurn:
		l.turn(e.Turn, e.At)
	case scenarios.EventState:
		if ln := l.lane(e.CallN); ln != nil {
			ln.state = e.State
		}
	case scenarios.EventCall:
		if ln := l.lane(e.Call.Call); ln != nil && !e.Call.Connected {
			ln.state, ln.reason = callers.StateFailed, checks.ReasonConnectFailed
		}
	case scenarios.EventStepEnd:
		if e.Result != nil {
			l.endStep(*e.Result)
		}
	}
}

func (l *live) startStep(s scenarios.StepSchedule, at time.Time) {
	if l.started.IsZero() {
		l.started = at
	}
	l.inStep, l.step, l.stepStart, l.turns = true, s, at, nil
	l.lanes = make([]*lane, s.N)
	for i := range l.lanes {
		l.lanes[i] = &lane{call: s.FirstCall + i}
	}
}

func (l *live) turn(t callers.Turn, at time.Time) {
	l.turns = append(l.turns, timedTurn{at: at.Sub(l.stepStart), turn: t})
	v := checks.Turn(t)
	heard := 0
	if l.probe != nil {
		heard = l.probeTurn(t)
	}
	// A probe's split is what it measures, not a failure: the probe table counts it.
	if !v.Understood && heard <= 1 {
		l.failures = append(l.failures, failure{step: t.Step, turn: t, reason: v.Reason})
		if len(l.failures) > maxFailures {
			l.failures = l.failures[len(l.failures)-maxFailures:]
		}
	}
	ln := l.lane(t.Call)
	if ln == nil {
		return
	}
	ln.turns++
	ln.history = append(ln.history, v.Outcome)
	if len(ln.history) > historyLen {
		ln.history = ln.history[1:]
	}
	ln.reason = v.Reason
	ln.latency, ln.hasLat = checks.MetricSpeechEndToReply.OfTurn(t)
	if l.probe != nil && l.probe.cfg.Mode == ProbePause {
		ln.word = probeLane(heard, v)
		ln.latency, ln.hasLat = checks.MetricSpeechEndToTranscript.OfTurn(t) // the probe's wait
	}
}

// endStep judges every finished step again, since the latency rule anchors on the first.
func (l *live) endStep(r scenarios.StepResult) {
	l.inStep = false
	turns := checks.UnjudgedWhenBound(inWindow(r.Turns, r.Window), r.GeneratorCPU, l.th) // as report.Build judges
	in := checks.StepInput{N: r.Schedule.N, Turns: turns, Calls: r.Calls,
		GeneratorCPU: r.GeneratorCPU, MachineSteal: r.MachineSteal, Cut: r.Stopped}
	l.finished = append(l.finished, stepRow{sched: r.Schedule, input: in})
	inputs := make([]checks.StepInput, len(l.finished))
	for i, f := range l.finished {
		inputs[i] = f.input
	}
	l.ears = checks.CalibrateSteps(inputs)
	l.verdicts, l.capacity = checks.StepsCalibrated(inputs, l.th, l.ears)
}

func (l *live) lane(call int) *lane {
	i := call - l.step.FirstCall
	if !l.inStep || i < 0 || i >= len(l.lanes) {
		return nil
	}
	return l.lanes[i]
}

// inWindow keeps the turns that began inside the measured window, as the report does; a step cut
// short keeps every turn, since its window never came.
func inWindow(turns []callers.Turn, w [2]time.Time) []callers.Turn {
	var out []callers.Turn
	for _, t := range turns {
		if !t.Wall.Before(w[0]) && t.Wall.Before(w[1]) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return turns
	}
	return out
}

// measured is the current step's turns as its verdict will count them: those that began in the
// measured window once it has any, every turn before.
func (l *live) measured() []callers.Turn {
	turns := make([]callers.Turn, len(l.turns))
	for i, t := range l.turns {
		turns[i] = t.turn
	}
	m := l.step.Measure
	return inWindow(turns, [2]time.Time{l.stepStart.Add(m[0]), l.stepStart.Add(m[1])})
}

// stepLen is one step's planned running time.
func (l *live) stepLen() time.Duration { return l.plan.Ramp + l.plan.Warmup + l.plan.Duration }

// clock gives the elapsed and remaining run time at now.
func (l *live) clock(now time.Time) (elapsed, remaining time.Duration) {
	if l.started.IsZero() {
		return 0, l.plan.Total()
	}
	elapsed = max(0, now.Sub(l.started))
	left := len(l.plan.Steps) - len(l.finished)
	if l.inStep {
		left--
		remaining = max(0, l.stepLen()-now.Sub(l.stepStart))
	}
	return elapsed, remaining + time.Duration(max(0, left))*l.stepLen()
}

// callsUp counts the current step's calls that are dialing or in a turn.
func (l *live) callsUp() int {
	n := 0
	for _, ln := range l.lanes {
		if ln.state != callers.StateUnknown && ln.state != callers.StateDone && ln.state != callers.StateFailed {
			n++
		}
	}
	return n
}
