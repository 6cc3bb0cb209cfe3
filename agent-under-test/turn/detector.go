package turn

import (
	"fmt"
	"math"
	"time"
)

// Detector defaults and limits; see Config.
const (
	DefaultMinSilence  = 1100 * time.Millisecond
	DefaultGateHold    = 400 * time.Millisecond
	DefaultOnsetFrames = 2
	DefaultFringe      = 300 * time.Millisecond
	// MaxOnsetFrames (500 ms) bounds the debounce; more would make barge-in useless.
	MaxOnsetFrames = 25
)

// Config sets the end-of-turn logic; start from DefaultConfig. Durations are taken as given (0 is
// meaningful: no hold, no fringe) and round up to whole frames; see the package doc.
type Config struct {
	// MinSilence is the continuous non-speech that ends speech (SpeechStopped); at least one frame.
	MinSilence time.Duration
	// GateHold is how long the turn stays open after SpeechStopped for speech to resume.
	GateHold time.Duration
	// OnsetFrames (K) is how many consecutive voiced frames make speech; 0 means DefaultOnsetFrames.
	OnsetFrames int
	// Fringe is how much unbroken Unvoiced sound right before or after voiced speech counts as
	// speech (fricatives such as the s of "six", bursts, breathy ends), at most on each side; 0
	// counts voiced frames only.
	Fringe time.Duration
	// VAD tunes the voice activity detector; zero fields are defaults.
	VAD VADConfig
}

// DefaultConfig is a production agent's setting: 1100 ms MinSilence, 400 ms GateHold, 2-frame
// onset, 300 ms fringe, default VAD.
func DefaultConfig() Config {
	return Config{MinSilence: DefaultMinSilence, GateHold: DefaultGateHold, OnsetFrames: DefaultOnsetFrames,
		Fringe: DefaultFringe}
}

// Validate reports the first invalid field.
func (c Config) Validate() error {
	if c.MinSilence < 0 {
		return fmt.Errorf("%w: MinSilence %v", ErrNegativeDuration, c.MinSilence)
	}
	if c.GateHold < 0 {
		return fmt.Errorf("%w: GateHold %v", ErrNegativeDuration, c.GateHold)
	}
	if c.Fringe < 0 {
		return fmt.Errorf("%w: Fringe %v", ErrNegativeDuration, c.Fringe)
	}
	if c.OnsetFrames < 0 || c.OnsetFrames > MaxOnsetFrames {
		return fmt.Errorf("%w: %d, want 0..%d", ErrOnsetFrames, c.OnsetFrames, MaxOnsetFrames)
	}
	return c.VAD.Validate()
}

type state uint8

const (
	idle     state = iota // between turns
	speaking              // SpeechStarted or SpeechResumed, not yet SpeechStopped
	holding               // SpeechStopped, GateHold running
)

// noFrame stands for "no such frame yet", far enough back that every distance from it is huge.
const noFrame = math.MinInt / 4

// Detector is the end-of-turn state machine over a VAD; see the package doc for its exact
// semantics. It is not safe for concurrent use; give each stream its own.
type Detector struct {
	vad               VAD
	k, ns, ng, fringe int // onset run, MinSilence, GateHold and Fringe in frames
	st                state
	next              int // index of the next frame
	vrun              int // consecutive Voiced frames ending at the last frame, capped at k
	chain             int // first frame of the current run of non-Quiet frames; next if none
	coreEnd           int // last frame of the last voiced run of k or more
	start             int // first speech frame of the current turn
	last              int // last speech frame, voiced or fringe
	lastAt            int // At of the last event, so At never goes back
}

// NewDetector validates cfg and returns a Detector at the start of a stream.
func NewDetector(cfg Config) (*Detector, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	k := cfg.OnsetFrames
	if k == 0 {
		k = DefaultOnsetFrames
	}
	d := &Detector{k: k, ns: max(1, Frames(cfg.MinSilence)), ng: Frames(cfg.GateHold), fringe: Frames(cfg.Fringe)}
	d.vad = *NewVAD(cfg.VAD)
	d.Reset()
	return d, nil
}

// Push runs one frame through the VAD and the state machine. A frame is normally FrameSamples
// long, but any length >= 1 counts as one frame (its level is per sample); an empty frame is a
// no-op that returns None and does not advance the frame index.
func (d *Detector) Push(pcm []int16) Event {
	if len(pcm) == 0 {
		return Event{}
	}
	c, _ := d.vad.Classify(pcm)
	return d.PushClass(c)
}

// PushClass advances one frame with a class decided elsewhere (another VAD, or a test); Push is
// VAD.Classify followed by PushClass. A voice/no-voice VAD passes Voiced or Quiet.
func (d *Detector) PushClass(c Class) Event {
	n := d.next
	d.next++
	if c == Quiet {
		d.chain = n + 1
	}
	if c == Voiced {
		d.vrun = min(d.vrun+1, d.k) // capped: only "reached K yet?" matters
	} else {
		d.vrun = 0
	}
	if d.vrun == d.k {
		return d.onVoiced(n)
	}
	if c != Quiet && d.chain <= d.coreEnd && n-d.coreEnd <= d.fringe {
		d.last = n // trailing fringe: unbroken from the voiced run, close enough to it
	}
	return d.onSilence(n)
}
