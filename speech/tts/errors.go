package tts

import "errors"

var (
	// ErrUnknownVoice means a voice name is not one this package knows.
	ErrUnknownVoice = errors.New("tts: unknown voice")
	// ErrEspeakMissing means the espeak-ng binary is not on PATH (install Debian package espeak-ng).
	ErrEspeakMissing = errors.New("tts: espeak-ng binary not found (install Debian package espeak-ng)")
	// ErrEmptyText means the text has nothing to speak.
	ErrEmptyText = errors.New("tts: empty text")
	// ErrBadText means the text holds a NUL byte, which cannot reach a C synthesiser intact.
	ErrBadText = errors.New("tts: text contains a NUL byte")
	// ErrSynthesis means the synthesiser ran but produced no usable audio.
	ErrSynthesis = errors.New("tts: synthesis failed")
	// ErrBadWAV means the audio an external synthesiser wrote is not a PCM16 mono WAV.
	ErrBadWAV = errors.New("tts: malformed WAV")
)
