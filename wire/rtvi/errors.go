package rtvi

import "errors"

var (
	// ErrNotRTVI means the message's label is not "rtvi-ai"; pipecat ignores such messages.
	ErrNotRTVI = errors.New("rtvi: not an RTVI message")
	// ErrMissingField means a required field (type, or a data field an accessor needs) is absent.
	ErrMissingField = errors.New("rtvi: missing field")
	// ErrWrongType means an accessor was called on a message of another type.
	ErrWrongType = errors.New("rtvi: wrong message type")
	// ErrTooLarge means a message exceeds MaxMessageSize.
	ErrTooLarge = errors.New("rtvi: message too large")
	// ErrLineTooLong means an SSE line exceeds the reader's MaxLineSize; the reader stops.
	ErrLineTooLong = errors.New("rtvi: sse line too long")
	// ErrMalformed means the input is not a JSON object of the RTVI shape.
	ErrMalformed = errors.New("rtvi: malformed message")
)
