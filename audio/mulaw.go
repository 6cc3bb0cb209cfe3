package audio

import (
	"math/bits"
	"slices"
)

// G.711 mu-law (ITU-T G.711, Table 2a), in the usual 16-bit form: the
// 14-bit G.711 magnitude scaled by 4, so the bias 33 becomes 0x84 and the
// largest decoded value is ±32124.
const mulawBias = 0x84

// mulawTable maps each code to its linear value, built from the G.711
// decoding rule once at start-up.
var mulawTable = func() (t [256]int16) {
	for i := range t {
		u := ^byte(i) // codes are transmitted with all bits inverted
		mag := (int32(u&0x0F)<<3 + mulawBias) << (u & 0x70 >> 4)
		if u&0x80 != 0 {
			t[i] = int16(mulawBias - mag)
		} else {
			t[i] = int16(mag - mulawBias)
		}
	}
	return t
}()

// MulawEncodeSample compresses one sample to a G.711 mu-law code. It
// matches ulaw_compress of the ITU-T G.191 reference (STL g711.c): the
// 14-bit magnitude of a negative sample is taken from its one's complement,
// so the quantiser is symmetric about -0.5.
func MulawEncodeSample(s int16) byte {
	mag, sign := int32(s), byte(0)
	if mag < 0 {
		mag, sign = ^mag, 0x80
	}
	v := min(mag>>2+33, 0x1FFF)             // biased 14-bit magnitude, clipped
	exp := byte(bits.Len32(uint32(v) >> 6)) // segment: position of the top bit above bit 5
	mant := byte(v>>(exp+1)) & 0x0F
	return ^(sign | exp<<4 | mant) // transmitted with all bits inverted
}

// MulawDecodeSample expands one G.711 mu-law code to a linear sample.
func MulawDecodeSample(b byte) int16 {
	return mulawTable[b]
}

// MulawEncode appends the mu-law codes of pcm to dst.
func MulawEncode(dst []byte, pcm []int16) []byte {
	dst = slices.Grow(dst, len(pcm))[:len(dst)+len(pcm)]
	out := dst[len(dst)-len(pcm):]
	for i, s := range pcm {
		out[i] = MulawEncodeSample(s)
	}
	return dst
}

// MulawDecode appends the linear samples of the mu-law codes mu to dst.
func MulawDecode(dst []int16, mu []byte) []int16 {
	dst = slices.Grow(dst, len(mu))[:len(dst)+len(mu)]
	out := dst[len(dst)-len(mu):]
	for i, b := range mu {
		out[i] = mulawTable[b]
	}
	return dst
}
