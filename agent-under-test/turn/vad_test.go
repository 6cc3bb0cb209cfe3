package turn

import (
	"errors"
	"math"
	"testing"
)

// clickAt puts a full-scale impulse pair at sample i of a copy of x.
func clickAt(x []float64, i int, amp float64) []float64 {
	y := append([]float64(nil), x...)
	y[i], y[i+1] = amp, -amp*0.7
	return y
}

// burst is ms of white noise at levelDB starting at ms into x (a copy).
func burst(x []float64, at, ms int, levelDB float64) []float64 {
	b := whiteNoise(ms*msSamples, levelDB, 77)
	y := append([]float64(nil), x...)
	copy(y[at*msSamples:], mixed(y[at*msSamples:at*msSamples+len(b)], b))
	return y
}

// dc is ms of a constant.
func dc(ms int, v float64) []float64 {
	x := silence(ms)
	for i := range x {
		x[i] = v
	}
	return x
}

// tone is ms of a sine of f Hz at peak amplitude amp.
func tone(ms int, f, amp float64) []float64 {
	x := silence(ms)
	for i := range x {
		x[i] = amp * math.Sin(2*math.Pi*f*float64(i)/SampleRate)
	}
	return x
}

// TestNoSpeech: silence, offsets, clicks, noise and noise bursts never start a turn.
func TestNoSpeech(t *testing.T) {
	const n = 3000 * msSamples
	quiet := whiteNoise(n, -60, 5)
	cases := map[string][]float64{
		"digital silence":         silence(3000),
		"DC +1000":                dc(3000, 1000.0/32768),
		"DC -20000":               dc(3000, -20000.0/32768),
		"DC step":                 cat(silence(1000), dc(2000, 0.3)),
		"click":                   clickAt(silence(3000), 16000+37, 1),
		"click across frames":     clickAt(silence(3000), 50*FrameSamples-1, 1),
		"clicks every 300 ms":     clicks(silence(3000), 300),
		"tick 2 ms 1 kHz":         cat(silence(1000), tone(2, 1000, 0.5), silence(1998)),
		"white -50":               whiteNoise(n, -50, 1),
		"white -40":               whiteNoise(n, -40, 2),
		"brown -40":               brownNoise(n, -40, 3),
		"mulaw white -40":         mulawRoundTrip(whiteNoise(n, -40, 4)),
		"mulaw brown -40":         mulawRoundTrip(brownNoise(n, -40, 6)),
		"mulaw silence":           mulawRoundTrip(silence(3000)),
		"30 ms burst -15 in -60":  burst(quiet, 1000, 30, -15),
		"100 ms burst -15 in -60": burst(quiet, 1000, 100, -15),
		"silence then white -30":  cat(silence(1000), whiteNoise(n, -30, 7)),
	}
	for name, x := range cases {
		if evs := detect(t, DefaultConfig(), pcm(x)); len(evs) != 0 {
			t.Errorf("%s: %v", name, evs)
		}
	}
}

// clicks puts a click every period ms.
func clicks(x []float64, period int) []float64 {
	for at := period; at+1 < len(x)/msSamples; at += period {
		x = clickAt(x, at*msSamples+period%7, 0.8)
	}
	return x
}

// TestNoiseAdaptation: steady noise at -40 dBFS is not speech after well under 1 s, whatever its
// colour and whether it starts with the stream or after silence; speech at -35 over noise at -55
// is one turn.
func TestNoiseAdaptation(t *testing.T) {
	const n = 8000 * msSamples
	cases := map[string][]float64{
		"white":               whiteNoise(n, -40, 1),
		"brown":               brownNoise(n, -40, 2),
		"mulaw white":         mulawRoundTrip(whiteNoise(n, -40, 3)),
		"white after -60":     cat(whiteNoise(2000*msSamples, -60, 4), whiteNoise(n, -40, 5)),
		"brown after silence": cat(silence(2000), brownNoise(n, -40, 6)),
	}
	for name, x := range cases {
		onset := 0
		if len(x) > n {
			onset = (len(x) - n) / FrameSamples
		}
		cs := classesOf(VADConfig{}, pcm(x))
		for i, c := range cs[onset+50:] {
			if c == Voiced {
				t.Errorf("%s: frame %d, %d ms into the noise, is voiced", name, onset+50+i, (50+i)*20)
				break
			}
		}
		if q := countClass(cs[onset+50:], Quiet); q < len(cs[onset+50:])*9/10 {
			t.Errorf("%s: only %d of %d frames quiet after 1 s: the floor did not adapt", name, q, len(cs[onset+50:]))
		}
	}
	evs := detect(t, DefaultConfig(), pcm(mixed(cat(silence(1000), speechLike(2500, -35, 8), silence(3000)), whiteNoise(6500*msSamples, -55, 9))))
	if kinds(evs) != "SpeechStarted SpeechStopped TurnEnd" || evs[0].At < 50 || evs[0].At > 51 {
		t.Errorf("speech at -35 over noise at -55: %v", evs)
	}
}

func countClass(cs []Class, c Class) int {
	n := 0
	for _, x := range cs {
		if x == c {
			n++
		}
	}
	return n
}

// TestFloorFalls: after loud noise goes quiet, the floor follows it down within a few frames, so
// quiet speech is heard 300 ms later.
func TestFloorFalls(t *testing.T) {
	noise := cat(whiteNoise(3000*msSamples, -35, 1), whiteNoise(4000*msSamples, -65, 2))
	x := mixed(noise, cat(silence(3300), speechLike(1500, -45, 3)))
	evs := detect(t, DefaultConfig(), pcm(x))
	if len(evs) == 0 || evs[0].Kind != SpeechStarted || evs[0].At != 3300/20 {
		t.Fatalf("speech at -45 after the noise fell to -65: %v", evs)
	}
}

func TestLevel(t *testing.T) {
	v := NewVAD(VADConfig{})
	x := pcm(tone(20, 1000, 0.5))
	if _, l := v.Frame(x); math.Abs(l-20*math.Log10(0.5/math.Sqrt2)) > 0.05 {
		t.Errorf("sine at half scale: %.3f dBFS", l)
	}
	if c, l := v.Classify(nil); c != Quiet || l != silenceDB {
		t.Errorf("empty frame: %v %v", c, l)
	}
	if _, l := v.Frame(make([]int16, FrameSamples)); l != silenceDB {
		t.Errorf("digital silence: %v dBFS", l)
	}
	if _, l := v.Frame([]int16{12345}); l != silenceDB {
		t.Errorf("one sample: %v dBFS", l)
	}
}

func TestVADConfig(t *testing.T) {
	bad := VADConfig{ThresholdDB: -5, MaxTilt: math.NaN(), MinLevelDB: -30, MinPeriodicity: 2}
	if err := bad.Validate(); !errors.Is(err, ErrVADConfig) {
		t.Fatalf("Validate: %v", err)
	}
	want := VADConfig{}.withDefaults()
	want.MinLevelDB = -30
	if got := NewVAD(bad).cfg; got != want {
		t.Fatalf("sanitize: %+v, want %+v", got, want)
	}
	if err := (VADConfig{MinPeriodicity: -1}).Validate(); err != nil {
		t.Fatalf("periodicity off: %v", err)
	}
	for i, s := range []string{"Quiet", "Unvoiced", "Voiced", "Class(7)"} {
		if c := []Class{Quiet, Unvoiced, Voiced, 7}[i]; c.String() != s {
			t.Errorf("%d: %q", c, c.String())
		}
	}
}
