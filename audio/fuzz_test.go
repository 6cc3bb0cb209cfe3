package audio

import (
	"bytes"
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
