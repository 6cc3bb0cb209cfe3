package agent

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
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
	return serveAgent(t, cfg, nil)
}

func serveAgent(t testing.TB, cfg Config, log *slog.Logger) (*Server, *httptest.Server) {
	t.Helper()
	srv := buildAgent(t, cfg, log)
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		shutdownAgent(t, srv) // first: it ends the SSE streams hs.Close would wait for
		hs.Close()
	})
	return srv, hs
}

// logBuffer collects an agent's log lines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// lines returns the lines that contain every one of parts.
func (b *logBuffer) lines(parts ...string) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
next:
	for _, l := range strings.Split(b.buf.String(), "\n") {
		for _, p := range parts {
			if !strings.Contains(l, p) {
				continue next
			}
		}
		out = append(out, l)
	}
	return out
}

func (b *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// newAgent builds an agent with cfg (and log, if not nil) that is shut down when the test ends.
func newAgent(t testing.TB, cfg Config, log *slog.Logger) *Server {
	t.Helper()
	srv := buildAgent(t, cfg, log)
	t.Cleanup(func() { shutdownAgent(t, srv) })
	return srv
}

func shutdownAgent(t testing.TB, srv *Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Errorf("shutdown: %v", err)
	}
}

// buildAgent builds an agent with cfg, speaking with the default voice.
func buildAgent(t testing.TB, cfg Config, log *slog.Logger) *Server {
	t.Helper()
	model, _ := fixtures(t)
	voice, err := tts.ByName(speech.DefaultAgentVoice)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(cfg, model, llm.Repeat{}, voice, log)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// startAgentLog is startAgent with the agent's log collected.
func startAgentLog(t testing.TB, cfg Config) (*Server, *httptest.Server, *logBuffer) {
	t.Helper()
	lb := &logBuffer{}
	srv, hs := serveAgent(t, cfg, lb.logger())
	return srv, hs, lb
}
