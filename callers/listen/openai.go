package listen

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/callfleet/callfleet/internal/safetext"
	"github.com/callfleet/callfleet/speech/stt"
)

// Defaults of NewOpenAIEars.
const (
	DefaultSTTConcurrency = 4
	DefaultSTTTimeout     = 15 * time.Second
)

// OpenAIEars hear replies through an OpenAI-compatible transcription server: a reply is buffered
// as it plays and posted whole, as a WAV file, when it ends.
type OpenAIEars struct {
	o       stt.OpenAI
	timeout time.Duration
	max     int // samples a reply may hold
	g       *gate
}

var _ Ears = (*OpenAIEars)(nil)

// NewOpenAIEars sends each agent reply to an OpenAI-compatible /v1/audio/transcriptions server
// (whisper.cpp's server, speaches, LocalAI; o names its URL, model and key) for the caller-side
// check, in place of the built-in transcriber: for agents whose voice that one does not hear.
// At most concurrency requests are in flight across all callers (0: DefaultSTTConcurrency); a
// reply waits for a free one up to DefaultMaxWait, beyond DefaultQueuePerSlot replies per slot
// waiting it is refused at once, and each request is given timeout (0: DefaultSTTTimeout). A
// reply the server fails to transcribe (an error status, a bad answer, a timeout) leaves its
// turn unjudged, the generator's shortfall and never the agent's failure, and is counted in
// Stats.
func NewOpenAIEars(o stt.OpenAI, concurrency int, timeout time.Duration) *OpenAIEars {
	if concurrency <= 0 {
		concurrency = DefaultSTTConcurrency
	}
	if timeout <= 0 {
		timeout = DefaultSTTTimeout
	}
	if o.Client == nil {
		// Keep a connection per request slot alive (net/http keeps 2 per host by default); the
		// per-request timeout is the context's, not the client's.
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = concurrency
		o.Client = &http.Client{Transport: t}
	}
	return &OpenAIEars{o: o, timeout: timeout, max: durSamples(stt.DefaultMaxUtterance),
		g: newGate(concurrency, 0, 0)}
}

// Open starts buffering one reply.
func (e *OpenAIEars) Open(ctx context.Context) (Session, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &openAISession{e: e, ctx: ctx}, nil
}

// Stats are the ears' counters.
func (e *OpenAIEars) Stats() EarsStats { return e.g.stats() }

// Limit is MaxWait plus the request timeout.
func (e *OpenAIEars) Limit() time.Duration { return e.g.maxWait + e.timeout }

type openAISession struct {
	e       *OpenAIEars
	ctx     context.Context
	pcm     []int16
	tooLong bool
}

func (s *openAISession) Feed(pcm []int16) {
	if s.tooLong {
		return
	}
	if len(s.pcm)+len(pcm) > s.e.max {
		s.tooLong, s.pcm = true, nil
		return
	}
	s.pcm = append(s.pcm, pcm...)
}

func (s *openAISession) Finish() Hearing {
	pcm := s.pcm
	s.pcm = nil
	return s.e.g.hear(s.ctx, samplesDur(len(pcm)), func() (string, error) {
		if s.tooLong {
			return "", fmt.Errorf("%w: over %v", ErrReplyTooLong, stt.DefaultMaxUtterance)
		}
		ctx, cancel := context.WithTimeout(s.ctx, s.e.timeout)
		defer cancel()
		digits, err := s.e.o.Transcribe(ctx, pcm)
		if err != nil {
			return "", fmt.Errorf("%w: %w", ErrSTTServer, err)
		}
		return digits, nil
	}, serverFailure)
}

func (s *openAISession) Close() { s.pcm = nil }

// serverFailure names a failed request as Turn.Unjudged records it.
func serverFailure(err error) (string, bool) {
	var he *stt.HTTPError
	var ne net.Error
	switch {
	case errors.Is(err, ErrReplyTooLong):
		return UnjudgedTooLong, false
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "stt server: timeout", true
	case errors.As(err, &he):
		return "stt server: " + safetext.Clean(he.Status, 64), false // the status line is the server's text
	case errors.Is(err, stt.ErrBadResponse):
		return "stt server: bad response", false
	}
	return "stt server: request failed", false
}
