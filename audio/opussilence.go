package audio

import "bytes"

// SilenceSkip spares an Opus receiver decoding the same silent packet over and over: senders
// that keep RTP flowing between utterances repeat one pre-encoded packet of digital silence every
// 20 ms, which decodes to the decoder's ±1 LSB noise floor once its state has settled, and those
// decodes were most of a quiet call's receive cost. Use Skip before decoding and Decoded after.
type SilenceSkip struct {
	pkt   []byte  // the last packet that decoded to the noise floor
	n     int     // how many times in a row it did
	zeros []int16 // as many zeros as it decoded to samples
}

const (
	// settled is how many quiet decodes of the same packet in a row make its copies skippable.
	settled = 2
	// floor is the loudest sample of a quiet decode: -78 dBFS, the decoder's dither.
	floor = 4
)

// Skip returns the frame of zeros to deliver instead of decoding payload when it is the settled
// silent packet, or nil: decode it. The frame is the SilenceSkip's own; do not change it.
func (s *SilenceSkip) Skip(payload []byte) []int16 {
	if s.n >= settled && bytes.Equal(payload, s.pkt) {
		return s.zeros
	}
	return nil
}

// Decoded records what a decoded packet gave.
func (s *SilenceSkip) Decoded(payload []byte, pcm []int16) {
	for _, v := range pcm {
		if v > floor || v < -floor {
			s.n = 0
			return
		}
	}
	if s.n > 0 && bytes.Equal(payload, s.pkt) && len(pcm) == len(s.zeros) {
		s.n++
		return
	}
	s.pkt = append(s.pkt[:0], payload...)
	if cap(s.zeros) < len(pcm) {
		s.zeros = make([]int16, len(pcm))
	}
	s.zeros, s.n = s.zeros[:len(pcm)], 1
}
