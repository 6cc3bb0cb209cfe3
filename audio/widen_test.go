package audio

import (
	"math"
	"testing"
)

func TestWidenStreamingMatchesOneShot(t *testing.T) {
	in := make([]int16, 8000)
	for i := range in {
		in[i] = int16(6000 * math.Sin(2*math.Pi*700*float64(i)/8000))
	}
	want := Widen(in)
	if len(want) != 2*len(in) {
		t.Fatalf("Widen: %d samples from %d", len(want), len(in))
	}
	w := NewWidener()
	lat := w.rs.Latency()
	var got []int16
	for i := 0; i+160 <= len(in); i += 160 {
		got = append(got, w.Process(in[i:i+160])...)
	}
	for i := lat; i < len(got)-lat; i++ {
		if d := int(got[i]) - int(want[i-lat]); d < -1 || d > 1 {
			t.Fatalf("sample %d: stream %d, one-shot %d", i, got[i], want[i-lat])
		}
	}
}

func TestWidenAddsImage(t *testing.T) {
	// A 3 kHz tone gains a 5 kHz image; a plain upsample has none.
	in := make([]int16, 8000)
	for i := range in {
		in[i] = int16(8000 * math.Sin(2*math.Pi*3000*float64(i)/8000))
	}
	image := func(x []int16) float64 { // energy at 5 kHz by correlation
		var re, im float64
		for i, v := range x[1000:15000] {
			a := 2 * math.Pi * 5000 * float64(i) / 16000
			re += float64(v) * math.Cos(a)
			im += float64(v) * math.Sin(a)
		}
		return math.Hypot(re, im) / 14000
	}
	if plain, wide := image(Resample(in, 8000, 16000)), image(Widen(in)); !(wide > 10*plain && wide > 500) {
		t.Fatalf("5 kHz image: plain %.1f, widened %.1f", plain, wide)
	}
}
