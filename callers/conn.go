package callers

import (
	"context"
	"time"

	"github.com/callfleet/callfleet/callers/listen"
	"github.com/callfleet/callfleet/speech/pool"
	"github.com/callfleet/callfleet/wire/rtvi"
)

// CallInfo names a call to the agent.
type CallInfo struct {
	Call   int    // index across the whole run (and across shards)
	ID     string // the call's id as the agent will know it: callSid, or pc_id once known
	Params map[string]string
}

// Conn is one dialled call's media, as the turn loop sees it. The loop calls Send or SendSilence
// exactly once per 20 ms tick from one goroutine; everything the agent sends comes out of Audio
// and Events.
type Conn interface {
	// Send sends frame i of the clip in the transport's encoded form (the pool pre-encodes it).
	Send(c *pool.Clip, i int) error
	// SendSilence sends one 20 ms frame of silence, keeping media flowing between phrases.
	SendSilence() error
	// Audio is the agent's audio as 16 kHz PCM in arrival order, each piece stamped with its
	// arrival on the caller's clock; it is closed when the call ends.
	Audio() <-chan Chunk
	// Events carries the agent's RTVI messages (server transcripts, speaking events); nil when the
	// target has no transcript channel.
	Events() <-chan rtvi.Message
	// Ready is closed once the agent is ready to talk (bot-ready, or media flowing when the
	// target sends no such event).
	Ready() <-chan struct{}
	// Played is told, once per tick, how much agent audio the caller's playout model has played;
	// Twilio echoes marks when the audio before them has played.
	Played(samples int)
	// Flush is told the agent asked to drop queued audio (Twilio clear); nil channel if never. A
	// transport that must order the drop with the audio around it (Twilio) sends a Chunk with
	// Clear set on Audio instead, and may return nil here.
	Flush() <-chan struct{}
	// Done is closed when the far end ends the call; Err then says why (nil: a clean hang-up).
	Done() <-chan struct{}
	Err() error
	// Close hangs up cleanly (Twilio stop + close, WebRTC peer connection close, WHIP DELETE).
	Close(ctx context.Context) error
	// ID is the call's id at the agent (known after Dial).
	ID() string
}

// Chunk is a piece of agent audio at 16 kHz and when it arrived.
type Chunk struct {
	PCM []int16
	At  time.Time
	// Clear says the agent asked, at At, to drop the audio queued before this chunk (Twilio
	// clear); PCM is then empty. In-band so the drop cannot overtake or trail the audio.
	Clear bool
	// Dropped is how much agent audio (16 kHz samples) the transport dropped since the chunk
	// before, because it arrived more than its MaxAhead ahead of real time (listen.Ahead) or its
	// queue was full; PCM may then be empty.
	Dropped int
}

// Dialer places calls over one transport.
type Dialer interface {
	// Name is the transport's name: "twilio" or "webrtc".
	Name() string
	// Codec is the pool form the transport sends.
	Codec() pool.Codec
	// JitterBuffer is the far end's playout delay the caller models (Twilio: none, it plays what
	// it buffered; WebRTC: a jitter buffer, 40 ms by default).
	JitterBuffer() time.Duration
	// Dial connects; it returns once media can flow (the connect mark), honouring ctx's deadline.
	Dial(ctx context.Context, info CallInfo) (Conn, error)
}

// AheadLimiter is a Dialer that says how far ahead of real time it lets agent audio arrive
// before dropping it; the caller's playout queue is bounded to match. A Dialer that does not say
// gets listen.DefaultMaxAhead.
type AheadLimiter interface {
	MaxAhead() time.Duration
}

// maxAhead is d's bound on how far ahead agent audio may run.
func maxAhead(d Dialer) time.Duration {
	if l, ok := d.(AheadLimiter); ok && l.MaxAhead() > 0 {
		return l.MaxAhead()
	}
	return listen.DefaultMaxAhead
}
