package audio

import "math"

// saturate clamps v to the int16 range.
func saturate(v int32) int16 {
	return int16(min(max(v, math.MinInt16), math.MaxInt16))
}

// Mix returns the saturating sum of a and b; the shorter one is treated as
// padded with silence, so the result has the longer length.
func Mix(a, b []int16) []int16 {
	if len(a) < len(b) {
		a, b = b, a
	}
	out := make([]int16, len(a))
	copy(out, a)
	for i, s := range b {
		out[i] = saturate(int32(out[i]) + int32(s))
	}
	return out
}

// Interleave builds stereo frames from two channels, padding the shorter
// channel with silence.
func Interleave(left, right []int16) []int16 {
	n := max(len(left), len(right))
	out := make([]int16, 2*n)
	for i, s := range left {
		out[2*i] = s
	}
	for i, s := range right {
		out[2*i+1] = s
	}
	return out
}

// RMS returns the root-mean-square of x in sample units (0 for empty x).
func RMS(x []int16) float64 {
	if len(x) == 0 {
		return 0
	}
	var sum float64
	for _, s := range x {
		sum += float64(s) * float64(s)
	}
	return math.Sqrt(sum / float64(len(x)))
}

// DBFS returns the RMS level of x in dB relative to full scale (32768), so
// a full-scale square wave is 0 dBFS and a full-scale sine about -3.01 dBFS.
// Silence and empty input give -Inf.
func DBFS(x []int16) float64 {
	return 20 * math.Log10(RMS(x)/32768)
}

// Gain multiplies x by g in place, rounding and saturating.
func Gain(x []int16, g float64) {
	for i, s := range x {
		v := math.Round(float64(s) * g)
		x[i] = int16(min(max(v, math.MinInt16), math.MaxInt16))
	}
}
