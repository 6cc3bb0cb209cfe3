package agent

import (
	"fmt"
	"time"

	"github.com/callfleet/callfleet/agent-under-test/pipeline"
)

// Config is the agent's settings; start from DefaultConfig.
type Config struct {
	Pipeline pipeline.Config
	// MaxCalls is the live-call limit; 0 = none. DefaultConfig sets DefaultMaxCalls().
	MaxCalls        int
	RecordDir       string // one stereo WAV per call when set
	TwilioAuthToken string // validate X-Twilio-Signature on /twiml and /twilio/ws when set
	PublicURL       string // base URL callers reach the agent at (for TwiML); "" = from the request
	Voice           string // TTS voice name
	MaxMessage      int64  // largest websocket message accepted
	ShutdownGrace   time.Duration
	// MaxCallLength hangs up a call this long after it was admitted; 0 = no limit.
	MaxCallLength time.Duration
	// SetupTimeout bounds the wait for a call's offer body or Twilio start, which hold no slot.
	SetupTimeout time.Duration
	// MaxSubscribers caps the SSE subscribers of one call.
	MaxSubscribers int
	HTTP           HTTPTimeouts
}

// HTTPTimeouts are the agent's http.Server timeouts (HTTPServer). The SSE stream and the Twilio
// websocket outlive Read and Write and keep deadlines of their own.
type HTTPTimeouts struct {
	ReadHeader time.Duration
	Read       time.Duration // the whole request: a form or an offer is a few KiB
	Write      time.Duration // the longest ordinary answer is an offer's, after ICE gathering
	Idle       time.Duration // keep-alive between requests
}

// Defaults of the limits a hostile or broken client meets.
const (
	defaultMaxCallLength  = time.Hour
	defaultSetupTimeout   = 10 * time.Second
	defaultMaxSubscribers = 8 // a caller, a browser page and a few watchers
)

// DefaultConfig is the seeds' default agent, with the live-call limit this process can hold.
func DefaultConfig() Config {
	return Config{
		Pipeline:       pipeline.DefaultConfig(),
		MaxCalls:       DefaultMaxCalls(),
		MaxMessage:     64 << 10,
		ShutdownGrace:  5 * time.Second,
		MaxCallLength:  defaultMaxCallLength,
		SetupTimeout:   defaultSetupTimeout,
		MaxSubscribers: defaultMaxSubscribers,
		HTTP: HTTPTimeouts{
			ReadHeader: 10 * time.Second,
			Read:       30 * time.Second,
			Write:      gatherTimeout + 25*time.Second,
			Idle:       2 * time.Minute,
		},
	}
}

// Validate reports every problem at once.
func (c Config) Validate() []error {
	var errs []error
	for _, v := range []struct {
		name string
		n    int64
	}{
		{"max calls", int64(c.MaxCalls)}, {"max call length", int64(c.MaxCallLength)},
		{"setup timeout", int64(c.SetupTimeout)}, {"max subscribers", int64(c.MaxSubscribers)},
		{"http read header timeout", int64(c.HTTP.ReadHeader)}, {"http read timeout", int64(c.HTTP.Read)},
		{"http write timeout", int64(c.HTTP.Write)}, {"http idle timeout", int64(c.HTTP.Idle)},
	} {
		if v.n < 0 {
			errs = append(errs, fmt.Errorf("%s %d: %w", v.name, v.n, errNegative))
		}
	}
	if err := c.Pipeline.Turn.Validate(); err != nil {
		errs = append(errs, err)
	}
	if c.Pipeline.IdlePrompt < 0 || c.Pipeline.IdleHangup < 0 {
		errs = append(errs, fmt.Errorf("idle guard durations: %w", errNegative))
	}
	return errs
}

// setupTimeout is SetupTimeout, or the default when unset (a Config not from DefaultConfig).
func (c Config) setupTimeout() time.Duration {
	if c.SetupTimeout <= 0 {
		return defaultSetupTimeout
	}
	return c.SetupTimeout
}

func (c Config) maxSubscribers() int {
	if c.MaxSubscribers <= 0 {
		return defaultMaxSubscribers
	}
	return c.MaxSubscribers
}
