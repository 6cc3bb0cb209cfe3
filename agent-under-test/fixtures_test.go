package agent

import (
	"context"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/callfleet/callfleet/agent-under-test/llm"
	"github.com/callfleet/callfleet/speech"
	"github.com/callfleet/callfleet/speech/pool"
	"github.com/callfleet/callfleet/speech/stt"
	"github.com/callfleet/callfleet/speech/tts"
)

// The STT model and the phrase pool are loaded once for every test of the package.
var (
	fixOnce  sync.Once
	fixModel *stt.Model
	fixPool  *pool.Pool
	fixErr   error
)

func fixtures(t testing.TB) (*stt.Model, *pool.Pool) {
	t.Helper()
	fixOnce.Do(func() {
		cfg := stt.DefaultConfig()
		cfg.MaxDecoders = 16
		if fixModel, fixErr = stt.Load(cfg); fixErr != nil {
			return
		}
		var v tts.Voice
		if v, fixErr = tts.Flite("rms"); fixErr != nil {
			return
		}
		fixPool, fixErr = pool.Build(context.Background(), pool.VoiceSource{Voice: v},
			pool.Options{Size: 8, Seed: 11, Codecs: []pool.Codec{pool.CodecMulaw, pool.CodecOpus}, LeadIn: 100 * time.Millisecond})
	})
	if fixErr != nil {
		t.Fatal(fixErr)
	}
	return fixModel, fixPool
}

// startAgent runs an agent with cfg on a loopback httptest server, speaking with the default voice.
func startAgent(t testing.TB, cfg Config) (*Server, *httptest.Server) {
	t.Helper()
	model, _ := fixtures(t)
	voice, err := tts.ByName(speech.DefaultAgentVoice)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(cfg, model, llm.Repeat{}, voice, nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		hs.Close()
	})
	return srv, hs
}
