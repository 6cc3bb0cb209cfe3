package webrtc

import (
	"encoding/json"
	"fmt"
	"runtime"
	"time"

	"github.com/callfleet/callfleet/audio"
	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/callers/listen"
	"github.com/callfleet/callfleet/wire/rtvi"
	"github.com/pion/rtp"
	pwebrtc "github.com/pion/webrtc/v4"
)

const (
	// outRate is the rate of Audio: Opus decodes straight to it.
	outRate = 16000
	// maxConceal bounds the frames of loss concealment per sequence gap (100 ms); a longer gap
	// is left as a gap in arrival times, which the caller's playout model counts as underrun.
	maxConceal = 5
	// resyncGap is a sequence jump treated as a new stream rather than loss.
	resyncGap = 3000
	// slabFrames is how many 20 ms frames of PCM one allocation holds; chunks are carved from it.
	slabFrames = 50
	// mtu is the largest RTP packet read.
	mtu = 1500
)

// onTrack reads the first audio track and its RTCP; anything else is drained unread.
func (c *Conn) onTrack(track *pwebrtc.TrackRemote, recv *pwebrtc.RTPReceiver) {
	c.mu.Lock()
	if c.tearing {
		c.mu.Unlock()
		return
	}
	decode := track.Kind() == pwebrtc.RTPCodecTypeAudio && !c.reading
	if decode {
		c.reading = true
	}
	c.wg.Add(2)
	c.mu.Unlock()

	go c.drainRTCP(recv)
	if decode {
		c.readAudio(track) // pion runs each OnTrack handler on its own goroutine
		return
	}
	defer c.wg.Done()
	buf := make([]byte, mtu)
	for {
		if _, _, err := track.Read(buf); err != nil {
			return
		}
	}
}

// readAudio decodes the agent's Opus to 16 kHz chunks stamped with their arrival (rtpReader)
// until the track ends.
func (c *Conn) readAudio(track *pwebrtc.TrackRemote) {
	defer c.wg.Done()
	buf := make([]byte, mtu)
	r, err := newRTPReader(&c.stats, c.d.MaxAhead(), c.offer)
	if err != nil {
		c.end(fmt.Errorf("webrtc receive: %w", err))
	}
	for {
		n, _, err := track.Read(buf)
		if err != nil {
			return
		}
		if r != nil {
			r.packet(buf[:n], time.Now())
		}
	}
}

// offer hands a chunk to Audio without waiting: pion's reader must not stall behind the
// caller's loop. It reports whether the chunk went.
func (c *Conn) offer(ch callers.Chunk) bool {
	select {
	case c.audio <- ch:
		return true
	default:
		return false
	}
}

// rtpReader turns the agent's RTP packets into chunks of 16 kHz audio, concealing lost packets
// (RFC 6716 §4.4) and dropping late ones: the caller models the jitter buffer itself, so packets
// are decoded as they come. Audio running more than MaxAhead ahead of real time (a flood) is
// dropped before it is decoded, and counted on the next chunk (Chunk.Dropped).
type rtpReader struct {
	stats *counters
	send  func(callers.Chunk) bool // false: the chunk was not taken (Audio full)
	dec   *audio.OpusDecoder

	pkt     rtp.Packet
	last    uint16
	started bool
	slab    []int16
	quiet   audio.SilenceSkip // the agent's repeated silent packet is not decoded each time
	ahead   listen.Ahead
	dropped int // samples dropped and not yet reported
}

func newRTPReader(stats *counters, maxAhead time.Duration, send func(callers.Chunk) bool) (*rtpReader, error) {
	dec, err := audio.NewOpusDecoderRate(outRate)
	if err != nil {
		return nil, err
	}
	return &rtpReader{stats: stats, send: send, dec: dec, ahead: listen.Ahead{Max: maxAhead}}, nil
}

// packet handles one datagram of the audio track that arrived at at.
func (r *rtpReader) packet(buf []byte, at time.Time) {
	if err := r.pkt.Unmarshal(buf); err != nil || len(r.pkt.Payload) == 0 {
		return // not RTP, or padding only
	}
	r.stats.received.Add(1)
	if r.started {
		switch gap := int(int16(r.pkt.SequenceNumber - r.last)); {
		case gap <= 0:
			r.stats.late.Add(1)
			return
		case gap > 1 && gap < resyncGap:
			r.stats.lost.Add(uint64(gap - 1))
			for range min(gap-1, maxConceal) {
				if !r.admit(frameSamples, at) {
					continue
				}
				pcm, err := r.dec.DecodePLC()
				if err != nil {
					break
				}
				r.stats.concealed.Add(1)
				r.deliver(pcm, at)
			}
		}
	}
	r.started, r.last = true, r.pkt.SequenceNumber
	// RFC 6716 §3.1: the TOC byte gives the packet's duration before it is decoded.
	if !r.admit(packetSamples(r.pkt.Payload), at) {
		return
	}
	if zeros := r.quiet.Skip(r.pkt.Payload); zeros != nil {
		r.deliver(zeros, at) // deliver copies
		return
	}
	pcm, err := r.dec.Decode(r.pkt.Payload)
	if err != nil {
		r.stats.decodeErrors.Add(1)
		return
	}
	r.quiet.Decoded(r.pkt.Payload, pcm)
	r.deliver(pcm, at)
}

// admit reports whether n samples arriving at at are within MaxAhead of real time, counting
// them as dropped if not. Packets are kept or dropped whole: Opus cannot decode part of one.
func (r *rtpReader) admit(n int, at time.Time) bool {
	if r.ahead.Admit(n, at) == n {
		return true
	}
	r.dropped += n
	r.stats.aheadDropped.Add(uint64(n))
	return false
}

// deliver copies pcm into a chunk, carved from a slab, with the drops since the last one.
func (r *rtpReader) deliver(pcm []int16, at time.Time) {
	if len(r.slab) < len(pcm) {
		r.slab = make([]int16, max(slabFrames*outRate/50, len(pcm)))
	}
	out := r.slab[:len(pcm):len(pcm)]
	r.slab = r.slab[len(pcm):]
	copy(out, pcm)
	if r.send(callers.Chunk{PCM: out, At: at, Dropped: r.dropped}) {
		r.dropped = 0
		return
	}
	r.stats.audioDropped.Add(1)
	r.dropped += len(pcm)
}

// frameSamples is one 20 ms frame at outRate: what concealment produces per lost packet.
const frameSamples = outRate / 50

// packetSamples is how much audio an Opus packet holds at outRate, from its TOC byte (RFC 6716
// §3.1: frame size by config, frame count by code); 20 ms when it cannot tell.
func packetSamples(payload []byte) int {
	if len(payload) == 0 {
		return frameSamples
	}
	toc := payload[0]
	var frame int // in 2.5 ms units
	switch cfg := toc >> 3; {
	case cfg < 12: // SILK: 10, 20, 40, 60 ms
		frame = [4]int{4, 8, 16, 24}[cfg&3]
	case cfg < 16: // Hybrid: 10, 20 ms
		frame = [2]int{4, 8}[cfg&1]
	default: // CELT: 2.5, 5, 10, 20 ms
		frame = [4]int{1, 2, 4, 8}[cfg&3]
	}
	count := 1
	switch toc & 3 {
	case 1, 2:
		count = 2
	case 3:
		if len(payload) < 2 {
			return frameSamples
		}
		count = max(1, int(payload[1]&0x3f))
	}
	return min(frame*count, 48) * outRate / 400 // at most 120 ms a packet
}

// sendClientReady opens the RTVI handshake when the data channel opens: pipecat answers
// client-ready with bot-ready carrying the same id. Nothing else is sent: in particular no
// "ping" keepalives, after the first of which pipecat expects one every 3 s.
func (c *Conn) sendClientReady() {
	msg := rtvi.ClientReady(rtvi.NewID(), rtvi.About{
		Library: "callfleet", Platform: runtime.GOOS, PlatformVersion: runtime.Version(),
	})
	b, err := rtvi.Encode(msg)
	if err != nil {
		return // unreachable: a constructed message
	}
	_ = c.dc.SendText(string(b)) // fails only if the channel closed meanwhile; Ready then times out
}

// onText handles one data channel text: RTVI messages go to Events (bot-ready also closes
// Ready), pipecat's peerLeft ends the call cleanly, anything else is ignored.
func (c *Conn) onText(data []byte) {
	if rtvi.IsPing(data) {
		return
	}
	m, err := rtvi.Decode(data)
	if err != nil {
		if isPeerLeft(data) {
			c.end(nil)
		}
		return
	}
	c.emit(m)
	if m.Type == rtvi.TypeBotReady {
		c.markReady()
	}
}

func (c *Conn) emit(m rtvi.Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.eventsClosed {
		return
	}
	select {
	case c.events <- m:
	default:
		c.stats.eventsDropped.Add(1)
	}
}

// isPeerLeft recognises the message pipecat's SmallWebRTCConnection sends before closing:
// {"type":"signalling","message":{"type":"peerLeft"}}.
func isPeerLeft(data []byte) bool {
	var s struct {
		Type    string `json:"type"`
		Message struct {
			Type string `json:"type"`
		} `json:"message"`
	}
	return json.Unmarshal(data, &s) == nil && s.Type == "signalling" && s.Message.Type == "peerLeft"
}
