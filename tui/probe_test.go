package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/scenarios"
)

// probePauses and probeSettings are the scripted sweep: two settings of the agent, three pauses.
var (
	probePauses   = []time.Duration{300 * time.Millisecond, 700 * time.Millisecond, 1200 * time.Millisecond}
	probeSettings = []string{"1300/200", "300/200"}
)

func probeConfig() Config {
	return Config{Target: "ws://127.0.0.1:8765/twilio/ws", Transport: "twilio", Seed: 2026,
		Probe: &Probe{Mode: ProbePause, Pauses: probePauses, Conversations: 2, Settings: probeSettings},
		Now:   func() time.Time { return t0.Add(40 * time.Second) }}
}

// probeTurn is one probe turn: finals "" for none, one final for a turn kept whole, two for a split.
func probeTurn(set, call int, pause time.Duration, finals ...string) callers.Turn {
	p := callers.D(pause)
	t := callers.Turn{Schema: callers.Schema, Call: call, Step: set, Turn: 1, Transport: "twilio", Phrase: "71345",
		Pause: &p, Wall: t0, TranscriptChannel: true, ServerTranscripts: finals, Replies: len(finals), AgentAudio: 1500}
	t.Marks.SpeechStart, t.Marks.SpeechEnd = ms(100), ms(2500)
	if len(finals) > 0 {
		t.Marks.Transcript, t.Marks.ReplyStart, t.Marks.ReplyEnd = ms(3700), ms(4100), ms(5600)
		t.Heard = "71345"
	}
	return t
}

// probeScript is the sweep 40 s in: the first setting done (700 ms and longer split), the second
// through its first pause and one call into the next, with one call that got no answer.
func probeScript() []scenarios.Event {
	var ev []scenarios.Event
	at := t0
	step := func(set, k int) scenarios.StepSchedule {
		return scenarios.ProbeStep(scenarios.ProbePlan{Pauses: probePauses, Conversations: 2, Step: set}, k)
	}
	add := func(e scenarios.Event) {
		at = at.Add(time.Second)
		e.At = at
		ev = append(ev, e)
	}
	whole, split := []string{"seven one three four five"}, []string{"seven one", "three four five"}
	for set, splits := range [][]bool{{false, true, true}, {true}} {
		for k, sp := range splits {
			add(scenarios.Event{Kind: scenarios.EventStepStart, Step: step(set, k)})
			for c := range 2 {
				call := k*2 + c
				finals := whole
				if sp {
					finals = split
				}
				add(scenarios.Event{Kind: scenarios.EventState, CallN: call, State: callers.StateSpeaking})
				add(scenarios.Event{Kind: scenarios.EventTurn, Turn: probeTurn(set, call, probePauses[k], finals...)})
				add(scenarios.Event{Kind: scenarios.EventState, CallN: call, State: callers.StateDone})
			}
			add(scenarios.Event{Kind: scenarios.EventStepEnd, Step: step(set, k), Result: &scenarios.StepResult{Schedule: step(set, k)}})
		}
	}
	add(scenarios.Event{Kind: scenarios.EventStepStart, Step: step(1, 1)})
	add(scenarios.Event{Kind: scenarios.EventTurn, Turn: probeTurn(1, 2, probePauses[1], split...)})
	add(scenarios.Event{Kind: scenarios.EventState, CallN: 2, State: callers.StateDone})
	noAnswer := probeTurn(1, 3, probePauses[1])
	noAnswer.Error = "timeout: no reply audio within 8s"
	add(scenarios.Event{Kind: scenarios.EventTurn, Turn: noAnswer})
	add(scenarios.Event{Kind: scenarios.EventState, CallN: 3, State: callers.StateFailed})
	add(scenarios.Event{Kind: scenarios.EventState, CallN: 4, State: callers.StateDialing})
	return ev
}

// TestProbeFrame drives the program with the scripted probe and keeps its last frame per size;
// -update rewrites testdata/TestProbeFrame/*.golden.
func TestProbeFrame(t *testing.T) {
	for _, size := range [][2]int{{160, 50}, {100, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			u := New(withOut(probeConfig()))
			tm := teatest.NewTestModel(t, newModel(u), teatest.WithInitialTermSize(size[0], size[1]))
			for _, e := range probeScript() {
				u.Handle(e)
			}
			u.Done()
			fm := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second))
			u.q.close()
			frame := fm.View()
			checkProbeFrame(t, frame, size[0], size[1])
			golden.RequireEqual(t, []byte(frame))
		})
	}
}

// checkProbeFrame holds what a probe's frame must show, whatever the golden says.
func checkProbeFrame(t *testing.T, frame string, w, h int) {
	t.Helper()
	lines := strings.Split(frame, "\n")
	if len(lines) != h {
		t.Errorf("frame has %d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if n := len([]rune(l)); n > w {
			t.Errorf("line %d is %d cells wide, want <= %d: %q", i, n, w, l)
		}
	}
	flat := strings.Join(strings.Fields(frame), " ")
	for _, want := range []string{"callfleet probe", "ws://127.0.0.1:8765/twilio/ws", "transport twilio", "seed 2026",
		"pause 700ms (2 of 3) with 2 calls", "setting 300/200 (2 of 2)", "pause probe: one turn or two",
		"1300/200 one turn split split", "300/200 split 1 of 1 split… pending", "shortest pause that splits so far: 300ms",
		"c2 ■ done 700ms split", "c3 ✗ failed 700ms no_answer", "last failures (1)", "300/200 700ms c3 t1", "no_answer"} {
		if !strings.Contains(flat, want) {
			t.Errorf("frame lacks %q", want)
		}
	}
	if w >= 120 && !strings.Contains(frame, "remaining ~00:20") { // 40 s for 4 of 6 steps
		t.Error("no remaining time at the pace so far")
	}
	// Splits are what a probe measures: not failures, and no step to end early.
	if strings.Contains(frame, "split said") || strings.Contains(frame, "end step") {
		t.Errorf("a split listed as a failure, or s offered:\n%s", frame)
	}
}

// A probe has no step to end: s does nothing and the help says what a probe's lane holds.
func TestProbeKeys(t *testing.T) {
	u := New(withOut(probeConfig()))
	m := newModel(u)
	for _, e := range probeScript() {
		u.Handle(e)
	}
	b, _, _ := u.q.take()
	update(m, tea.WindowSizeMsg{Width: 120, Height: 40}, eventsMsg(b), keyMsg("s"))
	if m.ending != 0 {
		t.Error("s ended a probe's step")
	}
	update(m, keyMsg("?"))
	if v := m.View(); strings.Contains(v, "end the current step") || !strings.Contains(v, "how the agent took the turn") {
		t.Errorf("probe help:\n%s", v)
	}
}

// Barge-in and idle are one step of calls: the table counts them as they finish.
func TestProbeScriptModes(t *testing.T) {
	cfg := probeConfig()
	cfg.Probe = &Probe{Mode: ProbeBargeIn, Conversations: 2, What: "barge-in 500ms into the reply"}
	u := New(withOut(cfg))
	m := newModel(u)
	s := scenarios.StepSchedule{N: 2}
	tr := probeTurn(0, 0, 0, "seven one three four five")
	tr.Pause = nil
	b := batch{events: []scenarios.Event{{Kind: scenarios.EventStepStart, At: t0, Step: s}, {Kind: scenarios.EventTurn, At: t0, Turn: tr}},
		states: map[int]callers.State{0: callers.StateDone, 1: callers.StateSpeaking}}
	update(m, tea.WindowSizeMsg{Width: 120, Height: 40}, eventsMsg(b))
	flat := strings.Join(strings.Fields(m.View()), " ")
	for _, want := range []string{"barge-in 500ms into the reply with 2 calls (1 up)", "1 of 2 1/1 running", "c1 ▶ speaking"} {
		if !strings.Contains(flat, want) {
			t.Errorf("frame lacks %q:\n%s", want, m.View())
		}
	}
}
