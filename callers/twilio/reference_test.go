package twilio

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/internal/agenttest"
	"github.com/callfleet/callfleet/speech"
)

// TestReferenceAgentThreeWitnesses calls the reference agent, mounted in process, over Twilio
// Media Streams with its SSE events: each turn has the three witnesses, the agent's transcript
// of the phrase, its own text for the reply (RTVI bot-output on the events stream) and the
// caller's transcription of the reply audio, with the ears' timing.
func TestReferenceAgentThreeWitnesses(t *testing.T) {
	p, ears := fixtures(t)
	hs, stop := agenttest.Serve(t, model)
	defer stop()
	d := &Dialer{URL: "ws" + strings.TrimPrefix(hs.URL, "http") + "/twilio/ws", EventsURL: hs.URL + "/calls/{callSid}/events"}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s := &sink{}
	plan := callers.Plan{Call: 1, Seed: 3, Until: time.Now().Add(time.Minute), MaxTurns: 2,
		PauseMin: 300 * time.Millisecond, PauseMax: 500 * time.Millisecond}
	res := callers.Run(ctx, d, p, plan, s, ears)
	turns := s.Turns()
	if res.EndedBy != callers.EndedByCaller || len(turns) != 2 {
		t.Fatalf("call %+v, %d turns", res, len(turns))
	}
	for _, tr := range turns {
		said := speech.Normalize(strings.Join(tr.AgentText, " "))
		if said != tr.Phrase || len(tr.ServerTranscripts) != 1 || speech.Normalize(tr.ServerTranscripts[0]) != tr.Phrase {
			t.Errorf("turn %d %q: agent said %q (%q), heard by the agent %q", tr.Turn, tr.Phrase, said, tr.AgentText, tr.ServerTranscripts)
		}
		if tr.Heard != tr.Phrase || tr.Unjudged != "" || tr.Error != "" || tr.DecodeTime <= 0 || tr.DecodeWait < 0 {
			t.Errorf("turn %d %q: heard %q, unjudged %q, error %q, decode wait %v time %v",
				tr.Turn, tr.Phrase, tr.Heard, tr.Unjudged, tr.Error, tr.DecodeWait, tr.DecodeTime)
		}
	}
	if st := ears.Stats(); st.Heard < 2 || st.DecodeTime <= 0 || st.Audio <= 0 {
		t.Errorf("ears stats %+v", st)
	}
}
