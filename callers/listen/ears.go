package listen

import (
	"context"
	"time"
)

// Ears hear the agent's replies for the caller-side check: one Session per reply, fed the
// reply's 16 kHz audio as it plays and finished when it has ended. One Ears serves every caller
// of a run (they share its decoders or request slots, its queue bound and its counters), so it
// is safe for concurrent use. Two kinds: NewBuiltinEars (PocketSphinx, in process) and
// NewOpenAIEars (an OpenAI-compatible /v1/audio/transcriptions server).
type Ears interface {
	// Open starts hearing one reply; ctx (the call's) bounds it. It fails only when ctx is done
	// or the ears are closed.
	Open(ctx context.Context) (Session, error)
	// Stats are the ears' counters since they were made.
	Stats() EarsStats
	// Limit is the longest Finish takes, queueing and decoding: past it a caller stops waiting
	// for a result and records the turn unjudged.
	Limit() time.Duration
}

// Session is one reply being heard. Feed is called from the caller's loop as the reply plays,
// then Finish once, from the reply's own goroutine; Close abandons it (after Finish, a no-op).
type Session interface {
	// Feed adds 16 kHz samples, any length; they are copied. Errors (a reply over the ears'
	// bound) are kept for Finish.
	Feed(pcm []int16)
	// Finish hears what was fed; it blocks for at most the ears' Limit.
	Finish() Hearing
	Close()
}

// Hearing is what the ears made of one reply.
type Hearing struct {
	Digits string // the digits heard; "" for none
	// Wait is how long the reply waited for a decoder (or, for a transcription server, a request
	// slot): from Finish, which the caller calls when the reply has ended and its final decode is
	// due, until a decoder took its audio. The built-in ears buffer a reply as it plays and take
	// a pooled decoder only then, so no wait at the reply's start is hidden from it.
	Wait time.Duration
	// Time is the decode's wall time once it had a decoder (the request's round trip): with Wait,
	// how long after the reply ended the caller had its result. Decoding runs at low priority, so
	// a saturated machine stretches it.
	Time time.Duration
	// Unjudged says why the ears could not hear the reply (a Unjudged* constant, or
	// "stt server: ..."): the generator's shortfall, never the agent's; Err has the detail.
	Unjudged string
	// Err is why hearing failed; with Unjudged empty it is the call's end (ctx), not a failure.
	Err error
}

// Why a reply went unheard, as Turn.Unjudged records it. A transcription server's failures read
// "stt server: " and what failed ("timeout", "500 Internal Server Error", "bad response").
const (
	UnjudgedQueueFull = "decode queue full" // more replies were waiting for a decoder than the ears' MaxQueue
	UnjudgedTimeout   = "decode timeout"    // no decoder (or no result) within the ears' bound
	UnjudgedFailed    = "decode failed"     // the decoder failed
	UnjudgedTooLong   = "reply too long to decode"
	UnjudgedClosed    = "ears closed" // the ears were closed while callers still ran
)

// Defaults of the queue bound every Ears applies.
const (
	// DefaultMaxWait bounds a reply's wait for a decoder: past it the turn is unjudged.
	DefaultMaxWait = 10 * time.Second
	// DefaultQueuePerSlot bounds the replies waiting, per decoder or request slot; a reply
	// arriving beyond it is refused at once. A built-in decode of a 4–5 digit reply takes about
	// 45 ms of CPU (BenchmarkTick in callers/twilio), so a full queue is about 1.5 s of backlog:
	// bursts of replies ending together pass, a machine that cannot keep up sheds load promptly
	// rather than answering every turn 10 s late.
	DefaultQueuePerSlot = 32
)
