package audio

import (
	"bytes"
	"errors"
	"runtime"
	"testing"
)

// FuzzReadWAV checks that ReadWAV never panics, returns consistent clips,
// and allocates in proportion to its input, not to the sizes it declares.
func FuzzReadWAV(f *testing.F) {
	seeds := []wavSpec{
		{channels: 1, rate: 8000, dataSize: -1, samples: []int16{1, -1, 300}},
		{channels: 2, rate: 48000, dataSize: -1, samples: []int16{1, 2, 3, 4}},
		{extensible: true, channels: 2, rate: 16000, dataSize: -1, samples: []int16{5, 6}},
		{channels: 1, rate: 8000, before: chunk("LIST", []byte("INFOa")), dataSize: 0x7FFFFFFF, samples: []int16{7}},
		{channels: 1, rate: 8000, before: []byte("JUNK\xff\xff\xff\xff"), dataSize: -1},
		{channels: 0, rate: 8000, align: -1, dataSize: -1},
		{format: 3, bits: 32, align: 4, channels: 1, rate: 8000, dataSize: -1},
	}
	for _, s := range seeds {
		f.Add(s.bytes())
	}
	f.Add([]byte{})
	f.Add([]byte("RIFF\x00\x00\x00\x00WAVE"))
	f.Fuzz(func(t *testing.T, in []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		c, err := ReadWAV(bytes.NewReader(in))
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 256<<10+4*uint64(len(in)) {
			t.Fatalf("allocated %d bytes for a %d-byte input", grew, len(in))
		}
		if err != nil {
			return
		}
		if c.Channels < 1 || c.Rate < 1 || len(c.Samples)%c.Channels != 0 || 2*len(c.Samples) > len(in) {
			t.Fatalf("inconsistent clip: %d Hz %d ch %d samples from %d bytes", c.Rate, c.Channels, len(c.Samples), len(in))
		}
		// Writing a clip we read must succeed and read back identically.
		var buf bytes.Buffer
		if err := WriteWAV(&buf, c); err != nil {
			t.Fatalf("rewrite: %v", err)
		}
		back, err := ReadWAV(&buf)
		if err != nil || !bytes.Equal(appendBytesLE16(nil, back.Samples), appendBytesLE16(nil, c.Samples)) {
			t.Fatalf("rewrite round trip: %v", err)
		}
	})
}

// FuzzResample resamples arbitrary samples between arbitrary rates: it must never panic, must
// refuse exactly the rates CheckRate refuses, give round(len*to/from) samples, and stream (in
// chunks of any size) what the one-shot gives, delayed by Latency.
func FuzzResample(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4}, int64(8000), int64(16000), uint16(160))
	f.Add([]byte{0xff, 0x7f, 0, 0x80}, int64(11025), int64(16000), uint16(1))
	f.Add([]byte{9, 9}, int64(44101), int64(8000), uint16(33))
	f.Add([]byte{}, int64(0), int64(16000), uint16(0))
	f.Add([]byte{5}, int64(MaxRate+1), int64(MinRate), uint16(7))
	f.Fuzz(func(t *testing.T, data []byte, from, to int64, chunk uint16) {
		in := appendLE16(nil, data[:min(len(data), 2048)&^1]) // bounded: the rates may expand it 384 times
		fr, tr := int(from), int(to)
		out, err := ResampleChecked(in, fr, tr)
		refused := CheckRate(fr) != nil || CheckRate(tr) != nil
		if refused != (err != nil) {
			t.Fatalf("%d→%d: err %v, CheckRate refuses: %v", fr, tr, err, refused)
		}
		if err != nil {
			if !errors.Is(err, ErrRate) {
				t.Fatalf("%d→%d: %v, want ErrRate", fr, tr, err)
			}
			return
		}
		if n := (int64(len(in))*to + from/2) / from; int64(len(out)) != n {
			t.Fatalf("%d→%d: %d samples from %d, want %d", fr, tr, len(out), len(in), n)
		}
		r, err := NewResampler(fr, tr)
		if err != nil {
			t.Fatal(err)
		}
		step := int(chunk)%500 + 1
		var got []int16
		for i := 0; i < len(in); i += step {
			got = r.ProcessTo(got, in[i:min(i+step, len(in))])
		}
		lat := r.Latency()
		for i := lat; i < len(got) && i-lat < len(out); i++ {
			if d := int(got[i]) - int(out[i-lat]); d < -1 || d > 1 {
				t.Fatalf("%d→%d: stream[%d]=%d, one-shot[%d]=%d", fr, tr, i, got[i], i-lat, out[i-lat])
			}
		}
	})
}
