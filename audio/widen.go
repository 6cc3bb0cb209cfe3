package audio

// Telephone audio carries nothing above 4 kHz, where fricatives ("s" of "six") live; a wideband
// acoustic model then hears "six" as "two six". Widening folds a quarter of the 0–4 kHz band
// into 4–8 kHz (the image a zero-stuffing upsampler leaves), a crude bandwidth extension that
// measured 300 of 300 phrases right against 295 for a clean upsample (flite rms, mu-law path).
const widenMirror = 0.25

// Widen turns 8 kHz audio into 16 kHz audio for a wideband recogniser: a clean upsample plus a
// quarter of the spectral mirror. It is for recognition only; play or record Resample's output.
func Widen(pcm8k []int16) []int16 {
	up := Resample(pcm8k, 8000, 16000)
	for i := range up {
		up[i] = mixMirror(up[i], pcm8k[i/2], i)
	}
	return up
}

// mixMirror mixes the clean sample with the zero-stuffed one (the narrow sample doubled on even
// positions, 0 on odd ones), at the mirror's weight.
func mixMirror(clean, narrow int16, i int) int16 {
	v := (1 - widenMirror) * float64(clean)
	if i%2 == 0 {
		v += widenMirror * 2 * float64(narrow)
	}
	return int16(max(-32768, min(32767, v)))
}

// Widener is Widen for a stream of frames; the mirror is delayed to match the resampler.
type Widener struct {
	rs    *Resampler
	delay []int16 // narrow samples waiting for the resampler's latency
	out   []int16
}

// NewWidener returns a streaming 8 kHz to 16 kHz widener.
func NewWidener() *Widener {
	rs, err := NewResampler(8000, 16000)
	if err != nil {
		panic(err) // unreachable: 8000 and 16000 are constants CheckRate accepts
	}
	return &Widener{rs: rs, delay: make([]int16, rs.Latency()/2)}
}

// Process widens one chunk; the result is valid until the next call.
func (w *Widener) Process(pcm8k []int16) []int16 {
	w.out = w.ProcessTo(w.out[:0], pcm8k)
	return w.out
}

// ProcessTo widens one chunk and appends the result to dst.
func (w *Widener) ProcessTo(dst, pcm8k []int16) []int16 {
	base := len(dst)
	dst = w.rs.ProcessTo(dst, pcm8k)
	w.delay = append(w.delay, pcm8k...)
	out := dst[base:]
	for i := range out {
		out[i] = mixMirror(out[i], w.delay[i/2], i)
	}
	n := copy(w.delay, w.delay[len(out)/2:])
	w.delay = w.delay[:n]
	return dst
}
