package webrtc

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/callfleet/callfleet/audio"
	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/speech/pool"
	"github.com/callfleet/callfleet/wire/rtvi"
	"github.com/callfleet/callfleet/wire/signaling"
	"github.com/pion/interceptor"
	"github.com/pion/rtp"
	pwebrtc "github.com/pion/webrtc/v4"
)

// Buffers between pion's goroutines and the caller's loop.
const (
	audioBuffer = 500 // chunks: 10 s of agent audio
	eventBuffer = 256
)

// abortDelete bounds the WHIP DELETE of a call that failed after its offer was answered.
const abortDelete = time.Second

// Conn is one WebRTC call. It implements callers.Conn; Stats is extra.
type Conn struct {
	d       *Dialer
	pc      *pwebrtc.PeerConnection
	track   *pwebrtc.TrackLocalStaticRTP
	dc      *pwebrtc.DataChannel
	session signaling.Session // set by Dial before it returns

	audio     chan callers.Chunk
	events    chan rtvi.Message
	ready     chan struct{}
	connected chan struct{}
	done      chan struct{} // the call has ended; err says why
	finished  chan struct{} // teardown is over: pion closed, goroutines gone, channels closed

	readyOnce, connectedOnce, endOnce, sessionOnce sync.Once
	err                                            error // written before done closes

	mu           sync.Mutex
	tearing      bool // set by teardown: no new goroutines, no new timers
	eventsClosed bool
	reading      bool // an audio track has a reader
	readyTimer   *time.Timer
	discTimer    *time.Timer
	wg           sync.WaitGroup // RTCP drains and track readers

	// Sender state, touched only by the goroutine calling Send and SendSilence.
	pkt     rtp.Packet
	sentAny bool

	stats counters
}

var _ callers.Conn = (*Conn)(nil)

// Stats are a call's media counters.
type Stats struct {
	Sent          uint64 // RTP packets sent
	Received      uint64 // RTP packets received on the audio track
	Lost          uint64 // packets missing from the received sequence
	Concealed     uint64 // 20 ms frames of packet loss concealment delivered (at most 5 per gap)
	Late          uint64 // duplicate or reordered packets dropped
	DecodeErrors  uint64 // packets Opus could not decode
	AudioDropped  uint64 // chunks dropped because Audio's buffer (10 s) was full
	AheadDropped  uint64 // samples (16 kHz) dropped for arriving more than MaxAhead ahead of real time
	EventsDropped uint64 // RTVI messages dropped because Events' buffer was full
}

type counters struct {
	sent, received, lost, concealed, late, decodeErrors, audioDropped, aheadDropped, eventsDropped atomic.Uint64
}

// Stats returns the call's counters so far.
func (c *Conn) Stats() Stats {
	s := &c.stats
	return Stats{
		Sent: s.sent.Load(), Received: s.received.Load(), Lost: s.lost.Load(),
		Concealed: s.concealed.Load(), Late: s.late.Load(), DecodeErrors: s.decodeErrors.Load(),
		AudioDropped: s.audioDropped.Load(), AheadDropped: s.aheadDropped.Load(), EventsDropped: s.eventsDropped.Load(),
	}
}

// silencePacket is 20 ms of digital silence as Opus, encoded once per process (a few bytes: the
// encoder recognises silence).
var silencePacket = sync.OnceValues(func() ([]byte, error) {
	enc, err := audio.NewOpusEncoder(32000)
	if err != nil {
		return nil, fmt.Errorf("opus silence: %w", err)
	}
	zeros := make([]int16, audio.OpusRate/50)
	var pkt []byte
	for range 3 { // settle the encoder past its first frame
		if pkt, err = enc.Encode(zeros); err != nil {
			return nil, fmt.Errorf("opus silence: %w", err)
		}
	}
	return pkt, nil
})

// newConn adds the call's media to pc: the Opus transceiver first (pipecat reads transceiver 0
// as the microphone), then the data channel, and wires pion's callbacks.
func newConn(d *Dialer, pc *pwebrtc.PeerConnection) (*Conn, error) {
	track, err := pwebrtc.NewTrackLocalStaticRTP(OpusCapability, "audio", "callfleet")
	if err != nil {
		return nil, fmt.Errorf("opus track: %w", err)
	}
	tr, err := pc.AddTransceiverFromTrack(track, pwebrtc.RTPTransceiverInit{Direction: pwebrtc.RTPTransceiverDirectionSendrecv})
	if err != nil {
		return nil, fmt.Errorf("audio transceiver: %w", err)
	}
	ordered := true
	dc, err := pc.CreateDataChannel(DataChannelLabel, &pwebrtc.DataChannelInit{Ordered: &ordered})
	if err != nil {
		return nil, fmt.Errorf("data channel: %w", err)
	}
	c := &Conn{
		d: d, pc: pc, track: track, dc: dc,
		audio:     make(chan callers.Chunk, audioBuffer),
		events:    make(chan rtvi.Message, eventBuffer),
		ready:     make(chan struct{}),
		connected: make(chan struct{}),
		done:      make(chan struct{}),
		finished:  make(chan struct{}),
	}
	// RFC 3550 §5.1: random initial sequence number and timestamp.
	c.pkt.Header = rtp.Header{Version: 2, SequenceNumber: uint16(rand.Uint32()), Timestamp: rand.Uint32()}

	pc.OnConnectionStateChange(c.onState)
	pc.OnTrack(c.onTrack)
	dc.OnOpen(c.sendClientReady)
	// The agent closing the channel is its hang-up: it arrives with its DTLS close_notify, while
	// pion reports the peer connection closed only after its own teardown, up to ~400 ms later.
	dc.OnClose(func() { c.end(nil) })
	dc.OnMessage(func(m pwebrtc.DataChannelMessage) {
		if m.IsString {
			c.onText(m.Data)
		}
	})
	// Incoming RTCP (receiver reports on what we send) must be read for the interceptors to see
	// it and so its buffer does not sit full.
	c.wg.Add(1)
	go c.drainRTCP(tr.Sender())
	return c, nil
}

// Send sends frame i of the clip's pre-encoded Opus.
func (c *Conn) Send(clip *pool.Clip, i int) error {
	if clip == nil || i < 0 || i >= len(clip.Opus) {
		n := 0
		if clip != nil {
			n = len(clip.Opus)
		}
		return fmt.Errorf("webrtc send: %w: frame %d of %d", ErrFrame, i, n)
	}
	return c.write(clip.Opus[i])
}

// SendSilence sends one 20 ms Opus frame of silence.
func (c *Conn) SendSilence() error {
	pkt, err := silencePacket()
	if err != nil {
		return fmt.Errorf("webrtc send: %w", err)
	}
	return c.write(pkt)
}

// write sends one 20 ms packet. RFC 7587 §4.2: the timestamp counts 48 kHz samples, so it
// advances 960 a frame whatever Opus coded inside; the marker starts the stream.
func (c *Conn) write(payload []byte) error {
	select {
	case <-c.done:
		return fmt.Errorf("webrtc send: %w", ErrClosed)
	default:
	}
	c.pkt.Marker = !c.sentAny
	c.pkt.Payload = payload
	err := c.track.WriteRTP(&c.pkt)
	c.pkt.SequenceNumber++
	c.pkt.Timestamp += frameTicks
	c.sentAny = true
	if err != nil {
		select {
		case <-c.done:
			return fmt.Errorf("webrtc send: %w", ErrClosed)
		default:
		}
		return fmt.Errorf("webrtc send: %w", err)
	}
	c.stats.sent.Add(1)
	return nil
}

// Audio is the agent's audio, 16 kHz, closed when the call ends.
func (c *Conn) Audio() <-chan callers.Chunk { return c.audio }

// Events carries the agent's RTVI messages from the data channel, closed when the call ends.
func (c *Conn) Events() <-chan rtvi.Message { return c.events }

// Ready closes on bot-ready, or ReadyTimeout after connecting when none comes.
func (c *Conn) Ready() <-chan struct{} { return c.ready }

// Played is a no-op: a WebRTC agent is not told what the caller played.
func (c *Conn) Played(int) {}

// Flush is nil: WebRTC has no clear message; the agent just stops sending.
func (c *Conn) Flush() <-chan struct{} { return nil }

// Done closes when the call ends, by either side.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err is why the call ended once Done is closed: nil for a hang-up (ours, the agent closing the
// data channel or DTLS, or pipecat's peerLeft), ErrFailed or ErrDisconnected when it broke.
func (c *Conn) Err() error {
	select {
	case <-c.done:
		return c.err
	default:
		return nil
	}
}

// ID is the session's id: pipecat's pc_id, or the WHIP session URL.
func (c *Conn) ID() string { return c.session.ID }

// Close hangs up: the peer connection closes (DTLS close_notify tells the agent) and a WHIP
// session is deleted. It waits, bounded by ctx, until every goroutine of the call has ended.
func (c *Conn) Close(ctx context.Context) error {
	c.end(nil)
	var errs []error
	c.sessionOnce.Do(func() {
		if err := c.session.Close(ctx); err != nil && !errorsIsNotFound(err) {
			errs = append(errs, err)
		}
	})
	select {
	case <-c.finished:
	case <-ctx.Done():
		errs = append(errs, fmt.Errorf("waiting for the peer connection to close: %w", ctx.Err()))
	}
	if len(errs) > 0 {
		return fmt.Errorf("webrtc close %s: %w", c.ID(), errors.Join(errs...))
	}
	return nil
}

// abort ends a call Dial is giving up on and waits for it; a WHIP session that was created is
// deleted, bounded by abortDelete even when the dial's ctx has expired.
func (c *Conn) abort(err error) {
	c.end(err)
	<-c.finished
	c.sessionOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), abortDelete)
		defer cancel()
		_ = c.session.Close(ctx)
	})
}

// end records why the call ended, closes Done and starts the teardown; only the first call
// counts. It never blocks, so pion callbacks may call it.
func (c *Conn) end(err error) {
	c.endOnce.Do(func() {
		c.err = err
		close(c.done)
		go c.teardown()
	})
}

// teardown closes the peer connection, waits for the readers and closes Audio and Events.
func (c *Conn) teardown() {
	defer close(c.finished)
	c.mu.Lock()
	c.tearing = true
	for _, t := range []*time.Timer{c.readyTimer, c.discTimer} {
		if t != nil {
			t.Stop()
		}
	}
	c.mu.Unlock()
	_ = c.pc.GracefulClose() // also waits for pion's own goroutines and callbacks
	c.wg.Wait()
	close(c.audio)
	c.mu.Lock()
	c.eventsClosed = true
	close(c.events)
	c.mu.Unlock()
}

// onState follows the peer connection: connected starts the bot-ready wait, failed and closed
// end the call, disconnected ends it unless it recovers within DisconnectGrace.
func (c *Conn) onState(s pwebrtc.PeerConnectionState) {
	switch s {
	case pwebrtc.PeerConnectionStateConnected:
		c.connectedOnce.Do(func() {
			close(c.connected)
			c.mu.Lock()
			if !c.tearing {
				c.readyTimer = time.AfterFunc(c.d.ReadyTimeout, c.markReady)
			}
			c.mu.Unlock()
		})
		c.mu.Lock()
		if c.discTimer != nil {
			c.discTimer.Stop()
			c.discTimer = nil
		}
		c.mu.Unlock()
	case pwebrtc.PeerConnectionStateDisconnected:
		c.mu.Lock()
		if c.discTimer == nil && !c.tearing {
			c.discTimer = time.AfterFunc(c.d.DisconnectGrace, func() {
				if c.pc.ConnectionState() == pwebrtc.PeerConnectionStateDisconnected {
					c.end(ErrDisconnected)
				}
			})
		}
		c.mu.Unlock()
	case pwebrtc.PeerConnectionStateFailed:
		select {
		case <-c.connected:
			c.end(ErrFailed)
		default:
			c.end(ErrConnect)
		}
	case pwebrtc.PeerConnectionStateClosed:
		c.end(nil)
	}
}

func (c *Conn) markReady() { c.readyOnce.Do(func() { close(c.ready) }) }

// drainRTCP reads RTCP until the peer connection closes, so interceptors see it and pion's
// per-stream buffer does not fill.
func (c *Conn) drainRTCP(r interface {
	Read([]byte) (int, interceptor.Attributes, error)
},
) {
	defer c.wg.Done()
	buf := make([]byte, 1500)
	for {
		if _, _, err := r.Read(buf); err != nil {
			return
		}
	}
}
