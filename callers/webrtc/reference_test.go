package webrtc

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/callers/listen"
	"github.com/callfleet/callfleet/internal/agenttest"
	"github.com/callfleet/callfleet/speech"
	"github.com/callfleet/callfleet/speech/pool"
	"github.com/callfleet/callfleet/speech/stt"
	"github.com/callfleet/callfleet/speech/tts"
)

// turnSink keeps the turns a caller reports.
type turnSink struct {
	mu    sync.Mutex
	turns []callers.Turn
}

func (s *turnSink) Turn(t callers.Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns = append(s.turns, t)
}
func (s *turnSink) Call(callers.CallResult)  {}
func (s *turnSink) State(int, callers.State) {}

// TestReferenceAgentThreeWitnesses calls the reference agent, mounted in process, over WebRTC:
// each turn has the three witnesses, the agent's transcript of the phrase, its own text for the
// reply (RTVI bot-output on the data channel) and the caller's transcription of the reply
// audio, with the ears' timing.
func TestReferenceAgentThreeWitnesses(t *testing.T) {
	cfg := stt.DefaultConfig()
	cfg.MaxDecoders = max(2, runtime.GOMAXPROCS(0))
	model, err := stt.Load(cfg)
	if err != nil {
		t.Fatalf("the PocketSphinx model (run `make deps`): %v", err)
	}
	defer model.Close()
	callerVoice, err := tts.ByName(speech.DefaultCallerVoice)
	if err != nil {
		t.Fatal(err)
	}
	p, err := pool.Build(context.Background(), pool.VoiceSource{Voice: callerVoice},
		pool.Options{Size: 6, Seed: 9, Codecs: []pool.Codec{pool.CodecOpus}, LeadIn: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	hs, stop := agenttest.Serve(t, model)
	defer stop()
	d := newTestDialer(t, Config{URL: hs.URL + "/api/offer"})
	ears := listen.ModelEars(model)
	s := &turnSink{}
	plan := callers.Plan{Call: 1, Seed: 4, Until: time.Now().Add(time.Minute), MaxTurns: 2,
		PauseMin: 300 * time.Millisecond, PauseMax: 500 * time.Millisecond}
	res := callers.Run(testCtx(t, time.Minute), d, p, plan, s, ears)
	s.mu.Lock()
	turns := s.turns
	s.mu.Unlock()
	if res.EndedBy != callers.EndedByCaller || len(turns) != 2 {
		t.Fatalf("call %+v, %d turns", res, len(turns))
	}
	for _, tr := range turns {
		said := speech.Normalize(strings.Join(tr.AgentText, " "))
		if said != tr.Phrase || len(tr.ServerTranscripts) != 1 || speech.Normalize(tr.ServerTranscripts[0]) != tr.Phrase {
			t.Errorf("turn %d %q: agent said %q (%q), heard by the agent %q", tr.Turn, tr.Phrase, said, tr.AgentText, tr.ServerTranscripts)
		}
		if tr.Heard != tr.Phrase || tr.Unjudged != "" || tr.Error != "" || tr.DecodeTime <= 0 {
			t.Errorf("turn %d %q: heard %q, unjudged %q, error %q, decode wait %v time %v",
				tr.Turn, tr.Phrase, tr.Heard, tr.Unjudged, tr.Error, tr.DecodeWait, tr.DecodeTime)
		}
	}
	if st := ears.Stats(); st.Heard != 2 || st.Requests != 2 || st.DecodeTime <= 0 {
		t.Errorf("ears stats %+v", st)
	}
}
