package tts

import (
	"math"
	"math/rand/v2"
	"testing"
)

// burst is a tone written into a clip at [start, end).
type burst struct {
	start, end int
	freq, amp  float64
	phase      float64
}

func clip(n, rate int, noiseAmp float64, bursts ...burst) []int16 {
	rng := rand.New(rand.NewPCG(1, 2))
	pcm := make([]int16, n)
	for i := range pcm {
		pcm[i] = int16(noiseAmp * (2*rng.Float64() - 1))
	}
	for _, b := range bursts {
		for i := b.start; i < b.end; i++ {
			x := b.amp * math.Sin(2*math.Pi*b.freq*float64(i-b.start)/float64(rate)+b.phase)
			pcm[i] = int16(max(-32768, min(32767, float64(pcm[i])+x)))
		}
	}
	return pcm
}

func TestVoicedBoundsSynthetic(t *testing.T) {
	const tol = 3 // samples
	tests := []struct {
		name        string
		rate, n     int
		noise       float64
		bursts      []burst
		first, last int
		ok          bool
	}{
		{"centre 16k", 16000, 16000, 0, []burst{{4000, 12000, 440, 10000, 0}}, 4000, 11999, true},
		{"off window grid", 16000, 16000, 0, []burst{{4077, 9333, 1000, 8000, 0.3}}, 4077, 9332, true},
		{"8k quiet tone", 8000, 8000, 0, []burst{{1234, 5678, 300, 1500, 0}}, 1234, 5677, true},
		{"22050 with noise floor", 22050, 22050, 20, []burst{{5000, 15000, 700, 12000, 0}}, 5000, 14999, true},
		{"two bursts", 16000, 24000, 0, []burst{{2100, 6000, 500, 9000, 0}, {15000, 20007, 800, 9000, 0}}, 2100, 20006, true},
		{"from sample 0", 16000, 8000, 0, []burst{{0, 4000, 440, 9000, math.Pi / 2}}, 0, 3999, true},
		{"to the last sample", 16000, 8000, 0, []burst{{3000, 8000, 440, 9000, 0}}, 3000, 7999, true},
		{"loud clip ignores -40 dB tail", 16000, 16000, 0, []burst{{3000, 9000, 440, 30000, 0}, {9000, 14000, 440, 200, 0}}, 3000, 8999, true},
		{"silence", 16000, 16000, 0, nil, 0, 0, false},
		{"noise only under -45 dBFS", 16000, 16000, 100, nil, 0, 0, false},
		{"quiet 3-sample click", 16000, 16000, 0, []burst{{8000, 8003, 0, 1000, math.Pi / 2}}, 0, 0, false},
	}
	for _, tc := range tests {
		pcm := clip(tc.n, tc.rate, tc.noise, tc.bursts...)
		first, last, ok := VoicedBounds(pcm, tc.rate)
		if ok != tc.ok {
			t.Errorf("%s: ok = %v, want %v (bounds %d..%d)", tc.name, ok, tc.ok, first, last)
			continue
		}
		if ok && (abs(first-tc.first) > tol || abs(last-tc.last) > tol) {
			t.Errorf("%s: bounds %d..%d, want %d..%d ±%d", tc.name, first, last, tc.first, tc.last, tol)
		}
	}
	if _, _, ok := VoicedBounds(nil, 16000); ok {
		t.Error("empty clip reported voiced")
	}
	if _, _, ok := VoicedBounds([]int16{30000, -30000}, 0); ok {
		t.Error("rate 0 reported voiced")
	}
}

func abs(x int) int { return max(x, -x) }

// A quiet recording (peak -30 dBFS) keeps its soft onset and tail under the relative threshold;
// the absolute floor of VoicedBounds trims them, which is what it must keep doing for clip marks.
func TestVoicedBoundsRelative(t *testing.T) {
	const tol = 3
	// peak 1036 (-30 dBFS) from 5000 to 9000; a -40 dB-relative tail (amp 150, -47 dBFS) to 12000.
	pcm := clip(16000, 16000, 0, burst{3000, 5000, 300, 150, 0}, burst{5000, 9000, 440, 1036, 0}, burst{9000, 12000, 300, 150, 0})
	first, last, ok := VoicedBoundsRelative(pcm, 16000)
	if !ok || abs(first-3000) > tol || abs(last-11999) > tol {
		t.Errorf("relative: bounds %d..%d ok=%v, want 3000..11999", first, last, ok)
	}
	first, last, ok = VoicedBounds(pcm, 16000)
	if !ok || abs(first-5000) > tol || abs(last-8999) > tol {
		t.Errorf("absolute: bounds %d..%d ok=%v, want 5000..8999", first, last, ok)
	}
	for _, tc := range []struct {
		name string
		pcm  []int16
	}{{"silence", make([]int16, 16000)}, {"dither", clip(16000, 16000, 3)}, {"empty", nil}} {
		if a, b, ok := VoicedBoundsRelative(tc.pcm, 16000); ok {
			t.Errorf("%s: reported voiced %d..%d", tc.name, a, b)
		}
	}
}

func TestVoicedBoundsFlite(t *testing.T) {
	for _, name := range fliteNames {
		v, err := Flite(name)
		if err != nil {
			t.Fatal(err)
		}
		pcm, err := v.Synthesize("seven one three four")
		if err != nil {
			t.Fatal(err)
		}
		first, last, ok := VoicedBounds(pcm, v.Rate())
		if !ok {
			t.Fatalf("%s: no voiced audio", name)
		}
		lead := float64(first) / float64(v.Rate())
		trail := float64(len(pcm)-1-last) / float64(v.Rate())
		t.Logf("%s: %d samples, voiced %d..%d, lead %.0f ms, trail %.0f ms", name, len(pcm), first, last, lead*1e3, trail*1e3)
		// flite pads every utterance with silence; the bounds must fall inside the clip with
		// at least a few ms either side and over half a second of speech between.
		if lead < 0.005 || trail < 0.005 || float64(last-first)/float64(v.Rate()) < 0.5 {
			t.Errorf("%s: lead %.3f s, trail %.3f s, voiced %d..%d of %d", name, lead, trail, first, last, len(pcm))
		}
		// Nothing outside the bounds is louder than the refinement threshold.
		if peakOf(pcm[:first]) > peakOf(pcm)/10 || peakOf(pcm[last+1:]) > peakOf(pcm)/10 {
			t.Errorf("%s: loud samples outside the voiced bounds", name)
		}
	}
}

func peakOf(pcm []int16) int {
	p := 0
	for _, s := range pcm {
		p = max(p, abs(int(s)))
	}
	return p
}

func BenchmarkVoicedBounds(b *testing.B) {
	pcm := clip(48000, 16000, 20, burst{8000, 40000, 440, 10000, 0})
	for b.Loop() {
		VoicedBounds(pcm, 16000)
	}
}
