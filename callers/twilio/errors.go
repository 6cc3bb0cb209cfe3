package twilio

import (
	"errors"
	"fmt"

	"github.com/callfleet/callfleet/callers"
)

var (
	// ErrDial means the websocket could not be opened.
	ErrDial = errors.New("twilio: dial failed")
	// ErrRefused means the agent turned the call away: close code 1013 (Try Again Later, RFC 6455
	// §7.4.1) or an HTTP 503/429 to the upgrade, as an agent at its call limit does.
	ErrRefused = fmt.Errorf("twilio: %w", callers.ErrRefused)
	// ErrTwiML means the TwiML webhook failed or returned no <Stream url>.
	ErrTwiML = errors.New("twilio: twiml webhook failed")
	// ErrEvents means the events stream could not be opened.
	ErrEvents = errors.New("twilio: events stream failed")
	// ErrLost means the websocket ended without a close handshake or with an error code.
	ErrLost = errors.New("twilio: connection lost")
	// ErrIdle means the agent sent nothing for Dialer.IdleTimeout.
	ErrIdle = errors.New("twilio: agent idle")
	// ErrTooLarge means the agent sent a websocket message over the caller's read limit.
	ErrTooLarge = errors.New("twilio: agent message too large")
)
