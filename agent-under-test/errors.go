package agent

import "errors"

// Errors an admission can end with.
var (
	ErrTooManyCalls = errors.New("live-call limit reached")
	ErrShuttingDown = errors.New("agent is shutting down")
	// ErrCallIDInUse refuses a call whose id (Twilio callSid, WebRTC pc_id) names a live call.
	ErrCallIDInUse = errors.New("call id is already live")
	// ErrSetupLimit refuses a connection while too many others are still sending their offer or start.
	ErrSetupLimit = errors.New("too many calls being set up")
)

// ErrMaxCallLength is why the agent hangs up a call that reached Config.MaxCallLength.
var ErrMaxCallLength = errors.New("maximum call length reached")

// Errors an event subscription can be refused with (HTTP 429, 503).
var (
	errTooManySubscribers = errors.New("call has the most event subscribers allowed")
	errTooManyPending     = errors.New("too many event subscriptions wait for calls that have not started")
)

// Errors a Twilio stream's messages can be refused with.
var (
	errStopped      = errors.New("caller sent stop")
	errBadCallSID   = errors.New("start.callSid must be 1-128 printable ASCII characters without / or \\")
	errBeforeStart  = errors.New("message before start")
	errSecondStart  = errors.New("second start on one stream")
	errUnexpected   = errors.New("event Twilio does not send")
	errAfterStop    = errors.New("message after stop")
	errBadSignature = errors.New("X-Twilio-Signature does not match")
)

// Errors an offer can be refused with (HTTP 400, or 409 for a pc_id in use).
var (
	errNoAudio     = errors.New("offer has no audio m-line")
	errNoOpus      = errors.New("offer's audio does not offer opus/48000/2 (RFC 7587)")
	errBadPCID     = errors.New("pc_id must be 1-128 printable ASCII characters without / or \\")
	errRejectOffer = errors.New("offer rejected")
)

// Errors of the caller's RTP (RFC 3550) and Opus (RFC 6716).
var (
	errBadRTP  = errors.New("bad rtp packet")
	errBadOpus = errors.New("bad opus packet")
)

var errNegative = errors.New("must not be negative")
