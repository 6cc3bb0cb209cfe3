package turn

import "math"

// Periodicity is measured at 4 kHz (sums of 4 samples) over pitch lags 80-400 Hz: voiced speech
// repeats itself at its pitch period, noise of any colour and clicks do not.
const (
	decimation = 4
	minLag     = SampleRate / decimation / 400 // 10 samples: 400 Hz
	maxLag     = SampleRate / decimation / 80  // 50 samples: 80 Hz
	maxWindow  = FrameSamples / decimation     // 80 samples of the current frame
	// preEmphasis (y[n] = x[n] - 0.7 x[n-1]) keeps low-frequency noise from looking periodic.
	preEmphasis = 0.7
	// minLagEnergy skips lags whose earlier segment is near silence, where the ratio means nothing.
	minLagEnergy = 0.01
)

// periodicity keeps the decimated history a frame's long lags reach back into.
type periodicity struct {
	hist    [maxLag]float64                 // the last maxLag decimated samples, oldest first
	buf     [maxLag + maxWindow]float64     // history then the current frame
	cum     [maxLag + maxWindow + 1]float64 // prefix sums of the prepared buf squared
	m       int                             // decimated samples of the current frame in buf
	lastLag int                             // where the last periodic frame peaked: search there first
}

func (p *periodicity) reset() { *p = periodicity{lastLag: (minLag + maxLag) / 2} }

// push takes in a frame (its last FrameSamples at most): cheap, as every frame needs it for the
// history; periodic does the work only for frames that might be speech.
func (p *periodicity) push(pcm []int16) {
	p.m = min(len(pcm), FrameSamples) / decimation
	tail := pcm[len(pcm)-p.m*decimation:]
	w := p.buf[:maxLag+p.m]
	copy(w, p.hist[:])
	for i := range p.m {
		s := tail[i*decimation : i*decimation+decimation]
		w[maxLag+i] = float64(int32(s[0]) + int32(s[1]) + int32(s[2]) + int32(s[3]))
	}
	copy(p.hist[:], w[p.m:])
}

// periodic reports whether the pushed frame's normalised autocorrelation reaches th at some
// pitch lag: 1 for a perfectly periodic frame, at most ~0.45 for noise. It tries the last pitch
// first and widens from there, so a voiced frame usually costs one or two lags.
func (p *periodicity) periodic(th float64) bool {
	if p.m == 0 {
		return false
	}
	p.prepare()
	e0 := p.cum[maxLag+p.m] - p.cum[maxLag]
	for step := 0; step <= maxLag-minLag; step++ {
		if p.reaches(p.lastLag-step, e0, th) || step > 0 && p.reaches(p.lastLag+step, e0, th) {
			return true
		}
	}
	return false
}

// reaches tries one lag and remembers it if it is periodic enough.
func (p *periodicity) reaches(lag int, e0, th float64) bool {
	if lag < minLag || lag > maxLag || p.corr(lag, e0) < th {
		return false
	}
	p.lastLag = lag
	return true
}

// prepare removes the window's mean, pre-emphasises it and fills the prefix sums.
func (p *periodicity) prepare() {
	w := p.buf[:maxLag+p.m]
	mean := 0.0
	for _, v := range w {
		mean += v
	}
	mean /= float64(len(w))
	for i := len(w) - 1; i > 0; i-- { // backwards, so w[i-1] is still the input
		w[i] = (w[i] - mean) - preEmphasis*(w[i-1]-mean)
	}
	w[0] = (w[0] - mean) * (1 - preEmphasis)
	for i, v := range w {
		p.cum[i+1] = p.cum[i] + v*v
	}
}

// corr is the normalised correlation of the current frame with itself lag samples earlier.
func (p *periodicity) corr(lag int, e0 float64) float64 {
	lo := maxLag - lag
	el := p.cum[lo+p.m] - p.cum[lo]
	if el < minLagEnergy*e0 || e0 <= 0 {
		return 0
	}
	return dot(p.buf[maxLag:maxLag+p.m], p.buf[lo:lo+p.m]) / math.Sqrt(e0*el)
}

// dot is a four-way unrolled inner product; independent sums keep the FPU pipeline full, and
// the 4-element sub-slices cost one bounds check each.
func dot(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		x, y := a[i:i+4:i+4], b[i:i+4:i+4]
		s0 += x[0] * y[0]
		s1 += x[1] * y[1]
		s2 += x[2] * y[2]
		s3 += x[3] * y[3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}
