package stt

import "errors"

var (
	// ErrModelMissing means a PocketSphinx model or dictionary file is absent.
	ErrModelMissing = errors.New("stt: speech model file missing (install Debian package pocketsphinx-en-us)")
	// ErrBadConfig means a Config field is out of range.
	ErrBadConfig = errors.New("stt: invalid config")
	// ErrDecoder means PocketSphinx refused to create or run a decoder.
	ErrDecoder = errors.New("stt: pocketsphinx decoder error")
	// ErrClosed means the Model was closed.
	ErrClosed = errors.New("stt: model closed")
	// ErrStreamClosed means Feed or Finish was called after Finish or Close.
	ErrStreamClosed = errors.New("stt: stream finished or closed")
	// ErrTooLong means an utterance exceeded Config.MaxUtterance.
	ErrTooLong = errors.New("stt: utterance too long")
	// ErrHTTP means the transcription server answered with a non-2xx status.
	ErrHTTP = errors.New("stt: transcription server error")
)
