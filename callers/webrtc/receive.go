package webrtc

import (
	"encoding/json"
	"fmt"
	"runtime"
	"time"

	"github.com/callfleet/callfleet/audio"
	"github.com/callfleet/callfleet/callers"
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

// readAudio decodes the agent's Opus to 16 kHz chunks stamped with their arrival, concealing
// lost packets (RFC 6716 §4.4) and dropping late ones: the caller models the jitter buffer
// itself, so packets are decoded as they come.
func (c *Conn) readAudio(track *pwebrtc.TrackRemote) {
	defer c.wg.Done()
	buf := make([]byte, mtu)
	dec, err := audio.NewOpusDecoderRate(outRate)
	if err != nil {
		c.end(fmt.Errorf("webrtc receive: %w", err))
		for {
			if _, _, err := track.Read(buf); err != nil {
				return
			}
		}
	}
	var (
		pkt     rtp.Packet
		last    uint16
		started bool
		slab    []int16
		quiet   audio.SilenceSkip // the agent's repeated silent packet is not decoded each time
	)
	deliver := func(pcm []int16, at time.Time) {
		if len(slab) < len(pcm) {
			slab = make([]int16, max(slabFrames*outRate/50, len(pcm)))
		}
		out := slab[:len(pcm):len(pcm)]
		slab = slab[len(pcm):]
		copy(out, pcm)
		select {
		case c.audio <- callers.Chunk{PCM: out, At: at}:
		default:
			c.stats.audioDropped.Add(1)
		}
	}
	for {
		n, _, err := track.Read(buf)
		if err != nil {
			return
		}
		at := time.Now()
		if err := pkt.Unmarshal(buf[:n]); err != nil || len(pkt.Payload) == 0 {
			continue // not RTP, or padding only
		}
		c.stats.received.Add(1)
		if started {
			switch gap := int(int16(pkt.SequenceNumber - last)); {
			case gap <= 0:
				c.stats.late.Add(1)
				continue
			case gap > 1 && gap < resyncGap:
				c.stats.lost.Add(uint64(gap - 1))
				for range min(gap-1, maxConceal) {
					pcm, err := dec.DecodePLC()
					if err != nil {
						break
					}
					c.stats.concealed.Add(1)
					deliver(pcm, at)
				}
			}
		}
		started, last = true, pkt.SequenceNumber
		if zeros := quiet.Skip(pkt.Payload); zeros != nil {
			deliver(zeros, at) // deliver copies
			continue
		}
		pcm, err := dec.Decode(pkt.Payload)
		if err != nil {
			c.stats.decodeErrors.Add(1)
			continue
		}
		quiet.Decoded(pkt.Payload, pcm)
		deliver(pcm, at)
	}
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
