package pool

import (
	"fmt"
	"time"

	"github.com/callfleet/callfleet/audio"
	"github.com/callfleet/callfleet/speech/tts"
)

// Codec names a form a clip is kept in, ready to send.
type Codec int

const (
	CodecUnknown Codec = iota
	CodecPCM16k        // 16 kHz PCM frames of 320 samples
	CodecMulaw         // G.711 mu-law at 8 kHz, frames of 160 bytes (Twilio Media Streams)
	CodecOpus          // Opus packets of 20 ms at 48 kHz (WebRTC)
)

func (c Codec) String() string {
	switch c {
	case CodecPCM16k:
		return "pcm16k"
	case CodecMulaw:
		return "mulaw"
	case CodecOpus:
		return "opus"
	}
	return "unknown"
}

// ParseCodec reads a codec name.
func ParseCodec(s string) (Codec, error) {
	for c := CodecPCM16k; c <= CodecOpus; c++ {
		if c.String() == s {
			return c, nil
		}
	}
	return CodecUnknown, fmt.Errorf("codec %q: want pcm16k, mulaw or opus", s)
}

// FrameSamples is the length of one 20 ms frame at the pool's rate.
const FrameSamples = Rate / 50

// Clip is one phrase, rendered once, padded to whole 20 ms frames.
type Clip struct {
	Digits string
	Voice  string
	// PCM is 16 kHz mono, a whole number of frames long.
	PCM []int16
	// First and Last are the sample indices (at 16 kHz) of the first and last voiced sample: what
	// the speech_start and speech_end marks mean. A pool with one wire codec finds them in the
	// rendition it sends, decoded, since that is what the agent hears: mu-law at 8 kHz loses the
	// /s/ of "six" above 4 kHz, and Opus delays every sample by its look-ahead.
	First, Last int
	// PauseStart and PauseEnd bound the silence between the halves of a split clip (last voiced
	// sample of the first half + 1, first voiced sample of the second half); zero otherwise.
	PauseStart, PauseEnd int

	// Encoded forms, filled by Encode before the clip is shared.
	Mulaw [][]byte
	Opus  [][]byte
}

// Frames is the clip's length in 20 ms frames.
func (c *Clip) Frames() int { return len(c.PCM) / FrameSamples }

// Frame returns the i-th 16 kHz frame.
func (c *Clip) Frame(i int) []int16 { return c.PCM[i*FrameSamples : (i+1)*FrameSamples] }

// StartFrame is the index of the frame that holds the first voiced sample.
func (c *Clip) StartFrame() int { return c.First / FrameSamples }

// EndFrame is the index of the frame that holds the last voiced sample.
func (c *Clip) EndFrame() int { return c.Last / FrameSamples }

// Duration is the clip's length, silence included.
func (c *Clip) Duration() time.Duration { return time.Duration(c.Frames()) * 20 * time.Millisecond }

// Voiced is the time from the first to the last voiced sample.
func (c *Clip) Voiced() time.Duration {
	return time.Duration(c.Last-c.First+1) * time.Second / Rate
}

// Resampled returns the clip's PCM at another rate (8000, 16000, 24000 or 48000 Hz).
func (c *Clip) Resampled(rate int) []int16 {
	if rate == Rate {
		return c.PCM
	}
	return audio.Resample(c.PCM, Rate, rate)
}

// Encode fills the clip's encoded forms for the codecs asked for. Each clip is encoded from a
// fresh Opus encoder so the packets do not depend on the order clips were built in.
func (c *Clip) Encode(codecs []Codec, opusBitrate int) error {
	for _, codec := range codecs {
		switch codec {
		case CodecMulaw:
			c.Mulaw = frameMulaw(audio.Resample(c.PCM, Rate, 8000))
		case CodecOpus:
			pkts, err := frameOpus(audio.Resample(c.PCM, Rate, audio.OpusRate), opusBitrate)
			if err != nil {
				return fmt.Errorf("encode %q as opus: %w", c.Digits, err)
			}
			c.Opus = pkts
		case CodecPCM16k:
		default:
			return fmt.Errorf("encode %q: unknown codec %v", c.Digits, codec)
		}
	}
	return nil
}

func frameMulaw(pcm8k []int16) [][]byte {
	const n = 8000 / 50
	mu := audio.MulawEncode(make([]byte, 0, len(pcm8k)), pcm8k)
	out := make([][]byte, 0, len(mu)/n)
	for i := 0; i+n <= len(mu); i += n {
		out = append(out, mu[i:i+n:i+n])
	}
	return out
}

func frameOpus(pcm48k []int16, bitrate int) ([][]byte, error) {
	enc, err := audio.NewOpusEncoder(bitrate)
	if err != nil {
		return nil, err
	}
	const n = audio.OpusRate / 50
	out := make([][]byte, 0, len(pcm48k)/n)
	for i := 0; i+n <= len(pcm48k); i += n {
		pkt, err := enc.Encode(pcm48k[i : i+n])
		if err != nil {
			return nil, fmt.Errorf("frame %d: %w", i/n, err)
		}
		out = append(out, append([]byte(nil), pkt...)) // the encoder may reuse its buffer
	}
	return out, nil
}

// boundsAsSent moves First and Last to the voiced bounds of the clip's codec rendition, decoded as
// the far end decodes it, in 16 kHz sample units (so StartFrame and EndFrame name the packets that
// carry them). A rendition with no voiced window keeps the 16 kHz bounds.
func (c *Clip) boundsAsSent(codec Codec) error {
	var pcm []int16
	var rate int
	switch codec {
	case CodecMulaw:
		rate = 8000
		for _, f := range c.Mulaw {
			pcm = audio.MulawDecode(pcm, f)
		}
	case CodecOpus:
		rate = audio.OpusRate
		dec, err := audio.NewOpusDecoder()
		if err != nil {
			return fmt.Errorf("bounds of %q as sent: %w", c.Digits, err)
		}
		for i, pkt := range c.Opus {
			out, err := dec.Decode(pkt)
			if err != nil {
				return fmt.Errorf("bounds of %q as sent: packet %d: %w", c.Digits, i, err)
			}
			pcm = append(pcm, out...)
		}
	default:
		return nil
	}
	first, last, ok := tts.VoicedBounds(pcm, rate)
	if !ok {
		return nil
	}
	// sample k at rate r lies in 16 kHz samples [k*16000/r, (k+1)*16000/r)
	c.First = first * Rate / rate
	c.Last = min(len(c.PCM)-1, ((last+1)*Rate-1)/rate)
	return nil
}
