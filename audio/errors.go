package audio

import "errors"

// Named errors; functions wrap them with context, so test with errors.Is.
var (
	// ErrNotWAV means the input does not start with a RIFF/WAVE header.
	ErrNotWAV = errors.New("not a RIFF WAVE file")
	// ErrUnsupportedFormat means a well-formed WAV that is not 16-bit PCM.
	ErrUnsupportedFormat = errors.New("unsupported audio format")
	// ErrCorrupt means a WAV whose header or chunk structure is malformed.
	ErrCorrupt = errors.New("corrupt WAV")
	// ErrEmpty means the input holds no bytes at all.
	ErrEmpty = errors.New("empty input")
	// ErrNoData means a WAV header was read but no data chunk followed.
	ErrNoData = errors.New("no data chunk")
	// ErrTooLarge means the audio does not fit the 4 GiB RIFF size fields.
	ErrTooLarge = errors.New("audio too large for WAV")
	// ErrChannels means a channel count that is invalid for the operation.
	ErrChannels = errors.New("invalid channel count")
	// ErrPartialFrame means a sample count that is not a whole number of
	// interleaved frames.
	ErrPartialFrame = errors.New("partial frame")
	// ErrRate means a sample rate that is out of range or not supported.
	ErrRate = errors.New("unsupported sample rate")
	// ErrFrameSize means an Opus frame that is not exactly 20 ms.
	ErrFrameSize = errors.New("wrong frame size")
	// ErrClosed means use of a writer after Close.
	ErrClosed = errors.New("writer closed")
)
