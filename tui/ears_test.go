package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/scenarios"
)

// earsSpec is a scripted turn carrying the agent's own text, and what the caller's ears made of it.
type earsSpec struct {
	turnSpec
	unjudged  string // why the ears could not judge the reply
	cancelled bool   // in flight when the step was cut
}

func (s earsSpec) turn() callers.Turn {
	t := s.turnSpec.turn()
	t.AgentText = []string{"seven one three four"}
	switch {
	case s.cancelled:
		t.Error, t.AgentText = "cancelled: the run was stopped", nil
	case s.unjudged != "":
		t.Unjudged = s.unjudged
	}
	return t
}

func ears(call, step, n int, at time.Duration, heard string) earsSpec {
	return earsSpec{turnSpec: turnSpec{call: call, step: step, n: n, at: at, heard: heard, server: "7134", e2r: 850, lateness: 1.2}}
}

// earsScript is a run whose ears mishear the agent (two of seven replies at N=2: not trusted), whose
// second step the user cut short with a turn in flight and one the ears could not judge, and whose
// third step is running with a slip, an unjudged turn and a failure.
func earsScript() []scenarios.Event {
	sched := scenarios.Schedule(scriptPlan())
	var ev []scenarios.Event
	steps := [][]earsSpec{
		{ears(0, 0, 0, 5*time.Second, "7134"), ears(1, 0, 0, 6*time.Second, "98"), ears(0, 0, 1, 9*time.Second, "7134"),
			ears(1, 0, 1, 10*time.Second, "7134"), ears(0, 0, 2, 13*time.Second, "98"), ears(1, 0, 2, 14*time.Second, "7134"),
			ears(0, 0, 3, 17*time.Second, "7134")},
		{ears(2, 1, 0, 23*time.Second, "7134"), ears(3, 1, 0, 24*time.Second, "7134"), ears(4, 1, 0, 25*time.Second, ""),
			ears(5, 1, 0, 26*time.Second, "")},
		{ears(6, 2, 0, 29*time.Second, "7135"), ears(7, 2, 0, 30*time.Second, ""), ears(8, 2, 0, 30*time.Second, "7134"),
			ears(9, 2, 0, 31*time.Second, "")},
	}
	steps[1][2].unjudged = "queue_full"
	steps[1][3].cancelled, steps[1][3].e2r = true, 0
	steps[2][1].unjudged = "timeout"
	steps[2][3].e2r = 0 // no reply: no_answer, the one failure
	ends := []time.Duration{20 * time.Second, 27 * time.Second}
	start := time.Duration(0)
	for i, specs := range steps {
		ev = append(ev, scenarios.Event{Kind: scenarios.EventStepStart, At: t0.Add(start), Step: sched[i]})
		var turns []callers.Turn
		for _, s := range specs {
			t := s.turn()
			turns = append(turns, t)
			ev = append(ev, scenarios.Event{Kind: scenarios.EventTurn, At: t0.Add(s.at), Turn: t})
		}
		if i == len(ends) {
			break // the running step
		}
		var calls []callers.CallResult
		for c := sched[i].FirstCall; c < sched[i].FirstCall+sched[i].N; c++ {
			r := callers.CallResult{Schema: callers.Schema, Call: c, Transport: "twilio", Connected: true, Turns: 1,
				EndedBy: callers.EndedByCaller, Wall: t0.Add(start), Connect: ms(40)}
			if i == 1 {
				r.EndedBy = callers.EndedByCancelled
			}
			calls = append(calls, r)
		}
		res := scenarios.StepResult{Schedule: sched[i], Start: t0.Add(start), Turns: turns, Calls: calls, GeneratorCPU: 0.12,
			Window: [2]time.Time{t0.Add(start), t0.Add(ends[i])}, Stopped: i == 1}
		ev = append(ev, scenarios.Event{Kind: scenarios.EventStepEnd, At: t0.Add(ends[i]), Step: sched[i], Result: &res})
		start = ends[i]
	}
	return ev
}

// TestFrameEars keeps the last frame of earsScript; -update rewrites testdata/TestFrameEars.
func TestFrameEars(t *testing.T) {
	for _, size := range [][2]int{{160, 50}, {100, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			u := New(withOut(scriptConfig()))
			tm := teatest.NewTestModel(t, newModel(u), teatest.WithInitialTermSize(size[0], size[1]))
			for _, e := range earsScript() {
				u.Handle(e)
			}
			u.Done()
			fm := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second))
			u.q.close()
			frame := fm.View()
			for _, want := range []string{"capacity so far: at least 2 calls", "not trusted", "--stt-url", "incomplete",
				"misheard", "unjudged 1", "slip 1", "no_answer 1"} {
				if !strings.Contains(frame, want) {
					t.Errorf("frame lacks %q", want)
				}
			}
			if strings.Contains(frame, "FAIL") {
				t.Errorf("no step failed (one ok on untrusted ears, one cut short), yet FAIL shows:\n%s", frame)
			}
			golden.RequireEqual(t, []byte(frame))
		})
	}
}
