package audio

import "bytes"

// SilenceSkip spares an Opus receiver decoding the same silent packet over and over: senders
// that keep RTP flowing between utterances repeat one pre-encoded packet of digital silence every
// 20 ms, which decodes to the decoder's ±1 LSB noise floor once its state has settled, and those
// decodes were most of a quiet call's receive cost. Use Skip before decoding and Decoded after.
type SilenceSkip struct {
	pkt     []byte // the last packet that decoded to the noise floor
	n       int    // how many times in a row it did
	samples int    // how many samples it decoded to
}

const (
	// settled is how many quiet decodes of the same packet in a row make its copies skippable.
	settled = 2
	// floor is the loudest sample of a quiet decode: -78 dBFS, the decoder's dither.
	floor = 4
)

// Skip reports whether payload is the settled silent packet, and if so how many samples of
// zeros to deliver instead of decoding it (0: decode it).
func (s *SilenceSkip) Skip(payload []byte) int {
	if s.n >= settled && bytes.Equal(payload, s.pkt) {
		return s.samples
	}
	return 0
}

// Decoded records what a decoded packet gave.
func (s *SilenceSkip) Decoded(payload []byte, pcm []int16) {
	for _, v := range pcm {
		if v > floor || v < -floor {
			s.n = 0
			return
		}
	}
	if s.n > 0 && bytes.Equal(payload, s.pkt) && len(pcm) == s.samples {
		s.n++
		return
	}
	s.pkt = append(s.pkt[:0], payload...)
	s.n, s.samples = 1, len(pcm)
}
