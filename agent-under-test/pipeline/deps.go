package pipeline

import (
	"errors"
	"log/slog"
	"time"

	"github.com/callfleet/callfleet/agent-under-test/llm"
	"github.com/callfleet/callfleet/agent-under-test/turn"
	"github.com/callfleet/callfleet/internal/frameclock"
	"github.com/callfleet/callfleet/speech/stt"
	"github.com/callfleet/callfleet/speech/tts"
	"github.com/callfleet/callfleet/wire/rtvi"
)

// Rate is the pipeline's sample rate; FrameSamples one 20 ms frame of it.
const (
	Rate         = 16000
	FrameSamples = Rate / 50
	FrameTime    = 20 * time.Millisecond
)

// Output is how a transport plays the agent's voice.
type Output interface {
	// Send plays one 20 ms frame (320 samples at 16 kHz), or silence when frame is nil. The pacer
	// calls it every 20 ms for the whole call, from one goroutine.
	Send(frame []int16) error
	// Clear drops agent audio the far end still holds (barge-in; Twilio "clear"). It is called from
	// the inbound goroutine, concurrently with Send.
	Clear() error
	// EndOfReply says a reply's last frame was sent (Twilio "mark").
	EndOfReply(name string) error
}

// Leader is an Output whose far end buffers what it is sent and plays it in order, and drops it on
// Clear (Twilio). The pacer keeps Lead frames of a reply queued there, so a stall of the agent,
// the host or the network shorter than Lead × 20 ms is not heard as a gap.
type Leader interface {
	Lead() int
}

// Events receives the call's RTVI messages (data channel, SSE).
type Events interface {
	Publish(m rtvi.Message)
}

// Recorder keeps the call's audio: the caller's frames as they arrive, the agent's as they are sent.
type Recorder interface {
	Caller(frame []int16)
	Agent(frame []int16)
}

// Observer is told stage timings for metrics; every method must be cheap and non-blocking.
type Observer interface {
	Turn(endOfTurnToTranscript, transcriptToFirstAudio time.Duration)
	BargeIn()
	IdlePrompt()
	IdleHangup()
}

// Config holds the per-call settings.
type Config struct {
	Turn       turn.Config
	IdlePrompt time.Duration // silence before "are you still there?"; 0 disables the guard
	IdleHangup time.Duration // further silence after the prompt before the agent hangs up
	IdleText   string
	Greeting   string        // said when the call starts; "" for none
	MaxTurn    time.Duration // longest turn audio kept for the transcriber
	// Echo replies with the caller's own speech instead of STT → LLM → TTS: a near-free agent for
	// measuring a caller fleet's own cost (the caller's transcription still checks the reply).
	Echo bool
}

// DefaultConfig matches the seeds' default agent.
func DefaultConfig() Config {
	return Config{
		Turn:       turn.DefaultConfig(),
		IdlePrompt: 10 * time.Second,
		IdleHangup: 20 * time.Second,
		IdleText:   "are you still there?",
		MaxTurn:    30 * time.Second,
	}
}

// Deps are the process-wide stages every call shares.
type Deps struct {
	STT      *stt.Model
	LLM      llm.LLM
	Voice    tts.Voice
	Observer Observer
	Log      *slog.Logger
	// IdleAudio is the idle prompt rendered once at 16 kHz (its text never changes), so the
	// prompt starts on time instead of after a synthesis; nil synthesises it per call.
	IdleAudio []int16
	// Clock paces every call's sender; nil means the process-wide FrameTime clock.
	Clock *frameclock.Clock
}

// sharedClock paces the calls of a process that set no Deps.Clock: one wake-up per frame for all
// calls instead of one per call (package frameclock).
var sharedClock = frameclock.New(FrameTime)

// ErrIdle is the reason a call ends when the idle guard hangs up.
var ErrIdle = errors.New("caller silent past the idle guard")

type nopObserver struct{}

func (nopObserver) Turn(time.Duration, time.Duration) {}
func (nopObserver) BargeIn()                          {}
func (nopObserver) IdlePrompt()                       {}
func (nopObserver) IdleHangup()                       {}
