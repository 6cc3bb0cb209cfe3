// Package agenttest mounts the reference agent in process for other packages' tests: the default
// settings, the repeat "LLM" and the default agent voice, on a loopback httptest server.
package agenttest

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	reference "github.com/callfleet/callfleet/agent-under-test"
	"github.com/callfleet/callfleet/agent-under-test/llm"
	"github.com/callfleet/callfleet/speech"
	"github.com/callfleet/callfleet/speech/stt"
	"github.com/callfleet/callfleet/speech/tts"
)

// Serve starts the reference agent hearing with model. stop shuts the agent down first (it ends
// the SSE streams the server's Close would wait for), then the server; call it before closing
// model, since the agent's calls decode with it until then.
func Serve(t testing.TB, model *stt.Model) (hs *httptest.Server, stop func()) {
	t.Helper()
	voice, err := tts.ByName(speech.DefaultAgentVoice)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := reference.New(reference.DefaultConfig(), model, llm.Repeat{}, voice, nil)
	if err != nil {
		t.Fatal(err)
	}
	hs = httptest.NewServer(srv)
	return hs, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Error(err)
		}
		hs.Close()
	}
}
