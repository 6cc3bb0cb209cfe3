package audio

import (
	"fmt"

	"gopkg.in/hraban/opus.v2"
)

// OpusRate is the only rate this package runs Opus at: RFC 7587 §4.1 fixes
// the RTP clock at 48 kHz whatever the codec's internal bandwidth.
const OpusRate = 48000

const (
	opusFrame         = OpusRate / 50         // samples in one 20 ms mono frame
	opusMaxFrame      = OpusRate / 1000 * 120 // 120 ms, the longest Opus packet (RFC 6716 §3.2.5)
	opusMaxPacket     = 1500                  // MTU-sized; a 20 ms frame is at most 1276 bytes (RFC 6716 §3.4 R2)
	defaultComplexity = 5
)

// OpusEncoder encodes 20 ms mono frames at 48 kHz for VoIP. It is not safe
// for concurrent use.
type OpusEncoder struct {
	enc   *opus.Encoder
	buf   []byte
	frame int // samples per 20 ms at the encoder's input rate
}

// NewOpusEncoder returns a VoIP-mode mono encoder at bitrate bits/s with
// complexity 5, a reasonable cost for many concurrent calls.
func NewOpusEncoder(bitrate int) (*OpusEncoder, error) {
	return NewOpusEncoderRate(OpusRate, bitrate)
}

// NewOpusEncoderRate is NewOpusEncoder for input at another rate (8, 12, 16 or 24 kHz): libopus
// takes it as it is, so a 16 kHz pipeline needs no resampler. Packets are the same RTP Opus.
func NewOpusEncoderRate(rate, bitrate int) (*OpusEncoder, error) {
	enc, err := opus.NewEncoder(rate, 1, opus.AppVoIP)
	if err != nil {
		return nil, fmt.Errorf("new opus encoder: %w", err)
	}
	if err := enc.SetBitrate(bitrate); err != nil {
		return nil, fmt.Errorf("new opus encoder: bitrate %d: %w", bitrate, err)
	}
	if err := enc.SetComplexity(defaultComplexity); err != nil {
		return nil, fmt.Errorf("new opus encoder: complexity: %w", err)
	}
	return &OpusEncoder{enc: enc, buf: make([]byte, opusMaxPacket), frame: rate / 50}, nil
}

// SetComplexity sets the encoder's CPU/quality trade-off, 0 to 10.
func (e *OpusEncoder) SetComplexity(c int) error {
	if err := e.enc.SetComplexity(c); err != nil {
		return fmt.Errorf("opus set complexity %d: %w", c, err)
	}
	return nil
}

// SetBitrate changes the target bitrate in bits/s.
func (e *OpusEncoder) SetBitrate(bitrate int) error {
	if err := e.enc.SetBitrate(bitrate); err != nil {
		return fmt.Errorf("opus set bitrate %d: %w", bitrate, err)
	}
	return nil
}

// Encode compresses one 20 ms frame (exactly 960 samples) into a newly
// allocated packet. Use EncodeTo to avoid the allocation.
func (e *OpusEncoder) Encode(pcm []int16) ([]byte, error) {
	return e.EncodeTo(nil, pcm)
}

// EncodeTo compresses one 20 ms frame (exactly 960 samples) and appends the
// packet to dst.
func (e *OpusEncoder) EncodeTo(dst []byte, pcm []int16) ([]byte, error) {
	if len(pcm) != e.frame {
		return dst, fmt.Errorf("opus encode: %d samples, want %d: %w", len(pcm), e.frame, ErrFrameSize)
	}
	n, err := e.enc.Encode(pcm, e.buf)
	if err != nil {
		return dst, fmt.Errorf("opus encode: %w", err)
	}
	return append(dst, e.buf[:n]...), nil
}

// OpusDecoder decodes mono Opus packets to 48 kHz PCM. It is not safe for
// concurrent use.
type OpusDecoder struct {
	dec   *opus.Decoder
	pcm   []int16
	frame int
}

// NewOpusDecoder returns a mono decoder at 48 kHz.
func NewOpusDecoder() (*OpusDecoder, error) { return NewOpusDecoderRate(OpusRate) }

// NewOpusDecoderRate decodes straight to another rate (8, 12, 16 or 24 kHz), cheaper than
// decoding at 48 kHz and resampling.
func NewOpusDecoderRate(rate int) (*OpusDecoder, error) {
	dec, err := opus.NewDecoder(rate, 1)
	if err != nil {
		return nil, fmt.Errorf("new opus decoder at %d Hz: %w", rate, err)
	}
	return &OpusDecoder{dec: dec, pcm: make([]int16, rate/1000*120), frame: rate / 50}, nil
}

// Decode decodes one packet: 960 samples for the 20 ms packets this project
// sends (a peer's longer packets, up to 120 ms, return their own length).
// An empty packet is treated as lost, as with DecodePLC. The returned slice
// is the decoder's buffer and is valid only until the next call.
func (d *OpusDecoder) Decode(pkt []byte) ([]int16, error) {
	if len(pkt) == 0 {
		return d.DecodePLC()
	}
	n, err := d.dec.Decode(pkt, d.pcm)
	if err != nil {
		return nil, fmt.Errorf("opus decode %d-byte packet: %w", len(pkt), err)
	}
	return d.pcm[:n], nil
}

// DecodePLC conceals one lost 20 ms packet (RFC 6716 §4.4), returning 960
// samples extrapolated from the previous ones. The returned slice is valid
// only until the next call.
func (d *OpusDecoder) DecodePLC() ([]int16, error) {
	// The binding takes the frame length from cap, so cap it at 20 ms.
	pcm := d.pcm[:d.frame:d.frame]
	if err := d.dec.DecodePLC(pcm); err != nil {
		return nil, fmt.Errorf("opus packet loss concealment: %w", err)
	}
	return pcm, nil
}
