package scenarios

import (
	"context"
	"testing"
	"time"

	"go.uber.org/goleak"

	agent "github.com/callfleet/callfleet/agent-under-test"
	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/callers/listen"
	"github.com/callfleet/callfleet/report"
	"github.com/callfleet/callfleet/speech/pool"
	"github.com/callfleet/callfleet/wire/rtvi"
)

func ms(v float64) callers.Ms { return callers.Ms(v) }

func TestBargeInOf(t *testing.T) {
	end := ms(4000)
	base := callers.Trace{Call: 2, TranscriptChannel: true,
		Said: []callers.Said{{Digits: "1234", SpeechStart: 100, SpeechEnd: 1000, Reply: 1},
			{Digits: "8135", SpeechStart: 2000, SpeechEnd: 3000, LateEnd: 3000, Reply: 2}},
		Replies: []callers.HeardReply{{Seq: 1, Start: 1500, End: &end}, {Seq: 2, Start: 5000, End: &end, Heard: "8135"}},
		Voiced:  []callers.Span{{Start: 1500, End: 1800}, {Start: 1850, End: 2060}, {Start: 5000, End: 6000}},
		Events: []callers.AgentEvent{{At: 1200, Type: rtvi.TypeUserTranscription, Text: "one two three four", Final: true},
			{At: 2050, Type: rtvi.TypeBotStoppedSpeaking},
			{At: 4500, Type: rtvi.TypeUserTranscription, Text: "eight one three five", Final: true}},
	}
	tests := []struct {
		name   string
		edit   func(*callers.Trace)
		signal string
		lat    callers.Ms
		ok     bool
	}{
		{"audio stops", nil, SignalAudio, 60, true},
		{"a clear wins", func(tr *callers.Trace) { tr.Clears = []callers.Ms{1000, 2040} }, SignalClear, 40, true},
		{"silent when talked over: the event", func(tr *callers.Trace) { tr.Voiced = tr.Voiced[:1] }, SignalEvent, 50, true},
		{"never understood", func(tr *callers.Trace) { tr.Replies[1].Heard = "8134" }, SignalAudio, 60, false},
	}
	for _, tt := range tests {
		tr := base
		tr.Replies = append([]callers.HeardReply(nil), base.Replies...)
		if tt.edit != nil {
			tt.edit(&tr)
		}
		c := BargeInOf(tr)
		if c.Signal != tt.signal || c.Latency == nil || *c.Latency != tt.lat || c.Understood != tt.ok || c.Error != "" {
			t.Errorf("%s: %+v (latency %v)", tt.name, c, c.Latency)
		}
	}
	if c := BargeInOf(callers.Trace{Said: base.Said[:1]}); c.Error == "" || c.Latency != nil {
		t.Errorf("one phrase only: %+v", c)
	}
}

func TestSummarizeBargeIn(t *testing.T) {
	l := func(v float64) *callers.Ms { m := ms(v); return &m }
	p := DefaultBargeInPlan()
	ok := SummarizeBargeIn(p, []report.BargeInCall{{Latency: l(40), Understood: true}, {Latency: l(60), Understood: true}})
	if !ok.Verdict.OK || ok.Latency.N != 2 || ok.Understood != 2 {
		t.Errorf("ok: %+v", ok)
	}
	bad := SummarizeBargeIn(p, []report.BargeInCall{{Latency: l(400)}, {}})
	if bad.Verdict.OK || len(bad.Verdict.Reasons) != 3 {
		t.Errorf("bad: %+v", bad.Verdict)
	}
}

// The reference agent stops within ~40 ms of the first voiced frame of a phrase that starts
// voiced ("eight"), and the phrase said over it is the next turn, over both transports. Twilio
// says so with a clear; over WebRTC the audio stops at the agent pacer's next 20 ms frame, so
// about 60 ms.
func TestBargeInAgainstReferenceAgent(t *testing.T) {
	fx := loadFixtures(t)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	cfg := agent.DefaultConfig()
	cfg.Pipeline.Turn.MinSilence, cfg.Pipeline.Turn.GateHold = 600*time.Millisecond, 200*time.Millisecond
	a := startAgent(t, fx, cfg)
	defer a.stop()
	for _, d := range []callers.Dialer{a.twilio(), a.webrtc()} {
		t.Run(d.Name(), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			p := DefaultBargeInPlan()
			p.Conversations, p.Interrupt, p.Seed = 2, "8135", 4
			codec := pool.CodecMulaw
			if d.Name() == "webrtc" {
				codec = pool.CodecOpus
			}
			traces := RunScripts(ctx, d, fx.pool(t, codec), listen.ModelEars(fx.model), BargeInScripts(p, fx.pool(t, codec)), 2, nil)
			var calls []report.BargeInCall
			for _, tr := range traces {
				c := BargeInOf(tr)
				t.Logf("call %d: %s over %s: stopped after %v by %s (clear %v, audio %v, event %v), next turn %v %s %s",
					c.Call, c.Interrupt, c.Interrupted, msOr(c.Latency), c.Signal, msOr(c.Clear), msOr(c.AudioStop), msOr(c.Event), c.Understood, c.Reason, c.Error)
				calls = append(calls, c)
				want, signal := callers.Ms(40), SignalClear
				if d.Name() == "webrtc" {
					want, signal = 60, SignalAudio
				}
				tol := callers.D(60 * time.Millisecond * timingSlack)
				if c.Latency == nil || *c.Latency < want-tol || *c.Latency > want+tol || c.Signal != signal {
					t.Errorf("call %d: barge-in latency %v by %s, want %v ms ± %v by %s", c.Call, msOr(c.Latency), c.Signal, want, tol, signal)
				}
			}
			s := SummarizeBargeIn(p, calls)
			if s.Understood != len(calls) {
				t.Errorf("%d of %d interrupting phrases understood as the next turn", s.Understood, len(calls))
			}
		})
	}
}

func msOr(m *callers.Ms) any {
	if m == nil {
		return "-"
	}
	return *m
}
