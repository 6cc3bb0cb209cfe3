package turn

import (
	"math"
	"math/rand/v2"
)

// Synthetic audio for the tests. Signals are float64 in full-scale units (1.0 = 32768) until
// pcm() quantises them, so noise can be mixed at an exact SNR first.

const msSamples = SampleRate / 1000

// vowel is a formant set (Hz) for one word.
type vowel [3]float64

var vowels = []vowel{{700, 1200, 2600}, {300, 2300, 3000}, {500, 900, 2500}, {400, 1900, 2600}, {600, 1700, 2450}}

// speechLike is durMs of a voiced phrase at levelDB dBFS RMS: words of 250-450 ms, each a
// 120-200 Hz harmonic tone with formant-shaped harmonics, 4 Hz syllable modulation and 8 ms
// attack/release, separated by 60-120 ms dips at -30 dB. It starts and ends at full word level.
func speechLike(durMs int, levelDB float64, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 7))
	x := make([]float64, durMs*msSamples)
	for pos := 0; pos < len(x); {
		word := (250 + r.IntN(201)) * msSamples
		if rest := len(x) - pos; rest-word < 350*msSamples { // no stub word at the end
			word = rest
		}
		voiceWord(x[pos:pos+word], r)
		pos += word
		if pos < len(x) {
			dip := min((60+r.IntN(61))*msSamples, len(x)-pos)
			fillDip(x[pos:pos+dip], r)
			pos += dip
		}
	}
	return scaleTo(x, levelDB)
}

// voiceWord writes one word: harmonic tone, pitch glide, formants, syllable envelope. One period
// is tabulated and read at the gliding pitch, which keeps test set-up cheap under -race.
func voiceWord(w []float64, r *rand.Rand) {
	f0 := 120 + 80*r.Float64()
	glide := (r.Float64() - 0.5) * 40
	table := periodTable(harmonicAmps(f0, vowels[r.IntN(len(vowels))]))
	phase := 0.0 // in periods
	for i := range w {
		t := float64(i) / SampleRate
		phase += (f0 + glide*float64(i)/float64(len(w))) / SampleRate
		phase -= math.Floor(phase)
		pos := phase * float64(len(table)-1)
		k := int(pos)
		v := table[k] + (pos-float64(k))*(table[k+1]-table[k])
		w[i] = v * (1 - 0.25*(1-math.Cos(2*math.Pi*4*t))) * edge(i, len(w), 8*msSamples)
	}
}

// periodTable is one period of the harmonic sum, 1024 points plus the wrap-around point.
func periodTable(amp []float64) []float64 {
	t := make([]float64, 1025)
	for i := range t {
		t[i] = harmonics(2*math.Pi*float64(i)/1024, amp)
	}
	return t
}

// fillDip puts the -30 dB residue of the neighbouring voicing into an inter-word dip.
func fillDip(d []float64, r *rand.Rand) {
	voiceWord(d, r)
	for i := range d {
		d[i] *= math.Pow(10, -30.0/20)
	}
}

// harmonicAmps weights harmonics below 3.8 kHz by three formant resonances and a -6 dB/oct tilt.
func harmonicAmps(f0 float64, v vowel) []float64 {
	var a []float64
	for k := 1; float64(k)*f0 < 3800; k++ {
		f := float64(k) * f0
		g := 0.05
		for j, fj := range v {
			bw := 80 + 40*float64(j)
			g += math.Pow(0.5, float64(j)) / (1 + ((f-fj)/bw)*((f-fj)/bw))
		}
		a = append(a, g/float64(k))
	}
	return a
}

// harmonics sums a_k sin(k*phase) with the Chebyshev recurrence (one sin/cos per sample).
func harmonics(phase float64, a []float64) float64 {
	s1, c := math.Sin(phase), 2*math.Cos(phase)
	s0, sum := 0.0, 0.0
	for _, ak := range a {
		sum += ak * s1
		s0, s1 = s1, c*s1-s0
	}
	return sum
}

// edge is a raised-cosine ramp of n samples at both ends of a length-long segment.
func edge(i, length, n int) float64 {
	j := min(i, length-1-i)
	if j >= n {
		return 1
	}
	return 0.5 - 0.5*math.Cos(math.Pi*float64(j)/float64(n))
}

// scaleTo sets x's RMS to levelDB dBFS.
func scaleTo(x []float64, levelDB float64) []float64 {
	g := math.Pow(10, levelDB/20) / rms(x)
	for i := range x {
		x[i] *= g
	}
	return x
}

func rms(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s / float64(len(x)))
}

// whiteNoise is n samples of Gaussian noise at levelDB dBFS RMS.
func whiteNoise(n int, levelDB float64, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 11))
	x := make([]float64, n)
	for i := range x {
		x[i] = r.NormFloat64()
	}
	return scaleTo(x, levelDB)
}

// brownNoise is low-passed (one-pole, ~130 Hz) Gaussian noise: it passes the tilt test like speech.
func brownNoise(n int, levelDB float64, seed uint64) []float64 {
	x := whiteNoise(n, 0, seed)
	y := 0.0
	for i := range x {
		y = 0.95*y + x[i]
		x[i] = y
	}
	return scaleTo(x, levelDB)
}

// silence is ms of zeros.
func silence(ms int) []float64 { return make([]float64, ms*msSamples) }

// cat concatenates signals.
func cat(parts ...[]float64) []float64 {
	var x []float64
	for _, p := range parts {
		x = append(x, p...)
	}
	return x
}

// mixed adds b to a copy of a (b shorter or equal).
func mixed(a, b []float64) []float64 {
	y := append([]float64(nil), a...)
	for i := range min(len(a), len(b)) {
		y[i] += b[i]
	}
	return y
}

// pcm quantises to PCM16 with clipping.
func pcm(x []float64) []int16 {
	p := make([]int16, len(x))
	for i, v := range x {
		p[i] = q16(v)
	}
	return p
}

func q16(v float64) int16 { return int16(math.Round(max(-32768, min(32767, v*32768)))) }

// fricative is ms of high-passed noise (an s or f: loud, broadband, aperiodic) at levelDB, with
// 5 ms ramps.
func fricative(ms int, levelDB float64, seed uint64) []float64 {
	x := whiteNoise(ms*msSamples+1, 0, seed)
	for i := range len(x) - 1 {
		x[i] = (x[i+1] - x[i]) * edge(i, len(x)-1, 5*msSamples)
	}
	return scaleTo(x[:len(x)-1], levelDB)
}
