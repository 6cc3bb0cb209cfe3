package listen

import "time"

// DefaultMaxAhead is how far ahead of real time agent audio may arrive before the excess is
// dropped. A far end buffers what it is sent and plays it in order (Twilio plays whatever the
// agent queues), so an agent may well send a whole reply at once; but one that sends faster than
// real time without end would grow the caller's memory without bound, and a person on the line
// would never hear audio queued minutes ahead anyway.
const DefaultMaxAhead = 5 * time.Second

// Ahead models how far an agent's audio has run ahead of real time as it arrives, the way a far
// end's buffer fills: each arrival adds its length, real time drains it. Transports use it to drop
// audio at ingestion, before it is decoded into a queue; the zero value uses DefaultMaxAhead. It is
// not safe for concurrent use.
type Ahead struct {
	Max time.Duration // how far ahead audio may run; 0 means DefaultMaxAhead

	level int       // samples ahead of real time at last
	last  time.Time // when level was last drained to
}

// Admit reports how many of n samples (16 kHz) arriving at at fit within Max; the caller drops
// the rest, from the end. Audio is admitted a frame at least at a time (or the whole of a shorter
// piece), so a flood does not trickle through as one-sample crumbs.
func (a *Ahead) Admit(n int, at time.Time) int {
	if n <= 0 {
		return 0
	}
	switch d := durSamples(at.Sub(a.last)); {
	case a.last.IsZero() || d >= a.level:
		a.level, a.last = 0, at
	case d > 0: // drain whole samples and keep the remainder, so frequent arrivals lose nothing
		a.level -= d
		a.last = a.last.Add(samplesDur(d))
	}
	limit := durSamples(a.Max)
	if a.Max <= 0 {
		limit = durSamples(DefaultMaxAhead)
	}
	keep := min(n, limit-a.level)
	if keep < min(n, FrameSamples) {
		return 0
	}
	a.level += keep
	return keep
}

// Reset empties the modelled buffer: the agent asked the far end to drop what it queued (Twilio
// clear).
func (a *Ahead) Reset() { a.level = 0 }
