package audio

import (
	"fmt"
	"math"
	"sync"
)

// Filter design. The anti-aliasing/anti-imaging filter is a Kaiser-windowed
// sinc whose stopband starts exactly at the lower Nyquist frequency.
const (
	// halfWidth is the filter half-length in samples of the lower rate; it
	// fixes the cost and the streaming latency (24 samples = 3 ms).
	halfWidth = 24
	// stopbandDB is the Kaiser design attenuation; with halfWidth it puts
	// the passband edge at about 0.41 × the lower rate (3.26 kHz at 8 kHz).
	stopbandDB = 70.0
)

// supportedRates are the rates with an integral 20 ms frame that Resample
// and NewResampler accept.
var supportedRates = map[int]bool{
	8000: true, 12000: true, 16000: true, 24000: true,
	22050: true, 32000: true, 44100: true, 48000: true,
}

// SupportedRate reports whether Resample and NewResampler accept rate.
func SupportedRate(rate int) bool { return supportedRates[rate] }

// polyphase is an immutable filter bank for one rate pair, shared by every
// Resampler of that pair. Output n sits at input time n*m/l.
type polyphase struct {
	l, m  int64     // reduced ratio: out/in = l/m
	w     int64     // half-width in input samples; taps reach n0-w+1..n0+w
	taps  int64     // taps per phase: 2w rounded up to a multiple of 8
	first int64     // offset from n0 of the first tap (negative)
	lat   int64     // streaming latency in output samples
	coef  []float32 // l phases × taps, phase-major
	// For phase ph, the next output has phase next[ph] and its centre
	// input index moves by step[ph]; tables avoid a division per sample.
	next, step []int64
}

var filterCache sync.Map // [2]int{from,to} -> *polyphase

// filterFor returns the shared filter bank for from→to, designing it once.
func filterFor(from, to int) *polyphase {
	key := [2]int{from, to}
	if f, ok := filterCache.Load(key); ok {
		return f.(*polyphase)
	}
	f, _ := filterCache.LoadOrStore(key, designPolyphase(from, to))
	return f.(*polyphase)
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// designPolyphase builds the windowed-sinc bank for from→to (from != to).
func designPolyphase(from, to int) *polyphase {
	g := gcd(from, to)
	p := &polyphase{l: int64(to / g), m: int64(from / g)}
	low := min(from, to)
	// Half-width in input samples: halfWidth samples at the lower rate.
	p.w = (int64(halfWidth)*int64(from) + int64(low) - 1) / int64(low)
	p.taps = (2*p.w + 7) &^ 7
	p.first = -(p.w - 1) - (p.taps - 2*p.w) // zero padding goes in front
	p.lat = p.w * p.l / p.m                 // smallest delay with n0+w already read
	// Kaiser (1974) design rules for transition width and beta.
	width := (stopbandDB - 7.95) / (2.285 * float64(2*halfWidth-1) * 2 * math.Pi)
	cutoff := (0.5 - width/2) * float64(low) / float64(from) // cycles per input sample
	beta := 0.1102 * (stopbandDB - 8.7)
	p.coef = make([]float32, p.l*p.taps)
	p.next, p.step = make([]int64, p.l), make([]int64, p.l)
	for ph := int64(0); ph < p.l; ph++ {
		p.fillPhase(p.coef[ph*p.taps:(ph+1)*p.taps], ph, cutoff, beta)
		p.next[ph], p.step[ph] = (ph+p.m)%p.l, (ph+p.m)/p.l
	}
	return p
}

// fillPhase computes one phase's taps, normalised to unity DC gain so no
// phase-dependent ripple appears on DC.
func (p *polyphase) fillPhase(dst []float32, ph int64, cutoff, beta float64) {
	frac := float64(ph) / float64(p.l)
	var sum float64
	h := make([]float64, len(dst))
	for j := range h {
		// Tap j multiplies input n0+first+j; tau is output time minus that.
		tau := frac - float64(p.first+int64(j))
		h[j] = 2 * cutoff * sinc(2*cutoff*tau) * kaiser(tau/float64(p.w), beta)
		sum += h[j]
	}
	for j := range h {
		dst[j] = float32(h[j] / sum)
	}
}

func sinc(x float64) float64 {
	if x == 0 {
		return 1
	}
	return math.Sin(math.Pi*x) / (math.Pi * x)
}

// kaiser is the Kaiser window at x in [-1, 1], zero outside.
func kaiser(x, beta float64) float64 {
	if x <= -1 || x >= 1 {
		return 0
	}
	return besselI0(beta*math.Sqrt(1-x*x)) / besselI0(beta)
}

// besselI0 is the zeroth-order modified Bessel function by its power series.
func besselI0(x float64) float64 {
	sum, term := 1.0, 1.0
	for k := 1.0; term > 1e-14*sum; k++ {
		term *= (x / (2 * k)) * (x / (2 * k))
		sum += term
	}
	return sum
}

// floorDiv is floor(a/b) for b > 0, also for negative a.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// dot is the filter inner product; eight accumulators hide FP add latency.
// len(c) is a multiple of 8 and len(x) >= len(c).
func dot(c, x []float32) float32 {
	x = x[:len(c)]
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	for i := 0; i+7 < len(c); i += 8 {
		cc, xx := (*[8]float32)(c[i:]), (*[8]float32)(x[i:]) // one bounds check per 8 taps
		s0 += cc[0] * xx[0]
		s1 += cc[1] * xx[1]
		s2 += cc[2] * xx[2]
		s3 += cc[3] * xx[3]
		s4 += cc[4] * xx[4]
		s5 += cc[5] * xx[5]
		s6 += cc[6] * xx[6]
		s7 += cc[7] * xx[7]
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

// toPCM rounds to nearest and saturates to the int16 range.
func toPCM(v float32) int16 {
	switch {
	case v >= math.MaxInt16:
		return math.MaxInt16
	case v <= math.MinInt16:
		return math.MinInt16
	case v >= 0:
		return int16(v + 0.5)
	default:
		return int16(v - 0.5)
	}
}

// Resampler converts a stream between two rates, keeping filter state
// across calls. Feed it whole 20 ms frames and each call returns exactly one
// 20 ms frame at the output rate; the output is the one-shot Resample result
// delayed by Latency samples. A Resampler is not safe for concurrent use.
type Resampler struct {
	f      *polyphase // nil when from == to
	hist   []float32  // input history; hist[0] is input sample number base
	base   int64
	n0, ph int64   // next output's centre input index and phase
	out    []int16 // buffer returned by Process
}

// NewResampler returns a streaming resampler from one rate to another. Both
// must satisfy SupportedRate (8, 12, 16, 24, 32, 44.1 or 48 kHz).
func NewResampler(from, to int) (*Resampler, error) {
	if !SupportedRate(from) || !SupportedRate(to) {
		return nil, fmt.Errorf("new resampler %d→%d Hz: %w", from, to, ErrRate)
	}
	r := &Resampler{}
	if from != to {
		r.f = filterFor(from, to)
	}
	r.Reset()
	return r, nil
}

// Reset clears the stream state as if the Resampler were new.
func (r *Resampler) Reset() {
	r.base, r.hist = 0, r.hist[:0]
	if r.f == nil {
		return
	}
	// Output 0 of the stream is output -lat of the one-shot, at input time
	// -lat*m/l; zero history reaches back to its first tap.
	x := -r.f.lat * r.f.m
	r.n0 = floorDiv(x, r.f.l)
	r.ph = x - r.n0*r.f.l
	r.base = r.n0 + r.f.first
	for i := r.base; i < 0; i++ {
		r.hist = append(r.hist, 0)
	}
}

// Latency returns the fixed delay of the streamed output relative to
// Resample, in output samples (0 when the rates are equal).
func (r *Resampler) Latency() int {
	if r.f == nil {
		return 0
	}
	return int(r.f.lat)
}

// Process resamples the next chunk of the stream. The returned slice is
// reused by the next call to Process; copy it to keep it.
func (r *Resampler) Process(in []int16) []int16 {
	r.out = r.ProcessTo(r.out[:0], in)
	return r.out
}

// ProcessTo appends the resampled next chunk of the stream to dst and
// returns the extended slice; it allocates only when dst must grow.
func (r *Resampler) ProcessTo(dst, in []int16) []int16 {
	f := r.f
	if f == nil {
		return append(dst, in...)
	}
	for _, s := range in {
		r.hist = append(r.hist, float32(s))
	}
	end := r.base + int64(len(r.hist))
	n0, ph := r.n0, r.ph
	for n0+f.w < end { // last tap's input already read
		start := n0 + f.first - r.base
		dst = append(dst, toPCM(dot(f.coef[ph*f.taps:(ph+1)*f.taps], r.hist[start:])))
		n0, ph = n0+f.step[ph], f.next[ph]
	}
	r.n0, r.ph = n0, ph
	r.discard()
	return dst
}

// discard drops history that no future output reaches.
func (r *Resampler) discard() {
	next := r.n0 + r.f.first
	if drop := next - r.base; drop > 0 {
		n := copy(r.hist, r.hist[drop:])
		r.hist = r.hist[:n]
		r.base = next
	}
}

// Resample converts in from one rate to another in one shot. The output has
// round(len(in)*to/from) samples and no delay: output i is the band-limited
// input at time i/to seconds (samples outside in count as zero). It panics
// if a rate fails SupportedRate; rates are expected to be program constants
// (use NewResampler to get an error instead).
func Resample(in []int16, from, to int) []int16 {
	r, err := NewResampler(from, to)
	if err != nil {
		panic("audio.Resample: " + err.Error())
	}
	n := int((int64(len(in))*int64(to) + int64(from)/2) / int64(from))
	lat := r.Latency()
	out := make([]int16, 0, n+lat+SamplesPerFrame(to))
	out = r.ProcessTo(out, in)
	if r.f != nil {
		// Flush with zeros until the last wanted output is out.
		zeros := make([]int16, r.f.w+r.f.m)
		for len(out) < n+lat {
			out = r.ProcessTo(out, zeros)
		}
	}
	return out[lat : lat+n : lat+n]
}
