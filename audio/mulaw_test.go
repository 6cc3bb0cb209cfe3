package audio

import (
	"math"
	"slices"
	"testing"
)

// Values from ITU-T G.711 Table 2a (mu-law), 14-bit decoder outputs × 4.
func TestMulawDecodeTable(t *testing.T) {
	tests := []struct {
		code byte
		want int16
	}{
		{0xFF, 0}, {0x7F, 0}, // the two zeros
		{0xFE, 8}, {0x7E, -8},
		{0xF0, 120},              // top of segment 0
		{0xEF, 132},              // bottom of segment 1 (33 × 4)
		{0xE0, 372}, {0xDF, 396}, // segment 1 → 2
		{0xCF, 924}, {0xBF, 1980}, {0xAF, 4092}, {0x9F, 8316},
		{0x8F, 16764}, // bottom of segment 7
		{0x81, 31100},
		{0x80, 32124}, {0x00, -32124}, // extremes (8031 × 4)
	}
	for _, tt := range tests {
		if got := MulawDecodeSample(tt.code); got != tt.want {
			t.Errorf("MulawDecodeSample(%#02x) = %d, want %d", tt.code, got, tt.want)
		}
	}
}

// Segment boundaries are the G.711 decision levels 31, 95, ..., 4063 × 4.
func TestMulawEncodeBoundaries(t *testing.T) {
	tests := []struct {
		in   int16
		want byte
	}{
		{0, 0xFF}, {3, 0xFF}, {4, 0xFE}, {-1, 0x7F}, {-4, 0x7F}, {-5, 0x7E},
		{-124, 0x70}, {-125, 0x6F}, {-16253, 0x0F},
		{123, 0xF0}, {124, 0xEF},
		{379, 0xE0}, {380, 0xDF},
		{891, 0xD0}, {892, 0xCF},
		{1915, 0xC0}, {1916, 0xBF},
		{3963, 0xB0}, {3964, 0xAF},
		{8059, 0xA0}, {8060, 0x9F},
		{16251, 0x90}, {16252, 0x8F},
		{32124, 0x80}, {32767, 0x80}, {-32768, 0x00}, {-32124, 0x00},
	}
	for _, tt := range tests {
		if got := MulawEncodeSample(tt.in); got != tt.want {
			t.Errorf("MulawEncodeSample(%d) = %#02x, want %#02x", tt.in, got, tt.want)
		}
	}
}

func TestMulawCodeRoundTrip(t *testing.T) {
	for c := 0; c < 256; c++ {
		want := byte(c)
		if want == 0x7F { // negative zero re-encodes as positive zero
			want = 0xFF
		}
		if got := MulawEncodeSample(MulawDecodeSample(byte(c))); got != want {
			t.Errorf("encode(decode(%#02x)) = %#02x", c, got)
		}
	}
}

// TestMulawErrorBound: every sample comes back within half a step of its
// segment (step 8<<seg, plus 1 for negatives, which are centred on -0.5),
// or at ±32124 when clipped; codes are symmetric under one's complement.
func TestMulawErrorBound(t *testing.T) {
	for v := math.MinInt16; v <= math.MaxInt16; v++ {
		s := int16(v)
		c := MulawEncodeSample(s)
		if mirror := MulawEncodeSample(^s); mirror != c^0x80 {
			t.Fatalf("encode(%d)=%#02x but encode(%d)=%#02x", s, c, ^s, mirror)
		}
		seg := (^c >> 4) & 7
		limit := 4 << seg
		if v < 0 {
			limit++
		}
		if a := abs(v); a > 32124 {
			limit = max(limit, a-32124)
		}
		if e := abs(int(MulawDecodeSample(c)) - v); e > limit {
			t.Fatalf("sample %d: error %d > %d", v, e, limit)
		}
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

func TestMulawSlices(t *testing.T) {
	pcm := []int16{0, 1000, -1000, 32767, -32768}
	prefix := []byte{0xAA}
	enc := MulawEncode(prefix, pcm)
	if len(enc) != 6 || enc[0] != 0xAA {
		t.Fatalf("MulawEncode kept prefix badly: %x", enc)
	}
	dec := MulawDecode([]int16{7}, enc[1:])
	want := []int16{7}
	for _, s := range pcm {
		want = append(want, MulawDecodeSample(MulawEncodeSample(s)))
	}
	if !slices.Equal(dec, want) {
		t.Errorf("MulawDecode = %v, want %v", dec, want)
	}
	buf := make([]byte, 0, 160)
	frame := make([]int16, 160)
	if n := testing.AllocsPerRun(10, func() { buf = MulawEncode(buf[:0], frame) }); n != 0 {
		t.Errorf("MulawEncode into a big enough buffer allocates %v times", n)
	}
}

func BenchmarkMulawEncodeFrame(b *testing.B) {
	pcm := tone(160, 8000, 1000, 12000)
	buf := make([]byte, 0, 160)
	for b.Loop() {
		buf = MulawEncode(buf[:0], pcm)
	}
}

func BenchmarkMulawDecodeFrame(b *testing.B) {
	mu := MulawEncode(nil, tone(160, 8000, 1000, 12000))
	buf := make([]int16, 0, 160)
	for b.Loop() {
		buf = MulawDecode(buf[:0], mu)
	}
}
