// Package audio holds the project's sample-level audio: 20 ms PCM16 frames,
// resampling, G.711 mu-law, Opus, WAV.
//
// Samples are signed 16-bit linear PCM ([]int16); multi-channel audio is
// interleaved. Functions named like append (MulawEncode, ProcessTo, ...) take
// a destination slice so hot paths can reuse buffers and avoid allocation.
// Nothing in this package prints or logs; every failure is a returned error
// that wraps one of the named errors in errors.go.
package audio

import "time"

// FrameDuration is the packetisation interval used across the project
// (RFC 6716 §2.1.4 calls 20 ms a good choice for Opus; it is also the
// usual G.711 ptime).
const FrameDuration = 20 * time.Millisecond

// SamplesPerFrame returns the number of samples per channel in one 20 ms
// frame at rate Hz (rate/50).
func SamplesPerFrame(rate int) int {
	return rate / 50
}
