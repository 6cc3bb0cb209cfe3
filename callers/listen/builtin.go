package listen

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/callfleet/callfleet/speech/stt"
)

// BuiltinConfig bounds the built-in ears; zero fields take the defaults.
type BuiltinConfig struct {
	// Decoders is how many replies are decoded at once; 0 means GOMAXPROCS. Decoding is CPU-bound,
	// so more at once would only stretch each decode, and the backlog would hide in Hearing.Time
	// instead of showing as Hearing.Wait. The Model's own pool (stt.Config.MaxDecoders) should be
	// at least this large: a decode waiting there counts in Time.
	Decoders int
	// MaxQueue bounds the replies waiting for a decoder; 0 means DefaultQueuePerSlot per decoder.
	MaxQueue int
	// MaxWait bounds a reply's wait for a decoder; 0 means DefaultMaxWait.
	MaxWait time.Duration
}

// BuiltinEars hear replies with the in-process PocketSphinx digit transcriber. A reply is
// buffered as it plays (stt.Stream: no decoder, goroutine or C memory while it does) and decoded
// in one batch when it ends, on a pooled decoder.
type BuiltinEars struct {
	m *stt.Model
	g *gate
}

var _ Ears = (*BuiltinEars)(nil)

// decodeBound is how long a built-in decode may take once it has a decoder, for Limit: it cannot
// be interrupted, a 30 s utterance costs ~0.6 s of CPU, and a low-priority thread on a saturated
// machine gets less than its share.
const decodeBound = 5 * time.Second

// NewBuiltinEars returns ears that decode with m, shared by every caller given them.
func NewBuiltinEars(m *stt.Model, cfg BuiltinConfig) *BuiltinEars {
	if cfg.Decoders <= 0 {
		cfg.Decoders = runtime.GOMAXPROCS(0)
	}
	return &BuiltinEars{m: m, g: newGate(cfg.Decoders, cfg.MaxQueue, cfg.MaxWait)}
}

// ModelEars adapts a loaded model to Ears with the default bounds (nil for a nil model: no
// caller-side transcription). Each call makes ears of their own, with their own queue and
// counters: call it once per run and share the result.
func ModelEars(m *stt.Model) Ears {
	if m == nil {
		return nil
	}
	return NewBuiltinEars(m, BuiltinConfig{})
}

// Open starts buffering one reply.
func (e *BuiltinEars) Open(ctx context.Context) (Session, error) {
	st, err := e.m.NewStream(ctx)
	if err != nil {
		return nil, fmt.Errorf("open reply decode: %w", err)
	}
	return &builtinSession{e: e, ctx: ctx, st: st}, nil
}

// Stats are the ears' counters.
func (e *BuiltinEars) Stats() EarsStats { return e.g.stats() }

// Limit is MaxWait plus the longest a decode may take.
func (e *BuiltinEars) Limit() time.Duration { return e.g.maxWait + decodeBound }

type builtinSession struct {
	e       *BuiltinEars
	ctx     context.Context
	st      *stt.Stream
	samples int
}

func (s *builtinSession) Feed(pcm []int16) {
	if s.st.Feed(pcm) == nil { // errors are sticky; Finish reports them
		s.samples += len(pcm)
	}
}

func (s *builtinSession) Finish() Hearing {
	defer s.st.Close() // frees the samples of a reply refused or given up on
	return s.e.g.hear(s.ctx, samplesDur(s.samples), s.st.Finish, builtinFailure)
}

func (s *builtinSession) Close() { s.st.Close() }

// builtinFailure names a failed built-in decode.
func builtinFailure(err error) (string, bool) {
	switch {
	case errors.Is(err, stt.ErrTooLong):
		return UnjudgedTooLong, false
	case errors.Is(err, stt.ErrClosed):
		return UnjudgedClosed, false
	}
	return UnjudgedFailed, false
}
