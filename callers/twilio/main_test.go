package twilio

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/callers/listen"
	"github.com/callfleet/callfleet/speech/pool"
	"github.com/callfleet/callfleet/speech/stt"
	"github.com/callfleet/callfleet/speech/tts"
)

func TestMain(m *testing.M) {
	runHelper()
	code := m.Run()
	if model != nil {
		model.Close()
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutine leak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

var (
	fixOnce sync.Once
	phrases *pool.Pool
	model   *stt.Model
	ears    listen.Ears
	fixErr  error
)

// fixtures returns a small pool in flite rms (the voice the transcriber hears best through
// mu-law, so Heard is exact) and the caller's ears; both are built once per test binary.
func fixtures(t testing.TB) (*pool.Pool, listen.Ears) {
	t.Helper()
	fixOnce.Do(func() {
		v, err := tts.Flite("rms")
		if err != nil {
			fixErr = err
			return
		}
		phrases, fixErr = pool.Build(context.Background(), pool.VoiceSource{Voice: v},
			pool.Options{Size: 8, Seed: 7, Codecs: []pool.Codec{pool.CodecMulaw}})
		if fixErr != nil {
			return
		}
		// Decodes compete with the callers' real-time loops: leave them a core.
		cfg := stt.DefaultConfig()
		cfg.MaxDecoders = max(1, runtime.GOMAXPROCS(0)-1)
		if model, fixErr = stt.Load(cfg); fixErr == nil {
			ears = listen.NewBuiltinEars(model, listen.BuiltinConfig{Decoders: cfg.MaxDecoders})
		}
	})
	if fixErr != nil {
		t.Fatalf("fixtures: %v", fixErr)
	}
	return phrases, ears
}

// sink collects what a caller reports.
type sink struct {
	mu     sync.Mutex
	turns  []callers.Turn
	calls  []callers.CallResult
	states []callers.State
}

func (s *sink) Turn(t callers.Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns = append(s.turns, t)
}

func (s *sink) Call(c callers.CallResult) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, c)
}

func (s *sink) State(_ int, st callers.State) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.states = append(s.states, st)
}

func (s *sink) Turns() []callers.Turn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]callers.Turn(nil), s.turns...)
}

// ms reads a mark.
func ms(m *callers.Ms) time.Duration {
	if m == nil {
		return -1
	}
	return m.Duration()
}
