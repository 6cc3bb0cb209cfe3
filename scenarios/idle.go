package scenarios

// Idle: the caller says one phrase and then nothing. The agent's idle guard should prompt a set
// time after its reply ended and hang up a set time after the prompt; both are read from the
// call's trace and checked against the expected values.

import (
	"fmt"
	"time"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/checks"
	"github.com/callfleet/callfleet/report"
	"github.com/callfleet/callfleet/speech"
	"github.com/callfleet/callfleet/speech/pool"
	"github.com/callfleet/callfleet/wire/rtvi"
)

// Where the idle figures were read from (report.IdleCall.Source), in the order preferred.
const (
	SourceEvents = "events" // bot-started/stopped-speaking: the agent's own reply boundaries
	SourceAudio  = "audio"  // agent audio arrivals, when the agent sends nothing between replies
	SourceVoiced = "voiced" // voiced agent audio: off by the replies' leading and trailing silence
)

// IdlePlan is the idle scenario.
type IdlePlan struct {
	Conversations int
	Parallel      int
	ExpectPrompt  time.Duration // the agent's idle prompt, after its reply ended
	ExpectHangup  time.Duration // its hang-up, after the prompt ended
	Tolerance     time.Duration // verdict: each figure within this of the expected one
	PromptLength  time.Duration // the longest idle prompt expected, to bound the wait
	Seed          uint64
	FirstCall     int
	Timeouts      callers.Timeouts
}

// DefaultIdlePlan expects the bundled agent's defaults (10 s, then 20 s) within 60 ms.
func DefaultIdlePlan() IdlePlan {
	return IdlePlan{Conversations: 1, ExpectPrompt: 10 * time.Second, ExpectHangup: 20 * time.Second,
		Tolerance: 60 * time.Millisecond, PromptLength: 10 * time.Second, Timeouts: DefaultProbePlan().Timeouts}
}

// Validate reports every problem at once.
func (p IdlePlan) Validate() []error {
	var errs []error
	if p.Conversations <= 0 || p.Parallel < 0 {
		errs = append(errs, fmt.Errorf("%w: conversations %d, parallel %d: want positive counts", ErrScenario, p.Conversations, p.Parallel))
	}
	if p.ExpectPrompt <= 0 || p.ExpectHangup <= 0 || p.Tolerance <= 0 || p.PromptLength <= 0 {
		errs = append(errs, fmt.Errorf("%w: expected prompt %v, hang-up %v, tolerance %v, prompt length %v: must be positive",
			ErrScenario, p.ExpectPrompt, p.ExpectHangup, p.Tolerance, p.PromptLength))
	}
	return append(errs, timeoutErrs(p.Timeouts)...)
}

// IdleScripts is each conversation's script: one phrase (its reply transcribed, so the turn is
// judged like any other), then silence past the expected hang-up, so a guard that never fires
// ends the call too.
func IdleScripts(p IdlePlan, pl *pool.Pool) []callers.Script {
	out := make([]callers.Script, p.Conversations)
	hold := p.ExpectPrompt + p.PromptLength + p.ExpectHangup + 2*p.Tolerance + 2*time.Second
	for i := range out {
		call := p.FirstCall + i
		out[i] = callers.Script{Call: call, Seed: p.Seed, Timeouts: p.Timeouts, Hold: hold,
			Cues: []callers.Cue{{Digits: pl.Pick(speech.ForCall(p.Seed, call)).Digits, Transcribe: true}}}
	}
	return out
}

// IdleOf reads one idle call from its trace: the agent's reply to the phrase, the prompt after
// it and the hang-up after that.
func IdleOf(tr callers.Trace) report.IdleCall {
	c := report.IdleCall{Call: tr.Call, CallID: tr.CallID, Error: tr.Error}
	if len(tr.Said) == 0 {
		c.Error = first(c.Error, "the phrase was never said")
		return c
	}
	from := tr.Said[0].SpeechEnd
	spans, src := speakingFromEvents(tr, from), SourceEvents
	if len(spans) < 2 {
		spans, src = after(tr.Audio, from), SourceAudio
	}
	if len(spans) < 2 {
		spans, src = after(tr.Voiced, from), SourceVoiced
	}
	if src != SourceEvents {
		spans = joinGaps(spans, wordGap)
	}
	if len(spans) < 2 {
		c.Error = first(c.Error, "no idle prompt after the reply")
		return c
	}
	c.Source = src
	prompt := spans[1].Start - spans[0].End
	c.PromptAfter = &prompt
	if tr.Hangup == nil {
		c.Error = first(c.Error, "the agent did not hang up")
		return c
	}
	// The hang-up counts from the end of the last thing the agent said: the prompt, repeated or not.
	hang := *tr.Hangup - spans[len(spans)-1].End
	c.HangupAfter = &hang
	return c
}

// speakingFromEvents pairs bot-started and bot-stopped-speaking events after from into spans.
func speakingFromEvents(tr callers.Trace, from callers.Ms) []callers.Span {
	var out []callers.Span
	var open *callers.Ms
	for _, e := range tr.Events {
		if e.At < from {
			continue
		}
		switch e.Type {
		case rtvi.TypeBotStartedSpeaking:
			at := e.At
			open = &at
		case rtvi.TypeBotStoppedSpeaking:
			if open != nil {
				out = append(out, callers.Span{Start: *open, End: e.At})
				open = nil
			}
		}
	}
	return out
}

// after keeps the spans that start at or after from; a span that is still going at the hang-up
// (WebRTC's silence between replies) is not a reply.
func after(spans []callers.Span, from callers.Ms) []callers.Span {
	var out []callers.Span
	for _, s := range spans {
		if s.Start >= from {
			out = append(out, s)
		}
	}
	return out
}

// wordGap is the longest silence inside one reply: gaps between words join, replies stay apart.
const wordGap = callers.Ms(400)

// joinGaps joins spans less than gap apart.
func joinGaps(spans []callers.Span, gap callers.Ms) []callers.Span {
	var out []callers.Span
	for _, s := range spans {
		if n := len(out); n > 0 && s.Start-out[n-1].End < gap {
			out[n-1].End = max(out[n-1].End, s.End)
			continue
		}
		out = append(out, s)
	}
	return out
}

// SummarizeIdle sums the calls and judges each figure against the expected one.
func SummarizeIdle(p IdlePlan, calls []report.IdleCall) report.IdleSection {
	s := report.IdleSection{ExpectPrompt: callers.D(p.ExpectPrompt), ExpectHangup: callers.D(p.ExpectHangup),
		Tolerance: callers.D(p.Tolerance), Calls: calls}
	var prompts, hangups []float64
	var why []string
	for _, c := range calls {
		if c.Error != "" {
			why = append(why, fmt.Sprintf("call %d: %s", c.Call, c.Error))
		}
		if c.PromptAfter != nil {
			prompts = append(prompts, float64(*c.PromptAfter))
			why = append(why, offBy(c.Call, "idle prompt", *c.PromptAfter, s.ExpectPrompt, s.Tolerance)...)
		}
		if c.HangupAfter != nil {
			hangups = append(hangups, float64(*c.HangupAfter))
			why = append(why, offBy(c.Call, "hang-up", *c.HangupAfter, s.ExpectHangup, s.Tolerance)...)
		}
	}
	if len(calls) == 0 {
		why = append(why, "no calls")
	}
	s.Prompt, s.Hangup = checks.Summarize(prompts), checks.Summarize(hangups)
	s.Verdict = report.ScenarioVerdict{OK: len(why) == 0, Reasons: why}
	return s
}

// offBy says when got is further than tol from want.
func offBy(call int, what string, got, want, tol callers.Ms) []string {
	if d := got - want; d < -tol || d > tol {
		return []string{fmt.Sprintf("call %d: %s after %s, want %s ± %s", call, what,
			checks.FormatMs(got), checks.FormatMs(want), checks.FormatMs(tol))}
	}
	return nil
}
