package pool

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/callfleet/callfleet/audio"
	"github.com/callfleet/callfleet/speech"
	"github.com/callfleet/callfleet/speech/tts"
)

func kal16(t testing.TB) Source {
	t.Helper()
	v, err := tts.Flite("kal16")
	if err != nil {
		t.Fatal(err)
	}
	return VoiceSource{Voice: v}
}

func TestBuild(t *testing.T) {
	ctx := context.Background()
	p, err := Build(ctx, kal16(t), Options{Size: 12, Seed: 3, Codecs: []Codec{CodecMulaw, CodecOpus}, LeadIn: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if p.Len() != 12 {
		t.Fatalf("Len = %d", p.Len())
	}
	again, err := Build(ctx, kal16(t), Options{Size: 12, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < p.Len(); i++ {
		c := p.Clip(i)
		if c.Digits != again.Clip(i).Digits {
			t.Fatalf("same seed, different phrase %d: %q vs %q", i, c.Digits, again.Clip(i).Digits)
		}
		if len(c.PCM)%FrameSamples != 0 {
			t.Fatalf("%q: %d samples, not whole frames", c.Digits, len(c.PCM))
		}
		if c.First < 1600 || c.Last <= c.First || c.Last >= len(c.PCM) {
			t.Fatalf("%q: bounds %d..%d of %d (lead-in 1600)", c.Digits, c.First, c.Last, len(c.PCM))
		}
		if abs(int(c.PCM[c.First])) == 0 || abs(int(c.PCM[c.Last])) == 0 {
			t.Fatalf("%q: bound samples are silent", c.Digits)
		}
		if len(c.Mulaw) != c.Frames() || len(c.Opus) != c.Frames() {
			t.Fatalf("%q: %d frames, %d mulaw, %d opus", c.Digits, c.Frames(), len(c.Mulaw), len(c.Opus))
		}
		for _, f := range c.Mulaw {
			if len(f) != 160 {
				t.Fatalf("mulaw frame of %d bytes", len(f))
			}
		}
		if c.StartFrame() != c.First/320 || c.EndFrame() < c.StartFrame() {
			t.Fatalf("frames %d..%d", c.StartFrame(), c.EndFrame())
		}
		if d := c.Voiced(); d < 800*time.Millisecond || d > 4*time.Second {
			t.Fatalf("%q voiced for %v", c.Digits, d)
		}
	}
	got, err := p.Get("90210")
	if err != nil || got.Digits != "90210" {
		t.Fatalf("Get: %v %v", got, err)
	}
	if _, err := p.Get("12a4"); err == nil {
		t.Fatal("Get of non-digits: no error")
	}
}

func TestSplitExactPause(t *testing.T) {
	p, err := Build(context.Background(), kal16(t), Options{Size: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, pause := range []time.Duration{300 * time.Millisecond, 500 * time.Millisecond, 1100 * time.Millisecond} {
		c, err := p.Split("71345", pause)
		if err != nil {
			t.Fatal(err)
		}
		if got := time.Duration(c.PauseEnd-c.PauseStart) * time.Second / Rate; got != pause {
			t.Fatalf("pause %v: clip has %v", pause, got)
		}
		for i := c.PauseStart; i < c.PauseEnd; i++ {
			if c.PCM[i] != 0 {
				t.Fatalf("pause %v: sample %d inside the pause is %d", pause, i, c.PCM[i])
			}
		}
		if c.PCM[c.PauseStart-1] == 0 || c.PCM[c.PauseEnd] == 0 {
			t.Fatalf("pause %v: edges are not voiced", pause)
		}
		if c.First >= c.PauseStart || c.Last < c.PauseEnd {
			t.Fatalf("bounds %d..%d around pause %d..%d", c.First, c.Last, c.PauseStart, c.PauseEnd)
		}
	}
}

func TestNoiseSNR(t *testing.T) {
	noise := make([]int16, 16000)
	ph := speech.NewPhrases(9)
	for i := range noise {
		noise[i] = int16(ph.IntN(2000) - 1000)
	}
	clean, err := Build(context.Background(), kal16(t), Options{Size: 2, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	noisy, err := Build(context.Background(), kal16(t), Options{Size: 2, Seed: 5, Noise: noise, SNR: 10})
	if err != nil {
		t.Fatal(err)
	}
	c, n := clean.Clip(0), noisy.Clip(0)
	diff := make([]int16, c.Last-c.First+1)
	for i := range diff {
		diff[i] = n.PCM[c.First+i] - c.PCM[c.First+i]
	}
	snr := audio.DBFS(c.PCM[c.First:c.Last+1]) - audio.DBFS(diff)
	if snr < 9.5 || snr > 10.5 {
		t.Fatalf("SNR = %.2f dB, want 10", snr)
	}
	if n.First != c.First || n.Last != c.Last {
		t.Fatal("noise moved the voiced bounds")
	}
}

func TestRecordings(t *testing.T) {
	dir := t.TempDir()
	v, err := tts.Flite("kal16")
	if err != nil {
		t.Fatal(err)
	}
	for d := 0; d < 10; d++ {
		pcm, err := v.Synthesize(speech.Words(string(rune('0' + d))))
		if err != nil {
			t.Fatal(err)
		}
		name := []string{"zero.wav", "one-1.wav", "2.wav", "three_take2.wav", "four.WAV", "five.wav", "six.wav", "seven.wav", "eight.wav", "nine.wav"}[d]
		if d == 7 {
			os.MkdirAll(filepath.Join(dir, "seven"), 0o755)
			name = filepath.Join("seven", "a.wav")
		}
		if err := audio.WriteWAVFile(filepath.Join(dir, name), &audio.Clip{Rate: v.Rate(), Channels: 1, Samples: pcm}); err != nil {
			t.Fatal(err)
		}
	}
	r, err := LoadRecordings(dir)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Build(context.Background(), r, Options{Size: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if p.Clip(0).Voiced() < 500*time.Millisecond {
		t.Fatalf("recorded phrase too short: %v", p.Clip(0).Voiced())
	}
	os.Remove(filepath.Join(dir, "nine.wav"))
	if _, err := LoadRecordings(dir); err == nil {
		t.Fatal("missing digit: no error")
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// The committed fixture folder (make fixtures) is what --voices DIR reads.
func TestRecordingsFixture(t *testing.T) {
	r, err := LoadRecordings(filepath.Join("..", "..", "fixtures", "voices", "espeak-en-us"))
	if err != nil {
		t.Fatal(err)
	}
	takes := r.Digits()
	if len(takes) != 10 || takes["zero"] != 2 || takes["one"] != 1 {
		t.Fatalf("takes per digit: %v", takes)
	}
	p, err := Build(context.Background(), r, Options{Size: 3, Seed: 4, Codecs: []Codec{CodecMulaw}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < p.Len(); i++ {
		c := p.Clip(i)
		if c.Voiced() < time.Duration(len(c.Digits))*150*time.Millisecond {
			t.Errorf("%q voiced for only %v", c.Digits, c.Voiced())
		}
	}
}

// fricativeSource renders every phrase as 300 ms of a 200 Hz tone followed by 40 ms of a 6 kHz
// tone: a final /s/ whose energy lies above the telephone band.
type fricativeSource struct{}

func (fricativeSource) Name() string { return "test:fricative" }

func (fricativeSource) Render(string) ([]int16, error) {
	pcm := make([]int16, Rate/10, Rate)
	for i := range Rate * 3 / 10 {
		pcm = append(pcm, int16(8000*math.Sin(2*math.Pi*200*float64(i)/Rate)))
	}
	for i := range Rate * 4 / 100 {
		pcm = append(pcm, int16(6000*math.Sin(2*math.Pi*6000*float64(i)/Rate)))
	}
	return append(pcm, make([]int16, Rate/10)...), nil
}

// TestBoundsAsSent: a pool with one wire codec marks the voiced bounds the far end can hear. Over
// mu-law a final /s/ above 4 kHz is gone, so the last voiced sample comes 40 ms earlier than in the
// 16 kHz clip; Opus's look-ahead delays both bounds by a few ms.
func TestBoundsAsSent(t *testing.T) {
	ctx := context.Background()
	build := func(c Codec) *Clip {
		p, err := Build(ctx, fricativeSource{}, Options{Size: 1, Seed: 1, Codecs: []Codec{c}})
		if err != nil {
			t.Fatal(err)
		}
		return p.Clip(0)
	}
	ms := func(n int) float64 { return float64(n) * 1000 / Rate }
	wide, mu, op := build(CodecPCM16k), build(CodecMulaw), build(CodecOpus)
	t.Logf("16 kHz %.1f..%.1f ms, mu-law %.1f..%.1f ms, opus %.1f..%.1f ms",
		ms(wide.First), ms(wide.Last), ms(mu.First), ms(mu.Last), ms(op.First), ms(op.Last))
	if d := ms(wide.Last - mu.Last); d < 35 || d > 45 {
		t.Errorf("mu-law ends %.1f ms before the 16 kHz clip, want the 40 ms /s/ gone", d)
	}
	if d := ms(mu.First - wide.First); d < -1 || d > 1 {
		t.Errorf("mu-law starts %.1f ms from the 16 kHz clip, want the same onset", d)
	}
	if d := ms(op.First - wide.First); d < 2 || d > 10 {
		t.Errorf("opus starts %.1f ms after the 16 kHz clip, want its look-ahead (a few ms)", d)
	}
	for _, c := range []*Clip{mu, op} {
		if c.First >= c.Last || c.Last >= len(c.PCM) || c.EndFrame() != c.Last/FrameSamples {
			t.Errorf("%s: bounds %d..%d of %d", c.Voice, c.First, c.Last, len(c.PCM))
		}
	}
}

// A quiet speaker (FSDD theo peaks near -30 dBFS) keeps whole words under the peak-relative trim,
// and MaxGap varies the gaps, the same way for the same phrase.
func TestRecordingsFSDD(t *testing.T) {
	r, err := LoadRecordings(filepath.Join("..", "..", "fixtures", "voices", "fsdd", "theo"))
	if err != nil {
		t.Fatal(err)
	}
	if takes := r.Digits(); takes["seven"] != 10 {
		t.Fatalf("takes per digit: %v", takes)
	}
	// The -45 dBFS floor left 141 ms per take on average (18 of 100 under 100 ms); relative, 327.
	var total, n int
	for d, takes := range r.takes {
		for _, tk := range takes {
			total, n = total+len(tk), n+1
			if len(tk) < Rate/8 {
				t.Errorf("digit %d: take trimmed to %d ms", d, len(tk)*1000/Rate)
			}
		}
	}
	if mean := total * 1000 / Rate / n; mean < 250 {
		t.Errorf("takes average %d ms, want >= 250 ms", mean)
	}
	r.Gap, r.MaxGap = Rate*40/1000, Rate*160/1000
	a, err := r.Render("70707")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := r.Render("70707")
	if len(a) != len(b) {
		t.Fatal("same phrase rendered two lengths")
	}
	gaps := map[int]bool{}
	for i := 1; i < 5; i++ {
		g := r.gap("70707", i)
		if g < r.Gap || g > r.MaxGap {
			t.Errorf("gap %d = %d samples, outside [%d, %d]", i, g, r.Gap, r.MaxGap)
		}
		gaps[g] = true
	}
	if len(gaps) < 2 {
		t.Errorf("gaps all alike: %v", gaps)
	}
}
