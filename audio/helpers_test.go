package audio

import (
	"math"
	"slices"
	"testing"
	"time"
)

func TestSamplesPerFrame(t *testing.T) {
	for rate, want := range map[int]int{8000: 160, 16000: 320, 24000: 480, 48000: 960, 44100: 882} {
		if got := SamplesPerFrame(rate); got != want {
			t.Errorf("SamplesPerFrame(%d) = %d, want %d", rate, got, want)
		}
		if d := time.Duration(SamplesPerFrame(rate)) * time.Second / time.Duration(rate); d != FrameDuration {
			t.Errorf("frame at %d Hz lasts %v, want %v", rate, d, FrameDuration)
		}
	}
}

func TestMix(t *testing.T) {
	tests := []struct{ a, b, want []int16 }{
		{[]int16{1, 2, 3}, []int16{10, 20}, []int16{11, 22, 3}},
		{[]int16{1}, []int16{10, 20}, []int16{11, 20}},
		{[]int16{30000, -30000}, []int16{10000, -10000}, []int16{32767, -32768}},
		{nil, nil, []int16{}},
	}
	for _, tt := range tests {
		if got := Mix(tt.a, tt.b); !slices.Equal(got, tt.want) {
			t.Errorf("Mix(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestInterleave(t *testing.T) {
	tests := []struct{ l, r, want []int16 }{
		{[]int16{1, 2}, []int16{3, 4}, []int16{1, 3, 2, 4}},
		{[]int16{1, 2, 5}, []int16{3}, []int16{1, 3, 2, 0, 5, 0}},
		{nil, []int16{7}, []int16{0, 7}},
	}
	for _, tt := range tests {
		if got := Interleave(tt.l, tt.r); !slices.Equal(got, tt.want) {
			t.Errorf("Interleave(%v, %v) = %v, want %v", tt.l, tt.r, got, tt.want)
		}
	}
}

func TestLevels(t *testing.T) {
	square := []int16{-32768, -32768, -32768, -32768} // full scale
	sine := tone(48000, 48000, 1000, 32767)
	tests := []struct {
		name      string
		x         []int16
		rms, dbfs float64
	}{
		{"square", square, 32768, 0},
		{"sine", sine, 32767 / math.Sqrt2, -3.0103},
		{"half", []int16{16384, -16384}, 16384, -6.0206},
		{"silence", make([]int16, 10), 0, math.Inf(-1)},
		{"empty", nil, 0, math.Inf(-1)},
	}
	for _, tt := range tests {
		if got := RMS(tt.x); math.Abs(got-tt.rms) > 0.5 {
			t.Errorf("%s: RMS = %v, want %v", tt.name, got, tt.rms)
		}
		got := DBFS(tt.x)
		if math.IsInf(tt.dbfs, -1) != math.IsInf(got, -1) || (!math.IsInf(got, -1) && math.Abs(got-tt.dbfs) > 0.01) {
			t.Errorf("%s: DBFS = %v, want %v", tt.name, got, tt.dbfs)
		}
	}
}

func TestGain(t *testing.T) {
	tests := []struct {
		in   []int16
		g    float64
		want []int16
	}{
		{[]int16{100, -100, 3}, 0.5, []int16{50, -50, 2}},
		{[]int16{20000, -20000}, 2, []int16{32767, -32768}},
		{[]int16{-32768}, -1, []int16{32767}},
		{[]int16{5, 6}, 0, []int16{0, 0}},
	}
	for _, tt := range tests {
		x := slices.Clone(tt.in)
		if Gain(x, tt.g); !slices.Equal(x, tt.want) {
			t.Errorf("Gain(%v, %v) = %v, want %v", tt.in, tt.g, x, tt.want)
		}
	}
}
