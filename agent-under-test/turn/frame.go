package turn

import "time"

const (
	// SampleRate is the only input rate: callers decode and resample to 16 kHz mono PCM16 first.
	SampleRate = 16000
	// FrameDuration is the unit of every decision and of every Event.At.
	FrameDuration = 20 * time.Millisecond
	// FrameSamples is one frame at SampleRate.
	FrameSamples = SampleRate / 50
)

// Frames converts a duration to whole frames, rounding up (1 ms is one frame, 21 ms two);
// zero and negative durations are zero frames.
func Frames(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int((d + FrameDuration - 1) / FrameDuration)
}

// FrameTime is the offset from the stream start of the start of frame i.
func FrameTime(i int) time.Duration { return time.Duration(i) * FrameDuration }
