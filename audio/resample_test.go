package audio

import (
	"errors"
	"math"
	"testing"
)

// tone returns n samples of a sine at freq Hz, sampled at rate, peak amp.
func tone(n, rate int, freq, amp float64) []int16 {
	out := make([]int16, n)
	for i := range out {
		out[i] = int16(math.Round(amp * math.Sin(2*math.Pi*freq*float64(i)/float64(rate))))
	}
	return out
}

// snrDB compares got against want over [lo, hi), in dB.
func snrDB(want, got []int16, lo, hi int) float64 {
	var sig, noise float64
	for i := lo; i < hi; i++ {
		d := float64(got[i]) - float64(want[i])
		sig += float64(want[i]) * float64(want[i])
		noise += d * d
	}
	if noise == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(sig/noise)
}

func TestResampleLength(t *testing.T) {
	tests := []struct{ n, from, to, want int }{
		{960, 48000, 8000, 160},
		{160, 8000, 48000, 960},
		{320, 16000, 24000, 480},
		{7, 48000, 16000, 2}, // 2.33 rounds down
		{5, 48000, 16000, 2}, // 1.67 rounds up
		{1, 8000, 48000, 6},
		{0, 8000, 16000, 0},
		{882, 44100, 48000, 960},
		{100, 16000, 16000, 100},
	}
	for _, tt := range tests {
		got := len(Resample(make([]int16, tt.n), tt.from, tt.to))
		if got != tt.want {
			t.Errorf("Resample(%d samples, %d→%d): len %d, want %d", tt.n, tt.from, tt.to, got, tt.want)
		}
	}
}

func TestResampleRoundTrip(t *testing.T) {
	tests := []struct {
		mid  int     // intermediate rate
		rate int     // signal rate
		freq float64 // tone
	}{
		{8000, 48000, 1000},
		{16000, 8000, 1000},
		{16000, 48000, 1000},
		{24000, 16000, 3000},
		{8000, 24000, 440},
		{48000, 44100, 1000},
	}
	for _, tt := range tests {
		in := tone(tt.rate, tt.rate, tt.freq, 10000) // one second
		back := Resample(Resample(in, tt.rate, tt.mid), tt.mid, tt.rate)
		edge := tt.rate / 50
		snr := snrDB(in, back, edge, len(in)-edge)
		if snr < 30 {
			t.Errorf("%d→%d→%d of %v Hz: SNR %.1f dB, want >= 30", tt.rate, tt.mid, tt.rate, tt.freq, snr)
		}
		t.Logf("%d→%d→%d of %v Hz: SNR %.1f dB", tt.rate, tt.mid, tt.rate, tt.freq, snr)
	}
}

// TestResampleNoDelay checks the one-shot output is centred: a resampled
// tone matches the same tone generated directly at the target rate.
func TestResampleNoDelay(t *testing.T) {
	for _, p := range [][2]int{{48000, 8000}, {8000, 48000}, {16000, 24000}, {24000, 16000}} {
		got := Resample(tone(p[0], p[0], 1000, 10000), p[0], p[1])
		want := tone(p[1], p[1], 1000, 10000)
		edge := p[1] / 50
		if snr := snrDB(want, got, edge, len(want)-edge); snr < 40 {
			t.Errorf("%d→%d: SNR vs direct tone %.1f dB, want >= 40 (delayed?)", p[0], p[1], snr)
		}
	}
}

func TestResampleAntiAlias(t *testing.T) {
	tests := []struct {
		from, to int
		freq     float64
	}{
		{48000, 8000, 5000},
		{48000, 8000, 4100},
		{48000, 16000, 9000},
		{24000, 16000, 8500},
		{16000, 8000, 6000},
	}
	for _, tt := range tests {
		in := tone(tt.from, tt.from, tt.freq, 20000)
		out := Resample(in, tt.from, tt.to)
		edge := tt.to / 50
		att := DBFS(in) - DBFS(out[edge:len(out)-edge])
		if att < 30 {
			t.Errorf("%v Hz %d→%d: attenuation %.1f dB, want >= 30", tt.freq, tt.from, tt.to, att)
		}
		t.Logf("%v Hz %d→%d: attenuation %.1f dB", tt.freq, tt.from, tt.to, att)
	}
}

// TestResamplePassband checks voice-band tones keep their level.
func TestResamplePassband(t *testing.T) {
	for _, p := range [][2]int{{48000, 8000}, {8000, 48000}, {48000, 16000}, {16000, 8000}} {
		for _, freq := range []float64{300, 1000, 2000, 3000} {
			in := tone(p[0], p[0], freq, 20000)
			out := Resample(in, p[0], p[1])
			edge := p[1] / 50
			if d := DBFS(out[edge:len(out)-edge]) - DBFS(in); math.Abs(d) > 0.05 {
				t.Errorf("%v Hz %d→%d: gain %.3f dB, want 0±0.05", freq, p[0], p[1], d)
			}
		}
	}
}

// TestResampleImaging checks upsampling leaves no image above the old Nyquist.
func TestResampleImaging(t *testing.T) {
	in := tone(8000, 8000, 3000, 20000)
	out := Resample(in, 8000, 48000)
	// Image of 3 kHz at 8 kHz sampling sits at 5 kHz; project onto it.
	var re, im float64
	for i := 960; i < len(out)-960; i++ {
		ph := 2 * math.Pi * 5000 * float64(i) / 48000
		re += float64(out[i]) * math.Cos(ph)
		im += float64(out[i]) * math.Sin(ph)
	}
	amp := 2 * math.Hypot(re, im) / float64(len(out)-1920)
	if db := 20 * math.Log10(amp/20000); db > -30 {
		t.Errorf("5 kHz image at %.1f dB, want <= -30", db)
	}
}

func TestResampleDC(t *testing.T) {
	in := make([]int16, 4800)
	for i := range in {
		in[i] = 12345
	}
	out := Resample(in, 48000, 16000)
	for i := 100; i < len(out)-100; i++ {
		if d := int(out[i]) - 12345; d < -1 || d > 1 {
			t.Fatalf("DC out[%d] = %d, want 12345±1", i, out[i])
		}
	}
}

func TestNewResamplerRates(t *testing.T) {
	tests := []struct {
		from, to int
		ok       bool
	}{
		{8000, 11025, true},
		{7000, 48000, true},
		{MinRate, MaxRate, true},
		{MaxRate, MinRate, true},
		{0, 8000, false},
		{48000, -1, false},
		{MinRate - 1, 16000, false},
		{16000, MaxRate + 1, false},
		{4_000_000_000, 16000, false},
	}
	for _, tt := range tests {
		_, err := NewResampler(tt.from, tt.to)
		if tt.ok != (err == nil) || (err != nil && !errors.Is(err, ErrRate)) {
			t.Errorf("NewResampler(%d, %d) err = %v, want ok %v or ErrRate", tt.from, tt.to, err, tt.ok)
		}
		out, err := ResampleChecked([]int16{1, 2, 3}, tt.from, tt.to)
		if tt.ok != (err == nil) || (err != nil && (!errors.Is(err, ErrRate) || out != nil)) {
			t.Errorf("ResampleChecked(%d, %d) = %d samples, %v; want ok %v or ErrRate", tt.from, tt.to, len(out), err, tt.ok)
		}
	}
}

// TestResampleAnyRate resamples a tone between recording rates, odd ones included (coprime pairs
// take the interpolated table), and compares it with the same tone made at the target rate.
func TestResampleAnyRate(t *testing.T) {
	rates := []int{8000, 11025, 16000, 22050, 44100, 48000, 96000, 44101, 7919, MinRate, MaxRate}
	if raceEnabled {
		rates = []int{8000, 11025, 44101, 96000}
	}
	for _, from := range rates {
		for _, to := range rates {
			freq := min(1000, 0.3*float64(min(from, to))) // well inside both passbands
			in := tone(from/4, from, freq, 10000)
			got := Resample(in, from, to)
			if n := (len(in)*to + from/2) / from; len(got) != n {
				t.Fatalf("%d→%d: %d samples, want %d", from, to, len(got), n)
			}
			want := tone(len(got), to, freq, 10000)
			edge := to / 50
			if snr := snrDB(want, got, edge, len(want)-edge); snr < 40 {
				t.Errorf("%d→%d of %.0f Hz: SNR vs direct tone %.1f dB, want >= 40", from, to, freq, snr)
			}
		}
	}
}

// TestResampleInterpolatedQuality holds the interpolated table to the exact one's standard: a
// coprime pair next to its round neighbour, on tones across the voice band.
func TestResampleInterpolatedQuality(t *testing.T) {
	for _, p := range [][2]int{{44101, 16000}, {16000, 44101}, {7919, 8000}, {48001, 8000}} {
		f := filterFor(p[0], p[1])
		if f.exact {
			t.Fatalf("%d→%d: %d phases took the exact table; the test wants the interpolated one", p[0], p[1], f.l)
		}
		for _, freq := range []float64{300, 1000, 3000} {
			got := Resample(tone(p[0]/2, p[0], freq, 20000), p[0], p[1])
			want := tone(p[1]/2, p[1], freq, 20000)
			edge := p[1] / 50
			if snr := snrDB(want, got, edge, len(want)-edge); snr < 65 {
				t.Errorf("%d→%d of %v Hz: SNR %.1f dB, want >= 65", p[0], p[1], freq, snr)
			}
		}
	}
}

// TestResampleOddRateAntiAlias checks a tone above the lower Nyquist is filtered out between odd
// rates too.
func TestResampleOddRateAntiAlias(t *testing.T) {
	for _, p := range [][2]int{{44101, 8000}, {96000, 11025}, {22050, 8000}, {MaxRate, 16000}} {
		freq := 0.6 * float64(p[1]) // past the output's Nyquist (0.5) and the filter's transition
		in := tone(p[0]/4, p[0], freq, 20000)
		out := Resample(in, p[0], p[1])
		edge := p[1] / 50
		if att := DBFS(in) - DBFS(out[edge:len(out)-edge]); att < 30 {
			t.Errorf("%.0f Hz %d→%d: attenuation %.1f dB, want >= 30", freq, p[0], p[1], att)
		}
	}
}

// TestResampleTableBounded checks the filter of the widest pairs stays within its table budget.
func TestResampleTableBounded(t *testing.T) {
	for _, p := range [][2]int{{MaxRate - 1, MinRate}, {MinRate, MaxRate - 1}, {MaxRate - 1, 16000}, {44101, MaxRate}} {
		f := designPolyphase(p[0], p[1])
		if n := len(f.coef); n > interpTableCoefs+int(f.taps) {
			t.Errorf("%d→%d: %d coefficients, want <= %d", p[0], p[1], n, interpTableCoefs)
		}
	}
}

// TestResamplerStreaming checks frame-exact output and equality with the
// one-shot result delayed by Latency, for every pair of the main rates.
func TestResamplerStreaming(t *testing.T) {
	rates := []int{8000, 12000, 16000, 22050, 24000, 32000, 44100, 48000}
	if raceEnabled {
		rates = []int{8000, 16000, 48000}
	}
	for _, from := range rates {
		for _, to := range rates {
			checkStreaming(t, from, to)
		}
	}
}

// TestResamplerStreamingOddRates checks chunks of a stream between rates without an integral
// 20 ms frame (or with coprime ratios) add up to the one-shot result, delayed by Latency.
func TestResamplerStreamingOddRates(t *testing.T) {
	for _, p := range [][2]int{{11025, 16000}, {16000, 11025}, {44101, 16000}, {8000, 7919}, {96000, 8000}} {
		in := tone(p[0]/5, p[0], 700, 8000)
		want := Resample(in, p[0], p[1])
		r, err := NewResampler(p[0], p[1])
		if err != nil {
			t.Fatal(err)
		}
		var got []int16
		for i, step := 0, 1; i < len(in); i, step = i+step, step%301+7 {
			got = r.ProcessTo(got, in[i:min(i+step, len(in))])
		}
		lat := r.Latency()
		if len(got) < len(want)-p[1]/100 {
			t.Fatalf("%d→%d: streamed %d samples, one-shot %d", p[0], p[1], len(got), len(want))
		}
		for i := lat; i < len(got) && i-lat < len(want); i++ {
			if d := int(got[i]) - int(want[i-lat]); d < -1 || d > 1 {
				t.Fatalf("%d→%d: stream[%d]=%d, one-shot[%d]=%d", p[0], p[1], i, got[i], i-lat, want[i-lat])
			}
		}
	}
}

func checkStreaming(t *testing.T, from, to int) {
	t.Helper()
	r, err := NewResampler(from, to)
	if err != nil {
		t.Fatal(err)
	}
	in := Mix(tone(from/5, from, 700, 8000), tone(from/5, from, 2300, 6000)) // ten frames
	inFrame, outFrame := SamplesPerFrame(from), SamplesPerFrame(to)
	var stream []int16
	for i := 0; i+inFrame <= len(in); i += inFrame {
		out := r.Process(in[i : i+inFrame])
		if len(out) != outFrame {
			t.Fatalf("%d→%d frame %d: %d samples, want %d", from, to, i/inFrame, len(out), outFrame)
		}
		stream = append(stream, out...)
	}
	want := Resample(in, from, to)
	lat := r.Latency()
	if lat > 4*to/1000 {
		t.Errorf("%d→%d latency %d samples, want <= 4 ms", from, to, lat)
	}
	for i := 0; i+lat < len(stream); i++ {
		if d := int(stream[i+lat]) - int(want[i]); d < -1 || d > 1 {
			t.Fatalf("%d→%d: stream[%d+%d]=%d, one-shot[%d]=%d", from, to, i, lat, stream[i+lat], i, want[i])
		}
	}
}

// TestResamplerOddChunks feeds chunks that are not whole frames.
func TestResamplerOddChunks(t *testing.T) {
	in := tone(4800, 48000, 1000, 9000)
	want := Resample(in, 48000, 8000)
	r, _ := NewResampler(48000, 8000)
	var got []int16
	for i, step := 0, 1; i < len(in); i, step = i+step, step%37+1 {
		got = r.ProcessTo(got, in[i:min(i+step, len(in))])
	}
	lat := r.Latency()
	if len(got) > len(want)+lat || len(got) < len(want) {
		t.Fatalf("got %d samples, want about %d", len(got), len(want))
	}
	for i := lat; i < len(got); i++ {
		if got[i] != want[i-lat] {
			t.Fatalf("got[%d]=%d, want %d", i, got[i], want[i-lat])
		}
	}
	r.Reset()
	if out := r.Process(in[:960]); len(out) != 160 {
		t.Fatalf("after Reset: %d samples, want 160", len(out))
	}
}

func TestResamplerNoAlloc(t *testing.T) {
	r, _ := NewResampler(48000, 16000)
	frame := tone(960, 48000, 1000, 9000)
	r.Process(frame) // warm the buffers
	if n := testing.AllocsPerRun(100, func() { r.Process(frame) }); n != 0 {
		t.Errorf("Process allocates %v times per frame, want 0", n)
	}
}

func benchResampler(b *testing.B, from, to int) {
	r, err := NewResampler(from, to)
	if err != nil {
		b.Fatal(err)
	}
	frame := tone(SamplesPerFrame(from), from, 1000, 9000)
	b.ReportAllocs()
	for b.Loop() {
		r.Process(frame)
	}
}

func BenchmarkResampler48kTo16k(b *testing.B) { benchResampler(b, 48000, 16000) }
func BenchmarkResampler8kTo16k(b *testing.B)  { benchResampler(b, 8000, 16000) }
func BenchmarkResampler48kTo8k(b *testing.B)  { benchResampler(b, 48000, 8000) }
func BenchmarkResampler8kTo48k(b *testing.B)  { benchResampler(b, 8000, 48000) }
