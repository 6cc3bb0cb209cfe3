package scenarios

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	agent "github.com/callfleet/callfleet/agent-under-test"
	"github.com/callfleet/callfleet/agent-under-test/llm"
	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/callers/listen"
	"github.com/callfleet/callfleet/callers/twilio"
	"github.com/callfleet/callfleet/callers/webrtc"
	"github.com/callfleet/callfleet/checks"
	"github.com/callfleet/callfleet/report"
	"github.com/callfleet/callfleet/speech"
	"github.com/callfleet/callfleet/speech/pool"
	"github.com/callfleet/callfleet/speech/stt"
	"github.com/callfleet/callfleet/speech/tts"
)

// Real ramps against the in-process reference agent, over both transports.
func TestRampAgainstReferenceAgent(t *testing.T) {
	model, err := stt.Load(stt.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	voice, err := tts.ByName(speech.DefaultAgentVoice)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := agent.New(agent.DefaultConfig(), model, llm.Repeat{}, voice, nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		hs.Close()
	}()
	callerVoice, _ := tts.ByName(speech.DefaultCallerVoice)
	rtc, err := webrtc.NewDialer(webrtc.Config{URL: hs.URL + "/api/offer"})
	if err != nil {
		t.Fatal(err)
	}
	defer rtc.Close()
	dialers := []callers.Dialer{
		&twilio.Dialer{URL: "ws" + strings.TrimPrefix(hs.URL, "http") + "/twilio/ws", EventsURL: hs.URL + "/calls/{callSid}/events"},
		rtc,
	}
	for _, d := range dialers {
		t.Run(d.Name(), func(t *testing.T) {
			p, err := pool.Build(context.Background(), pool.VoiceSource{Voice: callerVoice},
				pool.Options{Size: 16, Seed: 5, Codecs: []pool.Codec{d.Codec()}, LeadIn: 100 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			plan := DefaultPlan()
			plan.Steps, plan.Duration, plan.Ramp, plan.Warmup, plan.Seed = []int{1, 2}, 7*time.Second, time.Second, time.Second, 5
			out := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			r, err := Execute(ctx, Spec{Target: hs.URL, Dialer: d, Plan: plan, Thresholds: checks.DefaultThresholds(),
				Pool: p, STT: listen.ModelEars(model), Out: out, Scrape: hs.URL + "/metrics"})
			if err != nil {
				t.Fatal(err)
			}
			loaded, err := report.Load(filepath.Join(out, report.FileName))
			if err != nil {
				t.Fatal(err)
			}
			turns, calls, err := report.ReadJSONL(filepath.Join(out, report.TurnsFileName))
			if err != nil {
				t.Fatal(err)
			}
			if len(calls) != 3 || len(loaded.Steps) != 2 {
				t.Fatalf("%d calls, %d steps; want 3 and 2", len(calls), len(loaded.Steps))
			}
			for _, s := range r.Steps {
				if s.Turns.Total == 0 || s.Turns.Understood != s.Turns.Total {
					t.Errorf("step N=%d: %d of %d turns understood (%v)", s.N, s.Turns.Understood, s.Turns.Total, s.Failures)
				}
				if s.AgentCPUMilli == nil || s.AgentRSSMiBPerCall == nil {
					t.Errorf("step N=%d: no agent CPU/RSS from the scrape", s.N)
				}
			}
			for _, tr := range turns {
				v := checks.Turn(tr)
				e2r, ok := checks.MetricSpeechEndToReply.OfTurn(tr)
				if !v.Understood || !ok {
					t.Errorf("turn %d/%d %q: %v, heard %q, server %q", tr.Call, tr.Turn, tr.Phrase, v.Reason, tr.Heard, tr.ServerTranscripts)
					continue
				}
				// The agent waits 1.5 s of silence (less the word's fading end) before it answers.
				if d := e2r.Duration(); d < time.Second || d > 3*time.Second {
					t.Errorf("turn %d/%d: speech_end_to_reply %v", tr.Call, tr.Turn, d)
				}
				if tr.Marks.SpeechStart == nil || tr.Marks.Transcript == nil || *tr.Marks.Transcript < *tr.Marks.SpeechEnd {
					t.Errorf("turn %d/%d: marks %+v", tr.Call, tr.Turn, tr.Marks)
				}
			}
		})
	}
}
