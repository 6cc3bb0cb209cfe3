package scenarios

import (
	"context"
	"testing"
	"time"

	"go.uber.org/goleak"

	agent "github.com/callfleet/callfleet/agent-under-test"
	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/report"
	"github.com/callfleet/callfleet/speech/pool"
	"github.com/callfleet/callfleet/wire/rtvi"
)

func TestIdleOf(t *testing.T) {
	hang := ms(9000)
	ev := func(at float64, typ string) callers.AgentEvent { return callers.AgentEvent{At: ms(at), Type: typ} }
	base := callers.Trace{Call: 1, Hangup: &hang,
		Said: []callers.Said{{Digits: "1234", SpeechStart: 100, SpeechEnd: 1000, Reply: 1}},
		Events: []callers.AgentEvent{ev(2000, rtvi.TypeBotStartedSpeaking), ev(4000, rtvi.TypeBotStoppedSpeaking),
			ev(5010, rtvi.TypeBotStartedSpeaking), ev(6500, rtvi.TypeBotStoppedSpeaking)},
		Audio:  []callers.Span{{Start: 2000, End: 4000}, {Start: 5000, End: 6500}},
		Voiced: []callers.Span{{Start: 2100, End: 2500}, {Start: 2700, End: 3800}, {Start: 5200, End: 6300}},
	}
	tests := []struct {
		name           string
		edit           func(*callers.Trace)
		src            string
		prompt, hangup callers.Ms
	}{
		{"events", nil, SourceEvents, 1010, 2500},
		{"audio without events", func(tr *callers.Trace) { tr.Events = nil }, SourceAudio, 1000, 2500},
		{"voiced when audio never stops", func(tr *callers.Trace) { tr.Events, tr.Audio = nil, []callers.Span{{Start: 0, End: 9000}} },
			SourceVoiced, 1400, 2700},
	}
	for _, tt := range tests {
		tr := base
		if tt.edit != nil {
			tt.edit(&tr)
		}
		c := IdleOf(tr)
		if c.Source != tt.src || c.PromptAfter == nil || *c.PromptAfter != tt.prompt || c.HangupAfter == nil || *c.HangupAfter != tt.hangup {
			t.Errorf("%s: %+v prompt %v hang-up %v", tt.name, c, msOr(c.PromptAfter), msOr(c.HangupAfter))
		}
	}
	tr := base
	tr.Hangup = nil
	if c := IdleOf(tr); c.Error == "" || c.HangupAfter != nil {
		t.Errorf("no hang-up: %+v", c)
	}
	s := SummarizeIdle(IdlePlan{ExpectPrompt: time.Second, ExpectHangup: 2500 * time.Millisecond, Tolerance: 60 * time.Millisecond},
		[]report.IdleCall{IdleOf(base), IdleOf(tr)})
	if s.Verdict.OK || len(s.Verdict.Reasons) != 1 || s.Prompt.N != 2 || s.Hangup.N != 1 {
		t.Errorf("summary %+v", s)
	}
}

// The reference agent prompts IdlePrompt after its reply and hangs up IdleHangup after the
// prompt, within a frame, over both transports.
func TestIdleAgainstReferenceAgent(t *testing.T) {
	fx := loadFixtures(t)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	cfg := agent.DefaultConfig()
	cfg.Pipeline.Turn.MinSilence, cfg.Pipeline.Turn.GateHold = 600*time.Millisecond, 200*time.Millisecond
	cfg.Pipeline.IdlePrompt, cfg.Pipeline.IdleHangup = time.Second, time.Second
	a := startAgent(t, fx, cfg)
	defer a.stop()
	for _, d := range []callers.Dialer{a.twilio(), a.webrtc()} {
		t.Run(d.Name(), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			p := DefaultIdlePlan()
			p.Conversations, p.ExpectPrompt, p.ExpectHangup, p.Seed = 2, time.Second, time.Second, 6
			p.Tolerance = 60 * time.Millisecond * timingSlack // the issue's ±60 ms, widened only under -race
			codec := pool.CodecMulaw
			if d.Name() == "webrtc" {
				codec = pool.CodecOpus
			}
			pl := fx.pool(t, codec)
			var calls []report.IdleCall
			for _, tr := range RunScripts(ctx, d, pl, nil, IdleScripts(p, pl), 2, nil) {
				c := IdleOf(tr)
				t.Logf("call %d: prompt %v after the reply, hang-up %v after the prompt (%s) %s",
					c.Call, msOr(c.PromptAfter), msOr(c.HangupAfter), c.Source, c.Error)
				calls = append(calls, c)
				if tol := callers.D(60 * time.Millisecond * timingSlack); c.PromptAfter == nil || *c.PromptAfter < 1000-tol || *c.PromptAfter > 1000+tol {
					t.Errorf("call %d: idle prompt %v after the reply, want 1 s ± %v", c.Call, msOr(c.PromptAfter), tol)
				}
			}
			if s := SummarizeIdle(p, calls); !s.Verdict.OK || s.Prompt.N != len(calls) || s.Hangup.N != len(calls) {
				t.Errorf("idle verdict: %v", s.Verdict.Reasons)
			}
		})
	}
}
