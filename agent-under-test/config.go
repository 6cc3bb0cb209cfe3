package agent

import (
	"errors"
	"fmt"
	"time"

	"github.com/callfleet/callfleet/agent-under-test/pipeline"
)

// Config is the agent's settings; start from DefaultConfig.
type Config struct {
	Pipeline        pipeline.Config
	MaxCalls        int    // live-call limit; 0 = none
	RecordDir       string // one stereo WAV per call when set
	TwilioAuthToken string // validate X-Twilio-Signature on /twiml when set
	PublicURL       string // base URL callers reach the agent at (for TwiML); "" = from the request
	Voice           string // TTS voice name
	MaxMessage      int64  // largest websocket message accepted
	ShutdownGrace   time.Duration
}

// DefaultConfig is the seeds' default agent.
func DefaultConfig() Config {
	return Config{
		Pipeline:      pipeline.DefaultConfig(),
		MaxMessage:    64 << 10,
		ShutdownGrace: 5 * time.Second,
	}
}

// Validate reports every problem at once.
func (c Config) Validate() []error {
	var errs []error
	if c.MaxCalls < 0 {
		errs = append(errs, fmt.Errorf("max calls %d: %w", c.MaxCalls, errNegative))
	}
	if err := c.Pipeline.Turn.Validate(); err != nil {
		errs = append(errs, err)
	}
	if c.Pipeline.IdlePrompt < 0 || c.Pipeline.IdleHangup < 0 {
		errs = append(errs, fmt.Errorf("idle guard durations: %w", errNegative))
	}
	return errs
}

var errNegative = errors.New("must not be negative")
