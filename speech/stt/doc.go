// Package stt is the digit transcriber: it hears 4–5 digit phrases in any voice.
//
// The local backend (Model) runs CMU PocketSphinx against a JSGF grammar that only
// admits 4 or 5 spoken digits, which is what makes the small en-us acoustic model
// usable: it hears flite rms 99–100% exact. Config.Adapted replaces the model's means, variances,
// mixture weights and transition matrices by embedded digit-adapted ones
// (model/en-us-digits/README.md), which hear human speakers better. Each utterance is decoded whole, from a
// clean decoder state, so a result never depends on the audio heard before. Audio is
// 16 kHz signed 16-bit mono; telephone audio must be resampled to 16 kHz by the caller. The OpenAI backend posts the same
// audio to an OpenAI-compatible /v1/audio/transcriptions endpoint. Both implement
// Transcriber and return a digit string such as "7134", or "" when nothing was heard.
package stt
