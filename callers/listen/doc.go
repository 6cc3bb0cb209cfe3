// Package listen is the receiving side every caller shares, whatever the transport: a model of the
// far end's playout buffer (Playout), reply detection over what that buffer plays (Detector), and
// transcription of each reply by the caller's ears (Ears; Listener ties the three together).
//
// Ears are shared by all the callers of a run and bounded like every queue here: so many replies
// decoded at once, so many waiting for a decoder and for so long; past either bound the turn is
// unjudged, the generator's shortfall, never the agent's failure. Each reply's wait for a decoder
// and its decode time are recorded with its turn, and the ears count what became of every reply
// (EarsStats). NewBuiltinEars decodes in process with PocketSphinx; NewOpenAIEars posts each
// reply to an OpenAI-compatible transcription server.
//
// Times are on the caller's monotonic clock. Agent audio arrives in chunks of any size, stamped
// with their arrival; the far end plays it in order at real time, starting a burst at its first
// arrival plus the jitter-buffer delay (Twilio buffers whatever it is sent and plays it at once; a
// WebRTC receiver holds about 40 ms). Each played 20 ms frame is stamped with the far end's play
// time of its first sample, so reply marks do not depend on the phase of the caller's own 20 ms
// tick. The buffer running dry inside a burst is an underrun; arrival gaps are not, as long as the
// buffer had audio to cover them.
//
// The far end's buffer is bounded, as the caller's memory must be: audio arriving more than
// DefaultMaxAhead ahead of real time is dropped and counted, by the transports as it arrives
// (Ahead) and by the playout queue as a backstop (Playout.Max).
package listen

import "time"

// Audio constants of the playout model: 16 kHz mono, 20 ms frames.
const (
	Rate          = 16000
	FrameSamples  = Rate / 50
	FrameDuration = 20 * time.Millisecond
)

// samplesDur is the play time of n samples.
func samplesDur(n int) time.Duration { return time.Duration(n) * time.Second / Rate }

// durSamples is the number of samples played in d, rounded down.
func durSamples(d time.Duration) int { return int(d * Rate / time.Second) }
