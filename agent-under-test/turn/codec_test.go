package turn

import (
	"math"
	"testing"
)

// TestMulawRoundTrip checks the test channel itself: in-band tones keep their level, out-of-band
// ones are gone.
func TestMulawRoundTrip(t *testing.T) {
	for _, c := range []struct{ f, wantDB float64 }{{300, -9.03}, {1000, -9.03}, {3000, -9.03}, {6000, -60}} {
		y := mulawRoundTrip(tone(500, c.f, 0.5))
		got := 20 * math.Log10(rms(y[1000:len(y)-1000]))
		if c.wantDB > -60 && math.Abs(got-c.wantDB) > 0.5 || c.wantDB <= -60 && got > c.wantDB {
			t.Errorf("%v Hz: %.2f dBFS, want %.2f", c.f, got, c.wantDB)
		}
	}
}

// An 8 kHz G.711 mu-law round trip, as a Twilio leg does it: 16 kHz -> low-pass, decimate ->
// mu-law -> 8 kHz -> upsample, low-pass -> 16 kHz.

func mulawRoundTrip(x []float64) []float64 {
	h := lowPass(63, 3600.0/SampleRate)
	narrow := make([]float64, (len(x)+1)/2)
	for i := range narrow {
		narrow[i] = float64(mulawDecode(mulawEncode(q16(filterAt(x, h, 2*i, 1))))) / 32768
	}
	up := make([]float64, len(x))
	for i := range up { // zero-stuffed input: only every other tap meets a sample; x2 restores the gain
		up[i] = 2 * filterAt(narrow, h, i, 2)
	}
	return up
}

// filterAt is the centred FIR h at output i over x seen at rate factor f (x[k] sits at f*k).
func filterAt(x, h []float64, i, f int) float64 {
	m, s := len(h)/2, 0.0
	for j := ((m-i)%f + f) % f; j < len(h); j += f { // taps j with i+j-m divisible by f
		if k := (i + j - m) / f; i+j-m >= 0 && k < len(x) {
			s += h[j] * x[k]
		}
	}
	return s
}

// lowPass is a Hann-windowed sinc with cutoff fc (cycles per sample), n odd.
func lowPass(n int, fc float64) []float64 {
	h := make([]float64, n)
	m := float64(n-1) / 2
	for i := range h {
		t := float64(i) - m
		s := 2 * fc
		if t != 0 {
			s = math.Sin(2*math.Pi*fc*t) / (math.Pi * t)
		}
		h[i] = s * (0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/float64(n-1)))
	}
	return h
}

const mulawBias, mulawClip = 0x84, 32635

func mulawEncode(s int16) byte {
	v, sign := int(s), 0
	if v < 0 {
		v, sign = -v, 0x80
	}
	v = min(v, mulawClip) + mulawBias
	exp := 7
	for mask := 0x4000; v&mask == 0 && exp > 0; mask >>= 1 {
		exp--
	}
	mant := (v >> (exp + 3)) & 0x0f
	return ^byte(sign | exp<<4 | mant)
}

func mulawDecode(b byte) int16 {
	b = ^b
	exp, mant := int(b>>4)&7, int(b&0x0f)
	v := ((mant<<3)+mulawBias)<<exp - mulawBias
	if b&0x80 != 0 {
		v = -v
	}
	return int16(v)
}
