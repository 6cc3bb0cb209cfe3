package scenarios

// Barge-in: the caller talks over the agent's reply, Offset into it. What the agent did is read
// from the call's trace: when its audio stopped arriving (or a Twilio clear came), and whether
// the interrupting phrase became the next understood turn.

import (
	"context"
	"fmt"
	"time"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/callers/listen"
	"github.com/callfleet/callfleet/checks"
	"github.com/callfleet/callfleet/report"
	"github.com/callfleet/callfleet/speech"
	"github.com/callfleet/callfleet/speech/pool"
	"github.com/callfleet/callfleet/wire/rtvi"
)

// How a barge-in's stop was seen (report.BargeInCall.Signal), in the order they are preferred.
const (
	SignalClear = "clear" // a Twilio clear: the far end drops what it buffered
	SignalAudio = "audio" // the agent's voiced audio stopped arriving
	SignalEvent = "event" // bot-stopped-speaking, when the agent was between words
)

// BargeInPlan is the barge-in scenario.
type BargeInPlan struct {
	Conversations int
	Parallel      int           // calls at once (0: Conversations)
	Offset        time.Duration // into the reply (as played), when the interrupting phrase's first voiced sample goes out
	Interrupt     string        // the interrupting phrase; "" draws one per call
	MaxP95        time.Duration // verdict: p95 barge-in latency at most this
	Seed          uint64
	FirstCall     int
	Timeouts      callers.Timeouts
}

// DefaultBargeInPlan talks 500 ms into the reply and allows a 300 ms p95.
func DefaultBargeInPlan() BargeInPlan {
	return BargeInPlan{Conversations: 4, Offset: 500 * time.Millisecond, MaxP95: 300 * time.Millisecond,
		Timeouts: DefaultProbePlan().Timeouts}
}

// Validate reports every problem at once.
func (p BargeInPlan) Validate() []error {
	var errs []error
	if p.Conversations <= 0 || p.Parallel < 0 {
		errs = append(errs, fmt.Errorf("%w: conversations %d, parallel %d: want positive counts", ErrScenario, p.Conversations, p.Parallel))
	}
	if p.Offset <= 0 || p.MaxP95 <= 0 {
		errs = append(errs, fmt.Errorf("%w: offset %v, max p95 %v: must be positive", ErrScenario, p.Offset, p.MaxP95))
	}
	if p.Interrupt != "" && speech.Normalize(p.Interrupt) != p.Interrupt {
		errs = append(errs, fmt.Errorf("%w: interrupt %q: want %d to %d digits", ErrScenario, p.Interrupt, speech.MinDigits, speech.MaxDigits))
	}
	return append(errs, timeoutErrs(p.Timeouts)...)
}

// BargeInScripts is each conversation's script: a phrase, then another over its reply. Phrases
// come from the call's own generator, so a call's phrases follow from the seed. Both replies are
// transcribed, as a ramp's are: turns.jsonl then says what got through before the agent stopped.
func BargeInScripts(p BargeInPlan, pl *pool.Pool) []callers.Script {
	out := make([]callers.Script, p.Conversations)
	for i := range out {
		call := p.FirstCall + i
		ph := speech.ForCall(p.Seed, call)
		first, second := pl.Pick(ph).Digits, pl.Pick(ph).Digits
		if p.Interrupt != "" {
			second = p.Interrupt
		}
		out[i] = callers.Script{Call: call, Seed: p.Seed, Timeouts: p.Timeouts, Cues: []callers.Cue{
			{Digits: first, Transcribe: true}, {Digits: second, BargeIn: p.Offset, Transcribe: true}}}
	}
	return out
}

// RunScripts places scripted calls, at most parallel at once, filing each trace with rec as it
// finishes (rec may be nil); the traces come back in script order. rec's outputs see the calls
// as one step, each call dialing until its trace is filed, then done or failed.
func RunScripts(ctx context.Context, d callers.Dialer, pl *pool.Pool, tr listen.Ears, scripts []callers.Script,
	parallel int, rec *Recorder) []callers.Trace {
	out := make([]callers.Trace, len(scripts))
	var h Hooks
	if rec != nil {
		h = rec.Hooks()
	}
	sched := StepSchedule{N: len(scripts)}
	if len(scripts) > 0 {
		sched.FirstCall = scripts[0].Call
	}
	start := time.Now()
	if h.StepStart != nil {
		h.StepStart(sched, start)
	}
	forEach(ctx, len(scripts), parallel, func(i int) {
		if h.Sink != nil {
			h.Sink.State(scripts[i].Call, callers.StateDialing)
		}
		out[i] = callers.RunScript(ctx, d, pl, scripts[i], tr)
		if rec != nil {
			rec.Trace(out[i])
			state := callers.StateDone
			if out[i].EndedBy != callers.EndedByCaller && out[i].EndedBy != callers.EndedByAgent {
				state = callers.StateFailed
			}
			h.Sink.State(scripts[i].Call, state)
		}
	})
	if h.StepEnd != nil {
		r := StepResult{Schedule: sched, Start: start, Window: [2]time.Time{start, time.Now()}, Stopped: ctx.Err() != nil}
		for _, t := range out {
			if t.Schema != 0 { // a script that never ran has no trace
				r.Turns, r.Calls = append(r.Turns, t.Turns()...), append(r.Calls, t.Result())
			}
		}
		h.StepEnd(r)
	}
	return out
}

// BargeInOf reads one barge-in call from its trace.
func BargeInOf(tr callers.Trace) report.BargeInCall {
	c := report.BargeInCall{Call: tr.Call, CallID: tr.CallID, Error: tr.Error, Reason: checks.ReasonError.String()}
	if len(tr.Said) > 0 {
		c.Interrupted = tr.Said[0].Digits
	}
	if len(tr.Said) < 2 {
		c.Error = first(c.Error, "the interrupting phrase was never said")
		return c
	}
	c.Interrupt = tr.Said[1].Digits
	turns := tr.Turns()
	v := checks.Turn(turns[1])
	c.Understood, c.Reason = v.Understood, v.Reason.String()
	start := tr.Said[1].SpeechStart
	reply, ok := tr.ReplyBySeq(tr.Said[0].Reply)
	if !ok || reply.Start > start {
		c.Error = first(c.Error, "no reply to talk over")
		return c
	}
	after := func(at callers.Ms) *callers.Ms { d := at - start; return &d }
	for _, at := range tr.Clears {
		if at >= start {
			c.Clear = after(at)
			break
		}
	}
	if ev := tr.EventsOf(rtvi.TypeBotStoppedSpeaking, start); len(ev) > 0 {
		c.Event = after(ev[0])
	}
	if end, ok := audioStop(tr.Voiced, start, tr.Said[1].SpeechEnd); ok {
		c.AudioStop = after(end)
	}
	switch {
	case c.Clear != nil:
		c.Latency, c.Signal = c.Clear, SignalClear
	case c.AudioStop != nil:
		c.Latency, c.Signal = c.AudioStop, SignalAudio
	case c.Event != nil:
		c.Latency, c.Signal = c.Event, SignalEvent
	}
	return c
}

// audioStop is when the agent's voiced audio stopped arriving after from: the end of the last
// voiced stretch that began before until (the interrupting phrase's end, before which no reply
// to it can start). False when the agent was already silent at from.
func audioStop(voiced []callers.Span, from, until callers.Ms) (callers.Ms, bool) {
	var end callers.Ms
	found := false
	for _, s := range voiced {
		if s.Start < until {
			end, found = s.End, true
		}
	}
	if !found || end <= from {
		return 0, false
	}
	return end, true
}

func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// SummarizeBargeIn sums the calls and judges them: every call measured, p95 latency within the
// plan's limit, every interrupting phrase understood as the next turn.
func SummarizeBargeIn(p BargeInPlan, calls []report.BargeInCall) report.BargeInSection {
	s := report.BargeInSection{Offset: callers.D(p.Offset), MaxP95: callers.D(p.MaxP95), Calls: calls}
	var lat []float64
	var why []string
	unmeasured := 0
	for _, c := range calls {
		if c.Latency != nil {
			lat = append(lat, float64(*c.Latency))
		} else {
			unmeasured++
		}
		if c.Understood {
			s.Understood++
		}
	}
	s.Latency = checks.Summarize(lat)
	if len(calls) == 0 {
		why = append(why, "no calls")
	}
	if unmeasured > 0 {
		why = append(why, fmt.Sprintf("%d of %d calls: no barge-in measured (no reply to talk over, or the agent never stopped)", unmeasured, len(calls)))
	}
	if s.Latency.N > 0 && s.Latency.P95 > s.MaxP95 {
		why = append(why, fmt.Sprintf("p95 barge-in latency %s > %s", checks.FormatMs(s.Latency.P95), checks.FormatMs(s.MaxP95)))
	}
	if n := len(calls) - s.Understood; n > 0 && len(calls) > 0 {
		why = append(why, fmt.Sprintf("%d of %d interrupting phrases were not the next understood turn", n, len(calls)))
	}
	s.Verdict = report.ScenarioVerdict{OK: len(why) == 0, Reasons: why}
	return s
}
