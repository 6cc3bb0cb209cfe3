package audio

import (
	"errors"
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

// MinRate and MaxRate bound the rates Resample, NewResampler and the WAV reader and writer
// accept: below 1 kHz a clip is not speech, and above 384 kHz (the top of common converters) a
// rate is a corrupt header, not audio; the bounds also cap a resampler's filter and output size.
const (
	MinRate = 1000
	MaxRate = 384000
)

// Table sizes. A rate pair's phases (out/in reduced by the gcd) each get their own row when they
// fit in exactTableCoefs; a pair of coprime odd rates (44101 to 16000 is 16000 phases) instead
// interpolates between interpRows+1 rows spaced evenly over one input sample.
const (
	exactTableCoefs  = 1 << 16 // 256 KiB of float32: every pair of the usual rates fits
	interpTableCoefs = 1 << 20 // 4 MiB: caps a coprime pair's table whatever its rates
	interpRows       = 256     // linear interpolation error about -90 dB for voice-band cutoffs
	minInterpRows    = 16      // a very wide (decimating) filter is smooth at this spacing
	cacheEntries     = 64      // rate pairs kept; a stream of odd rates from files cannot grow it
)

// supportedRates are the rates with an integral 20 ms frame the project streams and writes.
var supportedRates = map[int]bool{
	8000: true, 12000: true, 16000: true, 24000: true,
	22050: true, 32000: true, 44100: true, 48000: true,
}

// SupportedRate reports whether rate is one the project streams and writes in 20 ms frames (8, 12,
// 16, 22.05, 24, 32, 44.1 or 48 kHz). Resample and NewResampler take any rate CheckRate accepts.
func SupportedRate(rate int) bool { return supportedRates[rate] }

// CheckRate returns nil when Resample and NewResampler accept rate (MinRate to MaxRate Hz), else
// an error wrapping ErrRate that names the range.
func CheckRate(rate int) error {
	if rate < MinRate || rate > MaxRate {
		return fmt.Errorf("%d Hz: %w (want %d to %d Hz)", rate, ErrRate, MinRate, MaxRate)
	}
	return nil
}

// polyphase is an immutable filter bank for one rate pair, shared by every
// Resampler of that pair. Output n sits at input time n*m/l.
type polyphase struct {
	l, m   int64     // reduced ratio: out/in = l/m
	mq, mr int64     // m/l and m%l: each output moves the centre by mq inputs and the phase by mr
	w      int64     // half-width in input samples; taps reach n0-w+1..n0+w
	taps   int64     // taps per row: 2w rounded up to a multiple of 8
	first  int64     // offset from n0 of the first tap (negative)
	lat    int64     // streaming latency in output samples
	rows   int64     // exact: l rows, row ph is phase ph; else interpRows+1 rows, row r at r/(rows-1)
	exact  bool      // one row per phase; false: interpolate between rows
	coef   []float32 // rows × taps, row-major
}

var filterCache = struct {
	sync.Mutex
	m map[[2]int]*polyphase
}{m: map[[2]int]*polyphase{}}

// filterFor returns the filter bank for from→to, designed once for the first cacheEntries pairs.
func filterFor(from, to int) *polyphase {
	key := [2]int{from, to}
	filterCache.Lock()
	f, ok := filterCache.m[key]
	filterCache.Unlock()
	if ok {
		return f
	}
	f = designPolyphase(from, to)
	filterCache.Lock()
	defer filterCache.Unlock()
	if g, ok := filterCache.m[key]; ok {
		return g // designed meanwhile by another caller: share one
	}
	if len(filterCache.m) < cacheEntries {
		filterCache.m[key] = f
	}
	return f
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// designPolyphase builds the windowed-sinc bank for from→to (from != to, both CheckRate-valid).
func designPolyphase(from, to int) *polyphase {
	g := gcd(from, to)
	p := &polyphase{l: int64(to / g), m: int64(from / g)}
	p.mq, p.mr = p.m/p.l, p.m%p.l
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
	p.exact = p.l*p.taps <= exactTableCoefs
	if p.exact {
		p.rows = p.l
	} else {
		p.rows = min(interpRows, max(minInterpRows, interpTableCoefs/p.taps-1)) + 1
	}
	p.coef = make([]float32, p.rows*p.taps)
	for r := int64(0); r < p.rows; r++ {
		p.fillRow(p.coef[r*p.taps:(r+1)*p.taps], p.rowFrac(r), cutoff, beta)
	}
	return p
}

// rowFrac is where row r's output sits past its centre input, in input samples: [0, 1).
func (p *polyphase) rowFrac(r int64) float64 {
	if p.exact {
		return float64(r) / float64(p.l)
	}
	return float64(r) / float64(p.rows-1) // the last row, at 1, closes the interpolation
}

// fillRow computes one row's taps for an output frac input samples past n0, normalised to unity
// DC gain so no phase-dependent ripple appears on DC.
func (p *polyphase) fillRow(dst []float32, frac, cutoff, beta float64) {
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

// interp is the filter output of phase ph over x (x[0] is the first tap's input), between the
// two rows around it.
func (p *polyphase) interp(ph int64, x []float32) float32 {
	pos := ph * (p.rows - 1) // ph/l of an input sample, in row spacings times l
	r, t := pos/p.l, float32(pos%p.l)/float32(p.l)
	a := dot(p.coef[r*p.taps:(r+1)*p.taps], x)
	b := dot(p.coef[(r+1)*p.taps:(r+2)*p.taps], x)
	return a + t*(b-a)
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
// across calls. Between rates SupportedRate accepts, feed it whole 20 ms
// frames and each call returns exactly one 20 ms frame at the output rate;
// between any others the chunks it returns vary in length around the ratio.
// The output is the one-shot Resample result delayed by Latency samples. A
// Resampler is not safe for concurrent use.
type Resampler struct {
	f      *polyphase // nil when from == to
	hist   []float32  // input history; hist[0] is input sample number base
	base   int64
	n0, ph int64   // next output's centre input index and phase
	out    []int16 // buffer returned by Process
}

// NewResampler returns a streaming resampler from one rate to another; a
// rate CheckRate refuses is an error wrapping ErrRate.
func NewResampler(from, to int) (*Resampler, error) {
	if err := errors.Join(CheckRate(from), CheckRate(to)); err != nil {
		return nil, fmt.Errorf("new resampler %d→%d Hz: %w", from, to, err)
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
		x := r.hist[n0+f.first-r.base:]
		var v float32
		if f.exact { // the usual rates: one row per phase, inline on the hot path
			v = dot(f.coef[ph*f.taps:(ph+1)*f.taps], x)
		} else {
			v = f.interp(ph, x)
		}
		dst = append(dst, toPCM(v))
		n0, ph = n0+f.mq, ph+f.mr
		if ph >= f.l {
			n0, ph = n0+1, ph-f.l
		}
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
// input at time i/to seconds (samples outside in count as zero). Rates are
// program constants or a WAV clip's, which the reader bounds by CheckRate;
// it panics on any other (use ResampleChecked or NewResampler for an error).
func Resample(in []int16, from, to int) []int16 {
	out, err := ResampleChecked(in, from, to)
	if err != nil {
		panic("audio.Resample: " + err.Error()) // unreachable from input: ReadWAV refuses what CheckRate refuses
	}
	return out
}

// ResampleChecked is Resample, with an error wrapping ErrRate for a rate
// CheckRate refuses.
func ResampleChecked(in []int16, from, to int) ([]int16, error) {
	r, err := NewResampler(from, to)
	if err != nil {
		return nil, fmt.Errorf("resample: %w", err)
	}
	n := int((int64(len(in))*int64(to) + int64(from)/2) / int64(from))
	lat := r.Latency()
	out := make([]int16, 0, n+lat+SamplesPerFrame(to))
	out = r.ProcessTo(out, in)
	if r.f != nil {
		// Flush with zeros until the last wanted output is out; each chunk
		// holds more than one output's worth of input, so every pass emits.
		zeros := make([]int16, r.f.w+r.f.mq+1)
		for len(out) < n+lat {
			out = r.ProcessTo(out, zeros)
		}
	}
	return out[lat : lat+n : lat+n], nil
}
