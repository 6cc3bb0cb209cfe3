package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/pion/webrtc/v4"
	"github.com/pion/webrtc/v4/pkg/media"

	"github.com/callfleet/callfleet/agent-under-test/pipeline"
	"github.com/callfleet/callfleet/audio"
	"github.com/callfleet/callfleet/wire/rtvi"
)

// negotiate applies the offer, adds the agent's track and returns the answer once ICE gathering
// is complete (bounded by gatherTimeout; the candidates found by then otherwise).
func (c *rtcCall) negotiate(ctx context.Context, offer string) (string, error) {
	err := c.pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeOffer, SDP: offer})
	if err != nil {
		return "", fmt.Errorf("%w: %v", errRejectOffer, err)
	}
	sender, err := c.pc.AddTrack(c.track)
	if err != nil {
		return "", fmt.Errorf("add audio track: %w", err)
	}
	// Read the caller's RTCP so the report interceptor sees it; this ends when the PC closes.
	c.goroutine(func() {
		for buf := make([]byte, 1500); ; {
			if _, _, err := sender.Read(buf); err != nil {
				return
			}
		}
	})
	answer, err := c.pc.CreateAnswer(nil)
	if err != nil {
		return "", fmt.Errorf("%w: create answer: %v", errRejectOffer, err)
	}
	gathered := webrtc.GatheringCompletePromise(c.pc)
	if err := c.pc.SetLocalDescription(answer); err != nil {
		return "", fmt.Errorf("set local description: %w", err)
	}
	timer := time.NewTimer(gatherTimeout)
	defer timer.Stop()
	select {
	case <-gathered:
	case <-timer.C:
		c.log.Warn("ice gathering incomplete, answering with the candidates so far")
	case <-ctx.Done():
		return "", fmt.Errorf("answer: %w", ctx.Err())
	case <-c.t.s.ctx.Done():
		return "", ErrShuttingDown
	}
	return c.pc.LocalDescription().SDP, nil
}

// rtcCall is one WebRTC call: its peer connection, its pipeline and the goroutines between them.
type rtcCall struct {
	t       *rtcTransport
	id      string
	log     *slog.Logger
	pc      *webrtc.PeerConnection
	track   *webrtc.TrackLocalStaticSample
	enc     *audio.OpusEncoder // owned by the pacer (Send)
	pkt     []byte
	call    *pipeline.Call
	ev      *callEvents
	stop    func()
	release func()
	in      *inputLog

	mu     sync.Mutex
	closed bool           // finish has begun: no new goroutines, no grace timer
	wg     sync.WaitGroup // the reader and the RTCP drain
	grace  *time.Timer

	connected, ended            chan struct{}
	connOnce, endOnce, readOnce sync.Once

	dcMu    sync.Mutex
	dc      *webrtc.DataChannel // the first data channel open: RTVI goes out on it
	pending [][]byte            // RTVI messages published before it opened
}

var _ pipeline.Output = (*rtcCall)(nil)

// newCall builds the peer connection, the agent's track and the pipeline. It owns release from
// here on: finish calls it.
func (t *rtcTransport) newCall(id string, release func()) (*rtcCall, error) {
	enc, err := audio.NewOpusEncoderRate(pipeline.Rate, opusBitrate)
	if err != nil {
		return nil, fmt.Errorf("call %s: %w", id, err)
	}
	if err := enc.SetComplexity(opusComplexity); err != nil {
		return nil, fmt.Errorf("call %s: %w", id, err)
	}
	if _, err := opusSilence(); err != nil {
		return nil, fmt.Errorf("call %s: %w", id, err)
	}
	track, err := webrtc.NewTrackLocalStaticSample(opusCodec, "audio", "callfleet-agent")
	if err != nil {
		return nil, fmt.Errorf("call %s: agent track: %w", id, err)
	}
	pc, err := t.api.NewPeerConnection(webrtc.Configuration{}) // host candidates only: no STUN/TURN
	if err != nil {
		return nil, fmt.Errorf("call %s: new peer connection: %w", id, err)
	}
	c := &rtcCall{t: t, id: id, log: t.s.log.With("call", id, "transport", transportWebRTC), pc: pc, track: track,
		enc: enc, release: release, in: t.s.newInputLog(transportWebRTC, id),
		connected: make(chan struct{}), ended: make(chan struct{})}
	if c.call, c.ev, c.stop, err = t.s.startCall(id, c, c.sendRTVI); err != nil {
		pc.Close()
		return nil, fmt.Errorf("call %s: %w", id, err)
	}
	t.mu.Lock()
	t.calls[id] = c
	t.mu.Unlock()
	pc.OnConnectionStateChange(func(webrtc.PeerConnectionState) { c.onState() })
	pc.OnTrack(c.onTrack)
	pc.OnDataChannel(c.onDataChannel)
	return c, nil
}

// supervise runs the pipeline from the moment the peer connection is up until the agent shuts
// down, the connection is lost, the idle guard hangs up or the call reaches its maximum length;
// then it ends the call.
func (c *rtcCall) supervise() {
	defer c.finish()
	ctx, cancel := c.t.s.callContext()
	defer cancel()
	if !c.awaitConnected(ctx) {
		return
	}
	runErr := make(chan error, 1)
	go func() { runErr <- c.call.Run(ctx) }()
	var err error
	select {
	case err = <-runErr:
	case <-c.ended:
		cancel()
		err = <-runErr
	}
	// Closing the peer connection (finish) is the WebRTC hang-up; an RTVI error says why first.
	if h := c.t.s.hangupReason(ctx, err); h.reason != "" {
		c.t.s.m.hangups.WithLabelValues(transportWebRTC, h.reason).Inc()
		c.log.Info("agent hung up", "reason", h.reason)
		if h.notify {
			c.ev.Publish(rtvi.ErrorEvent(h.text, true))
			c.flushRTVI()
		}
	}
}

func (c *rtcCall) awaitConnected(ctx context.Context) bool {
	timer := time.NewTimer(connectTimeout)
	defer timer.Stop()
	select {
	case <-c.connected:
		return true
	case <-c.ended:
	case <-timer.C:
		c.log.Info("peer connection never came up", "after", connectTimeout)
	case <-ctx.Done():
	}
	return false
}

// finish closes the peer connection, waits for the goroutines that use the pipeline, and frees
// the call's slot. It runs once per call, after Run (if it ran) has returned.
func (c *rtcCall) finish() {
	c.mu.Lock()
	c.closed = true
	if c.grace != nil {
		c.grace.Stop()
	}
	c.mu.Unlock()
	if err := c.pc.Close(); err != nil {
		c.log.Warn("close peer connection", "err", err)
	}
	c.wg.Wait()
	c.stop()
	c.in.close()
	c.t.forget(c.id)
	c.release()
}

// goroutine runs fn in the call's wait group unless the call is already finishing.
func (c *rtcCall) goroutine(fn func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.wg.Go(fn)
	}
}

// onState follows the peer connection. pion calls it from a goroutine per change, so it acts on
// the current state, not on the (possibly stale) one it was called for.
func (c *rtcCall) onState() {
	switch c.pc.ConnectionState() {
	case webrtc.PeerConnectionStateConnected:
		c.connOnce.Do(func() { close(c.connected) })
	case webrtc.PeerConnectionStateDisconnected:
		c.mu.Lock()
		if !c.closed && c.grace == nil {
			c.grace = time.AfterFunc(disconnectGrace, c.graceOver)
		}
		c.mu.Unlock()
	case webrtc.PeerConnectionStateFailed, webrtc.PeerConnectionStateClosed:
		c.end()
	}
}

func (c *rtcCall) graceOver() {
	c.mu.Lock()
	c.grace = nil
	c.mu.Unlock()
	if c.pc.ConnectionState() != webrtc.PeerConnectionStateConnected {
		c.log.Info("peer connection lost", "grace", disconnectGrace)
		c.end()
	}
}

func (c *rtcCall) end() { c.endOnce.Do(func() { close(c.ended) }) }

// onTrack starts the reader for the caller's audio; only the first audio track feeds the call.
func (c *rtcCall) onTrack(tr *webrtc.TrackRemote, _ *webrtc.RTPReceiver) {
	if strings.EqualFold(tr.Codec().MimeType, webrtc.MimeTypeOpus) {
		c.readOnce.Do(func() { c.goroutine(func() { c.read(tr) }) })
	}
}

// read decodes the caller's Opus to 16 kHz and pushes it a 20 ms frame at a time until the peer
// connection closes. A packet that is not RTP of the negotiated stream, or not Opus, is counted
// and skipped: one bad packet does not end the call's audio.
func (c *rtcCall) read(tr *webrtc.TrackRemote) {
	dec, err := audio.NewOpusDecoderRate(pipeline.Rate)
	if err != nil {
		c.log.Warn("opus decoder", "err", err)
		return
	}
	in := &opusIn{dec: dec, push: c.call.Push, pt: uint8(tr.PayloadType())}
	buf := make([]byte, rtpReadBuffer)
	for {
		n, _, err := tr.Read(buf)
		switch {
		case err != nil && n == 0:
			return // the track or the peer connection closed
		case err != nil:
			// pion has read (and dropped) a packet it would not take: too large, or of a payload
			// type not negotiated.
			c.in.bad(kindBadRTP, fmt.Errorf("%w: %w", errBadRTP, err))
			continue
		}
		if err := in.rtp(buf[:n]); err != nil {
			kind := kindBadOpus
			if errors.Is(err, errBadRTP) {
				kind = kindBadRTP
			}
			c.in.bad(kind, err)
		}
	}
}

// rtpReadBuffer holds any packet of a 1500-byte MTU path with room to spare.
const rtpReadBuffer = 1 << 11

// onDataChannel serves RTVI on a channel the client opened: client-ready is answered with
// bot-ready carrying its id; other RTVI messages, SmallWebRTC keepalives ("ping…") and its
// non-RTVI signalling messages (track status) are ignored; undecodable text is bad input.
func (c *rtcCall) onDataChannel(dc *webrtc.DataChannel) {
	dc.OnOpen(func() { c.dcOpen(dc) })
	dc.OnMessage(func(m webrtc.DataChannelMessage) {
		if rtvi.IsPing(m.Data) {
			return
		}
		msg, err := rtvi.Decode(m.Data)
		if errors.Is(err, rtvi.ErrNotRTVI) {
			return
		}
		if err != nil {
			c.in.bad(kindBadRTVI, err)
			return
		}
		if msg.Type == rtvi.TypeClientReady {
			c.sendRTVI(rtvi.BotReady(msg.ID, rtvi.About{Library: "callfleet-agent"}))
		}
	})
}

// dcOpen makes the first open channel the call's RTVI channel and sends what waited for it.
func (c *rtcCall) dcOpen(dc *webrtc.DataChannel) {
	c.dcMu.Lock()
	defer c.dcMu.Unlock()
	if c.dc != nil {
		return
	}
	c.dc = dc
	for _, b := range c.pending {
		c.sendLocked(b)
	}
	c.pending = nil
}

// sendRTVI is the call's extra event sink. It never blocks: before the channel opens messages
// wait (a bounded few), after it they are queued by SCTP unless the client stopped reading. The
// pipeline's own bot-ready stays off the channel: as in pipecat, the client gets one bot-ready,
// the answer to its client-ready.
func (c *rtcCall) sendRTVI(m rtvi.Message) {
	if m.Type == rtvi.TypeBotReady && m.ID == "" {
		return
	}
	b, err := rtvi.Encode(m)
	if err != nil {
		c.log.Warn("rtvi encode", "err", err)
		return
	}
	c.dcMu.Lock()
	defer c.dcMu.Unlock()
	if c.dc == nil {
		if len(c.pending) < maxPendingRTVI {
			c.pending = append(c.pending, b)
		}
		return
	}
	c.sendLocked(b)
}

func (c *rtcCall) sendLocked(b []byte) {
	if c.dc.BufferedAmount() > maxDCBuffered {
		return
	}
	if err := c.dc.SendText(string(b)); err != nil {
		c.log.Debug("rtvi send", "err", err)
	}
}

// Send plays one 20 ms frame as one Opus packet; silence is a pre-encoded silent packet, so RTP
// keeps flowing between replies as it does from a browser.
func (c *rtcCall) Send(frame []int16) error {
	pkt, _ := opusSilence()
	if frame != nil {
		var err error
		if c.pkt, err = c.enc.EncodeTo(c.pkt[:0], frame); err != nil {
			return fmt.Errorf("webrtc send: %w", err)
		}
		pkt = c.pkt
	}
	if err := c.track.WriteSample(media.Sample{Data: pkt, Duration: pipeline.FrameTime}); err != nil {
		return fmt.Errorf("webrtc send: %w", err)
	}
	return nil
}

// Clear has nothing to drop: WebRTC audio is not buffered ahead, the pacer stopped sending.
func (c *rtcCall) Clear() error { return nil }

// EndOfReply needs no marker on WebRTC: bot-stopped-speaking on the data channel says it.
func (c *rtcCall) EndOfReply(string) error { return nil }

// opusSilence is one 20 ms Opus packet of digital silence, encoded once per process.
var opusSilence = sync.OnceValues(func() ([]byte, error) {
	enc, err := audio.NewOpusEncoderRate(pipeline.Rate, opusBitrate)
	if err != nil {
		return nil, fmt.Errorf("opus silence: %w", err)
	}
	zero := make([]int16, pipeline.FrameSamples)
	var pkt []byte
	for range 3 { // past the encoder's start-up
		if pkt, err = enc.Encode(zero); err != nil {
			return nil, fmt.Errorf("opus silence: %w", err)
		}
	}
	return pkt, nil
})

// rtviFlushWait bounds the wait for a last RTVI message to be acknowledged before the hang-up.
const rtviFlushWait = 500 * time.Millisecond

// flushRTVI waits, briefly, until the peer has acknowledged what the data channel queued (SCTP
// counts bytes as buffered until acknowledged), so a message sent just before the hang-up is not
// lost with the connection.
func (c *rtcCall) flushRTVI() {
	c.dcMu.Lock()
	dc := c.dc
	c.dcMu.Unlock()
	if dc == nil {
		return
	}
	low := make(chan struct{}, 1)
	dc.SetBufferedAmountLowThreshold(0)
	dc.OnBufferedAmountLow(func() {
		select {
		case low <- struct{}{}:
		default:
		}
	})
	if dc.BufferedAmount() == 0 {
		return
	}
	timer := time.NewTimer(rtviFlushWait)
	defer timer.Stop()
	select {
	case <-low:
	case <-timer.C:
	}
}
