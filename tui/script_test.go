package tui

import (
	"time"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/scenarios"
)

// t0 is the scripted run's start; every event and the clock are fixed offsets from it.
var t0 = time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)

func scriptPlan() scenarios.Plan {
	p := scenarios.DefaultPlan()
	p.Steps, p.Ramp, p.Warmup, p.Duration, p.Seed = []int{2, 4, 8}, 2*time.Second, 2*time.Second, 16*time.Second, 2026
	return p
}

func scriptConfig() Config {
	return Config{Target: "ws://127.0.0.1:8765/twilio/ws", Transport: "twilio", Plan: scriptPlan(),
		Now: func() time.Time { return t0.Add(31 * time.Second) }}
}

func ms(v float64) *callers.Ms { m := callers.Ms(v); return &m }

// turn is one scripted turn: said the phrase, the agent's transcript and reply as given, with a
// speech_end_to_reply of e2r ms (0: no reply at all).
type turnSpec struct {
	call, step, n int
	at            time.Duration // when it finished, from t0
	heard, server string
	e2r           float64
	underruns     int
	lateness      float64
}

func (s turnSpec) turn() callers.Turn {
	t := callers.Turn{Schema: callers.Schema, Call: s.call, Step: s.step, Turn: s.n, Transport: "twilio",
		Phrase: "seven. one. three. four.", Wall: t0.Add(s.at - time.Second), TranscriptChannel: true,
		Heard: s.heard, AgentAudio: 1800, Underruns: s.underruns,
		LatenessP99: callers.Ms(s.lateness), LatenessMax: callers.Ms(2 * s.lateness)}
	t.Marks.SpeechStart, t.Marks.SpeechEnd = ms(100), ms(1500)
	if s.server != "" {
		t.ServerTranscripts = []string{s.server}
		t.Marks.Transcript = ms(1500 + s.e2r*0.7)
	}
	if s.e2r > 0 {
		t.Marks.ReplyStart = ms(1500 + s.e2r)
		t.Replies = 1
	} else {
		t.Error = "timeout: no reply audio within 8s"
		t.AgentAudio = 0
	}
	return t
}

var step1Turns = []turnSpec{
	{call: 0, step: 0, n: 0, at: 5 * time.Second, heard: "7134", server: "7134", e2r: 812, lateness: 1.2},
	{call: 1, step: 0, n: 0, at: 6 * time.Second, heard: "7134", server: "7134", e2r: 798, lateness: 1.4},
	{call: 0, step: 0, n: 1, at: 9 * time.Second, heard: "7134", server: "7134", e2r: 845, lateness: 1.1},
	{call: 1, step: 0, n: 1, at: 10 * time.Second, heard: "7134", server: "7134", e2r: 901, lateness: 1.3},
	{call: 0, step: 0, n: 2, at: 13 * time.Second, heard: "7134", server: "7134", e2r: 830, lateness: 1.2},
	{call: 1, step: 0, n: 2, at: 14 * time.Second, heard: "7134", server: "7134", e2r: 870, lateness: 1.0},
	{call: 0, step: 0, n: 3, at: 17 * time.Second, heard: "7134", server: "7134", e2r: 822, lateness: 1.5},
}

var step2Turns = []turnSpec{
	{call: 2, step: 1, n: 0, at: 25 * time.Second, heard: "7134", server: "7134", e2r: 950, lateness: 2.1},
	{call: 3, step: 1, n: 0, at: 26 * time.Second, heard: "seven one three", server: "7134", e2r: 1210, underruns: 1, lateness: 2.4},
	{call: 4, step: 1, n: 0, at: 27 * time.Second, heard: "7134", server: "7134", e2r: 1030, lateness: 2.2},
	{call: 5, step: 1, n: 0, at: 28 * time.Second, heard: "", server: "", e2r: 0, lateness: 2.0},
	{call: 2, step: 1, n: 1, at: 29 * time.Second, heard: "7134", server: "7134", e2r: 990, lateness: 2.3},
	{call: 3, step: 1, n: 1, at: 31 * time.Second, heard: "7134", server: "7134", e2r: 1400, lateness: 2.6},
}

// script is a run two steps into a three-step plan: step 1 finished and ok, step 2 eleven
// seconds in with two failures.
func script() []scenarios.Event {
	sched := scenarios.Schedule(scriptPlan())
	var ev []scenarios.Event
	state := func(at time.Duration, call int, s callers.State) {
		ev = append(ev, scenarios.Event{Kind: scenarios.EventState, At: t0.Add(at), CallN: call, State: s})
	}
	ev = append(ev, scenarios.Event{Kind: scenarios.EventStepStart, At: t0, Step: sched[0]})
	state(0, 0, callers.StateDialing)
	state(time.Second, 1, callers.StateDialing)
	var turns1 []callers.Turn
	for _, s := range step1Turns {
		t := s.turn()
		turns1 = append(turns1, t)
		ev = append(ev, scenarios.Event{Kind: scenarios.EventTurn, At: t0.Add(s.at), Turn: t})
	}
	var calls1 []callers.CallResult
	for call := range 2 {
		state(20*time.Second, call, callers.StateDone)
		c := callers.CallResult{Schema: callers.Schema, Call: call, Transport: "twilio", Connected: true, Turns: 4 - call,
			EndedBy: "caller", Wall: t0, Connect: ms(40)}
		calls1 = append(calls1, c)
		ev = append(ev, scenarios.Event{Kind: scenarios.EventCall, At: t0.Add(20 * time.Second), Call: c})
	}
	res := scenarios.StepResult{Schedule: sched[0], Start: t0, Turns: turns1, Calls: calls1, GeneratorCPU: 0.12,
		Window: [2]time.Time{t0.Add(sched[0].Measure[0]), t0.Add(sched[0].Measure[1])}}
	// Every scripted turn counts: the window opens before the first turn began.
	res.Window[0] = t0
	ev = append(ev, scenarios.Event{Kind: scenarios.EventStepEnd, At: t0.Add(20 * time.Second), Step: sched[0], Result: &res})

	ev = append(ev, scenarios.Event{Kind: scenarios.EventStepStart, At: t0.Add(20 * time.Second), Step: sched[1]})
	for _, s := range step2Turns {
		ev = append(ev, scenarios.Event{Kind: scenarios.EventTurn, At: t0.Add(s.at), Turn: s.turn()})
	}
	state(31*time.Second, 2, callers.StateSpeaking)
	state(31*time.Second, 3, callers.StateListening)
	state(31*time.Second, 4, callers.StateWaiting)
	state(31*time.Second, 5, callers.StateFailed)
	return ev
}
