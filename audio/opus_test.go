package audio

import (
	"errors"
	"math"
	"testing"
)

// speechLike is a voiced-speech stand-in: a 140 Hz harmonic series shaped
// by two formants and amplitude-modulated at a syllable rate of 4 Hz.
func speechLike(n int) []int16 {
	out := make([]int16, n)
	for i := range out {
		t := float64(i) / OpusRate
		var v float64
		for h := 1.0; h*140 < 3500; h++ {
			f := h * 140
			w := math.Exp(-sq((f-600)/250)) + 0.5*math.Exp(-sq((f-1700)/400)) + 0.05
			v += w * math.Sin(2*math.Pi*f*t+h)
		}
		env := 0.55 + 0.45*math.Sin(2*math.Pi*4*t)
		out[i] = int16(3000 * env * v)
	}
	return out
}

func sq(x float64) float64 { return x * x }

// correlation is the normalised cross-correlation of a[i] and b[i+lag].
func correlation(a, b []int16, lag int) float64 {
	var ab, aa, bb float64
	for i := 0; i < len(a) && i+lag < len(b); i++ {
		x, y := float64(a[i]), float64(b[i+lag])
		ab += x * y
		aa += x * x
		bb += y * y
	}
	return ab / math.Sqrt(aa*bb)
}

func TestOpusRoundTrip(t *testing.T) {
	enc, err := NewOpusEncoder(32000)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := NewOpusDecoder()
	if err != nil {
		t.Fatal(err)
	}
	in := speechLike(2 * OpusRate)
	var out []int16
	for i := 0; i+960 <= len(in); i += 960 {
		pkt, err := enc.Encode(in[i : i+960])
		if err != nil {
			t.Fatal(err)
		}
		if len(pkt) == 0 || len(pkt) > 1276 {
			t.Fatalf("packet of %d bytes", len(pkt))
		}
		pcm, err := dec.Decode(pkt)
		if err != nil {
			t.Fatal(err)
		}
		if len(pcm) != 960 {
			t.Fatalf("decoded %d samples, want 960", len(pcm))
		}
		out = append(out, pcm...)
	}
	// Skip the first 200 ms while the codec settles, then find the delay.
	ref := in[9600 : 9600+OpusRate]
	bestLag, best := 0, -1.0
	for lag := 0; lag < 1000; lag++ {
		if c := correlation(ref, out[9600:], lag); c > best {
			bestLag, best = lag, c
		}
	}
	t.Logf("opus delay %d samples (%.2f ms), correlation %.3f", bestLag, float64(bestLag)/48, best)
	if bestLag < 200 || bestLag > 450 {
		t.Errorf("opus delay %d samples, want about 312", bestLag)
	}
	if best < 0.9 {
		t.Errorf("correlation %.3f after alignment, want >= 0.9", best)
	}
}

func TestOpusFrameSize(t *testing.T) {
	enc, err := NewOpusEncoder(24000)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 959, 961, 480, 1920} {
		if _, err := enc.Encode(make([]int16, n)); !errors.Is(err, ErrFrameSize) {
			t.Errorf("Encode(%d samples) err = %v, want ErrFrameSize", n, err)
		}
	}
}

func TestOpusSettings(t *testing.T) {
	if _, err := NewOpusEncoder(-5); err == nil {
		t.Error("NewOpusEncoder(-5) succeeded")
	}
	enc, _ := NewOpusEncoder(24000)
	if err := enc.SetComplexity(11); err == nil {
		t.Error("SetComplexity(11) succeeded")
	}
	if err := enc.SetComplexity(10); err != nil {
		t.Error(err)
	}
	if err := enc.SetBitrate(64000); err != nil {
		t.Error(err)
	}
}

func TestOpusPLC(t *testing.T) {
	enc, _ := NewOpusEncoder(24000)
	dec, _ := NewOpusDecoder()
	in := speechLike(960 * 10)
	for i := 0; i < 5; i++ {
		pkt, _ := enc.Encode(in[i*960 : (i+1)*960])
		if _, err := dec.Decode(pkt); err != nil {
			t.Fatal(err)
		}
	}
	conceal := map[string]func() ([]int16, error){
		"DecodePLC":    dec.DecodePLC,
		"empty packet": func() ([]int16, error) { return dec.Decode(nil) },
	}
	for name, f := range conceal {
		if pcm, err := f(); err != nil || len(pcm) != 960 {
			t.Fatalf("%s: %d samples, err %v; want 960", name, len(pcm), err)
		}
	}
	pkt, _ := enc.Encode(in[5*960 : 6*960])
	if pcm, err := dec.Decode(pkt); err != nil || len(pcm) != 960 {
		t.Fatalf("decode after loss: %d samples, err %v", len(pcm), err)
	}
}

func TestOpusDecodeGarbage(t *testing.T) {
	dec, _ := NewOpusDecoder()
	// TOC code 3 with a frame count of 0 is invalid (RFC 6716 §3.2.5).
	if _, err := dec.Decode([]byte{0x03, 0x00}); err == nil {
		t.Error("decoding an invalid packet succeeded")
	}
}

func BenchmarkOpusEncodeFrame(b *testing.B) {
	enc, _ := NewOpusEncoder(32000)
	in := speechLike(960 * 50)
	buf := make([]byte, 0, opusMaxPacket)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = enc.EncodeTo(buf[:0], in[i*960:(i+1)*960])
		i = (i + 1) % 50
	}
}

func BenchmarkOpusDecodeFrame(b *testing.B) {
	enc, _ := NewOpusEncoder(32000)
	dec, _ := NewOpusDecoder()
	in := speechLike(960 * 50)
	pkts := make([][]byte, 50)
	for i := range pkts {
		pkts[i], _ = enc.Encode(in[i*960 : (i+1)*960])
	}
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		if _, err := dec.Decode(pkts[i]); err != nil {
			b.Fatal(err)
		}
		i = (i + 1) % 50
	}
}

func TestOpus16k(t *testing.T) {
	enc, err := NewOpusEncoderRate(16000, 24000)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := NewOpusDecoderRate(16000)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := enc.Encode(make([]int16, 960)); err == nil {
		t.Fatal("960 samples at 16 kHz accepted")
	}
	var energy float64
	for i := 0; i < 10; i++ {
		frame := make([]int16, 320)
		for j := range frame {
			frame[j] = int16(8000 * math.Sin(2*math.Pi*440*float64(i*320+j)/16000))
		}
		pkt, err := enc.Encode(frame)
		if err != nil {
			t.Fatal(err)
		}
		out, err := dec.Decode(pkt)
		if err != nil || len(out) != 320 {
			t.Fatalf("decode: %d samples, %v", len(out), err)
		}
		energy += RMS(out)
	}
	if energy < 1000 {
		t.Fatalf("decoded 16 kHz tone is near silent (RMS sum %.0f)", energy)
	}
	if plc, err := dec.DecodePLC(); err != nil || len(plc) != 320 {
		t.Fatalf("PLC: %d, %v", len(plc), err)
	}
}
