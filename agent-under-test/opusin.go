package agent

import (
	"fmt"

	"github.com/pion/rtp"

	"github.com/callfleet/callfleet/agent-under-test/pipeline"
	"github.com/callfleet/callfleet/audio"
)

// maxConceal bounds the lost packets concealed in a row (100 ms of 20 ms packets); a longer gap
// is left out rather than filled with made-up sound.
const maxConceal = 5

// opusIn turns an RTP Opus stream into 20 ms frames at 16 kHz: lost packets (a gap in the RTP
// sequence numbers, RFC 3550 §5.1) are concealed by the decoder (RFC 6716 §4.4), duplicates and
// late packets dropped. Packets of any duration are re-cut into 20 ms frames.
type opusIn struct {
	dec     *audio.OpusDecoder
	push    func([]int16)
	pt      uint8 // the negotiated payload type; 0 takes any
	ssrc    uint32
	last    uint16
	started bool
	pending []int16
	quiet   audio.SilenceSkip // the caller's repeated silent packet is not decoded each time
	pkt     rtp.Packet        // reused: its payload points into the caller's buffer
}

// rtp takes one RTP packet as it came off the wire (RFC 3550 §5.1). Errors wrap errBadRTP or
// errBadOpus; the stream goes on after either.
func (in *opusIn) rtp(b []byte) error {
	if err := in.pkt.Unmarshal(b); err != nil {
		return fmt.Errorf("%w: %w", errBadRTP, err)
	}
	if in.pkt.Version != 2 {
		return fmt.Errorf("%w: version %d", errBadRTP, in.pkt.Version)
	}
	if in.pt != 0 && in.pkt.PayloadType != in.pt {
		return fmt.Errorf("%w: payload type %d, negotiated %d", errBadRTP, in.pkt.PayloadType, in.pt)
	}
	if in.started && in.pkt.SSRC != in.ssrc {
		in.started = false // a new source (RFC 3550 §8.2): its sequence numbers start afresh
	}
	in.ssrc = in.pkt.SSRC
	return in.packet(in.pkt.SequenceNumber, in.pkt.Payload)
}

func (in *opusIn) packet(seq uint16, payload []byte) error {
	if in.started {
		d := seq - in.last
		if d == 0 || d >= 1<<15 {
			return nil // a duplicate, or too late: its time has been played
		}
		for i := uint16(1); i < d && i <= maxConceal; i++ {
			pcm, err := in.dec.DecodePLC()
			if err != nil {
				return fmt.Errorf("%w: conceal before %d: %w", errBadOpus, seq, err)
			}
			in.add(pcm)
		}
	}
	in.started, in.last = true, seq
	if len(payload) == 0 {
		return nil // padding only
	}
	if zeros := in.quiet.Skip(payload); zeros != nil {
		in.add(zeros)
		return nil
	}
	pcm, err := in.dec.Decode(payload)
	if err != nil {
		return fmt.Errorf("%w: rtp packet %d: %w", errBadOpus, seq, err)
	}
	in.quiet.Decoded(payload, pcm)
	in.add(pcm)
	return nil
}

func (in *opusIn) add(pcm []int16) {
	in.pending = append(in.pending, pcm...)
	off := 0
	for ; len(in.pending)-off >= pipeline.FrameSamples; off += pipeline.FrameSamples {
		in.push(in.pending[off : off+pipeline.FrameSamples])
	}
	in.pending = in.pending[:copy(in.pending, in.pending[off:])]
}
