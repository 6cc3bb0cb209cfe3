package twilio

import "errors"

var (
	// ErrUnknownEvent means the message's event is not one of the Media Streams events; callers
	// usually skip such messages, since Twilio may add events.
	ErrUnknownEvent = errors.New("twilio: unknown event")
	// ErrMissingField means a field the event cannot do without is absent or empty.
	ErrMissingField = errors.New("twilio: missing field")
	// ErrBadPayload means media.payload is not standard padded base64.
	ErrBadPayload = errors.New("twilio: bad media payload")
	// ErrTooLarge means the input is larger than MaxMessageSize.
	ErrTooLarge = errors.New("twilio: message too large")
	// ErrMalformed means the input is not a JSON object of the expected shape, or TwiML is not XML.
	ErrMalformed = errors.New("twilio: malformed message")
)
