package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/pion/ice/v4"
	"github.com/pion/interceptor"
	"github.com/pion/webrtc/v4"
	"github.com/pion/webrtc/v4/pkg/media"

	"github.com/callfleet/callfleet/agent-under-test/pipeline"
	"github.com/callfleet/callfleet/audio"
	"github.com/callfleet/callfleet/wire/rtvi"
	"github.com/callfleet/callfleet/wire/signaling"
)

// WebRTC timing. pion's ICE defaults (5 s to disconnected, 25 s more to failed) would keep a
// vanished caller's slot for half a minute; these end such a call within ~7 s.
const (
	iceDisconnectedTimeout = 3 * time.Second // no packet from the peer this long: disconnected
	iceFailedTimeout       = 4 * time.Second // then this much longer: failed, the call ends
	iceKeepalive           = 1 * time.Second // STUN binding requests on an otherwise quiet pair
	disconnectGrace        = 5 * time.Second // a disconnected call that does not recover ends
	gatherTimeout          = 5 * time.Second // ICE gathering before the answer is sent anyway
	connectTimeout         = 15 * time.Second
	opusBitrate            = 24000
	// opusComplexity 1 encodes a 16 kHz voice frame in ~74 µs against ~154 µs at libopus' 5, and
	// the caller's transcriber heard 150 of 150 replies either way (flite rms, 24 kbit/s).
	opusComplexity  = 1
	opusPayloadType = 111 // the payload type browsers offer Opus with
	// RTVI messages kept for a client whose data channel is not open yet, and bytes queued for
	// one that does not read it: past these, messages are dropped.
	maxPendingRTVI = 64
	maxDCBuffered  = 256 << 10
)

// opusCodec is the only codec the agent speaks: Opus as RFC 7587 §7 signals it (48 kHz RTP clock,
// "/2" channels whatever is sent), with the fmtp browsers and pipecat's SmallWebRTC use.
var opusCodec = webrtc.RTPCodecCapability{
	MimeType: webrtc.MimeTypeOpus, ClockRate: 48000, Channels: 2, SDPFmtpLine: "minptime=10;useinbandfec=1",
}

// Errors an offer can be refused with (HTTP 400, or 409 for a pc_id in use).
var (
	errNoAudio     = errors.New("offer has no audio m-line")
	errNoOpus      = errors.New("offer's audio does not offer opus/48000/2 (RFC 7587)")
	errBadPCID     = errors.New("pc_id must be 1-128 printable ASCII characters without / or \\")
	errPCIDInUse   = errors.New("pc_id names a live call; renegotiation is not supported")
	errRejectOffer = errors.New("offer rejected")
)

// rtcTransport is the WebRTC side of the agent (pion): pipecat SmallWebRTC offers on
// POST /api/offer, one Opus track each way, RTVI on the data channel the client opens.
//
// ICE runs on sockets of each call's own rather than one shared UDP mux. Measured with 150
// loopback calls on 2 cores: the mux saved the agent 4 file descriptors per call (one per
// interface address) and no CPU beyond the noise, but its single socket overflowed the default
// 208 KiB receive buffer (78k datagrams dropped in one run, 12 of 150 calls never up in another).
// A 4 MiB buffer cured that only because this host's net.core.rmem_max allows it; stock kernels
// cap it at 208 KiB.
type rtcTransport struct {
	s   *Server
	api *webrtc.API

	mu    sync.Mutex
	calls map[string]*rtcCall // by pc_id; nil while an offer is being answered
}

func newRTCTransport(s *Server) (*rtcTransport, error) {
	me := &webrtc.MediaEngine{}
	if err := me.RegisterCodec(webrtc.RTPCodecParameters{RTPCodecCapability: opusCodec, PayloadType: opusPayloadType},
		webrtc.RTPCodecTypeAudio); err != nil {
		return nil, fmt.Errorf("webrtc media engine: %w", err)
	}
	// RTCP sender and receiver reports (RFC 3550 §6.4) only: NACK and congestion control do
	// nothing for a 24 kb/s Opus stream.
	ir := &interceptor.Registry{}
	if err := webrtc.ConfigureRTCPReports(ir); err != nil {
		return nil, fmt.Errorf("webrtc interceptors: %w", err)
	}
	se := webrtc.SettingEngine{}
	se.SetIncludeLoopbackCandidate(true)                    // a caller on the same host
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled) // no .local names, no mDNS socket per call
	se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4, webrtc.NetworkTypeUDP6})
	se.SetICETimeouts(iceDisconnectedTimeout, iceFailedTimeout, iceKeepalive)
	api := webrtc.NewAPI(webrtc.WithMediaEngine(me), webrtc.WithSettingEngine(se), webrtc.WithInterceptorRegistry(ir))
	return &rtcTransport{s: s, api: api, calls: map[string]*rtcCall{}}, nil
}

// handleOffer answers a SmallWebRTC offer (pipecat's POST /api/offer): JSON {sdp, type, pc_id?}
// in, {sdp, type:"answer", pc_id} out, the answer carrying every ICE candidate (no trickle).
func (t *rtcTransport) handleOffer(w http.ResponseWriter, r *http.Request) {
	release, err := t.s.admit("webrtc")
	if err != nil {
		w.Header().Set("Retry-After", "1")
		writeJSONError(w, http.StatusServiceUnavailable, err)
		return
	}
	c, sdp, err := t.answer(r, release)
	if err != nil {
		code := offerStatus(err)
		if code == http.StatusBadRequest || code == http.StatusConflict {
			t.s.badInput("offer", err)
		}
		writeJSONError(w, code, err)
		return
	}
	go c.supervise()
	w.Header().Set("Content-Type", signaling.ContentTypeJSON)
	json.NewEncoder(w).Encode(signaling.Answer{SDP: sdp, Type: signaling.TypeAnswer, PCID: c.id})
}

// answer checks the offer and sets up its call. It owns release: on an error it has been called.
func (t *rtcTransport) answer(r *http.Request, release func()) (*rtcCall, string, error) {
	offer, err := signaling.DecodeOffer(r.Body)
	if err != nil {
		err = fmt.Errorf("%w: %w", errRejectOffer, err)
	} else if err = checkOffer(offer.SDP); err == nil {
		offer.PCID, err = t.reserve(offer.PCID)
	}
	if err != nil {
		release()
		return nil, "", err
	}
	c, err := t.newCall(offer.PCID, release)
	if err != nil {
		t.forget(offer.PCID)
		release()
		return nil, "", err
	}
	sdp, err := c.negotiate(r.Context(), offer.SDP)
	if err != nil {
		c.finish()
		return nil, "", err
	}
	return c, sdp, nil
}

func offerStatus(err error) int {
	switch {
	case errors.Is(err, errPCIDInUse):
		return http.StatusConflict
	case errors.Is(err, errRejectOffer), errors.Is(err, errBadPCID):
		return http.StatusBadRequest
	case errors.Is(err, ErrShuttingDown):
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

func writeJSONError(w http.ResponseWriter, code int, err error) {
	w.Header().Set("Content-Type", signaling.ContentTypeJSON)
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(struct {
		Error string `json:"error"`
	}{err.Error()})
}

// checkOffer parses the SDP and requires an active audio m-line offering Opus.
func checkOffer(sdp string) error {
	parsed, err := (&webrtc.SessionDescription{Type: webrtc.SDPTypeOffer, SDP: sdp}).Unmarshal()
	if err != nil {
		return fmt.Errorf("%w: sdp: %v", errRejectOffer, err)
	}
	audio := false
	for _, md := range parsed.MediaDescriptions {
		if md.MediaName.Media != "audio" || md.MediaName.Port.Value == 0 {
			continue
		}
		audio = true
		for _, a := range md.Attributes {
			if a.Key == "rtpmap" && strings.Contains(strings.ToLower(a.Value), " opus/48000/2") {
				return nil
			}
		}
	}
	if !audio {
		return fmt.Errorf("%w: %w", errRejectOffer, errNoAudio)
	}
	return fmt.Errorf("%w: %w", errRejectOffer, errNoOpus)
}

// reserve claims the call's id: the offer's pc_id, or a fresh "pc-<n>".
func (t *rtcTransport) reserve(pcID string) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if pcID != "" {
		if !validPCID(pcID) {
			return "", errBadPCID
		}
		if _, live := t.calls[pcID]; live {
			return "", fmt.Errorf("%w: %q", errPCIDInUse, pcID)
		}
		t.calls[pcID] = nil
		return pcID, nil
	}
	for {
		id := fmt.Sprintf("pc-%d", t.s.nextID.Add(1))
		if _, taken := t.calls[id]; !taken {
			t.calls[id] = nil
			return id, nil
		}
	}
}

func validPCID(id string) bool {
	bad := func(r rune) bool { return r <= ' ' || r > '~' || r == '/' || r == '\\' }
	return id != "" && len(id) <= 128 && strings.IndexFunc(id, bad) < 0
}

func (t *rtcTransport) forget(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.calls, id)
}

// close ends every call still up: Shutdown has waited for them, this is for any it could not.
func (t *rtcTransport) close() error {
	t.mu.Lock()
	var pcs []*webrtc.PeerConnection
	for _, c := range t.calls {
		if c != nil {
			pcs = append(pcs, c.pc)
		}
	}
	t.mu.Unlock()
	var errs []error
	for _, pc := range pcs {
		if err := pc.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close peer connection: %w", err))
		}
	}
	return errors.Join(errs...)
}

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
	stop    func()
	release func()

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
	c := &rtcCall{t: t, id: id, log: t.s.log.With("call", id, "transport", "webrtc"), pc: pc, track: track,
		enc: enc, release: release, connected: make(chan struct{}), ended: make(chan struct{})}
	if c.call, c.stop, err = t.s.startCall(id, c, c.sendRTVI); err != nil {
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
// down, the connection is lost, or the idle guard hangs up; then it ends the call.
func (c *rtcCall) supervise() {
	defer c.finish()
	if !c.awaitConnected() {
		return
	}
	ctx, cancel := context.WithCancel(c.t.s.ctx)
	defer cancel()
	runErr := make(chan error, 1)
	go func() { runErr <- c.call.Run(ctx) }()
	var err error
	select {
	case err = <-runErr:
	case <-c.ended:
		cancel()
		err = <-runErr
	}
	if errors.Is(err, pipeline.ErrIdle) {
		c.log.Info("idle guard hung up") // closing the peer connection is the WebRTC hang-up
	}
}

func (c *rtcCall) awaitConnected() bool {
	timer := time.NewTimer(connectTimeout)
	defer timer.Stop()
	select {
	case <-c.connected:
		return true
	case <-c.ended:
	case <-timer.C:
		c.log.Info("peer connection never came up", "after", connectTimeout)
	case <-c.t.s.ctx.Done():
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
// connection closes.
func (c *rtcCall) read(tr *webrtc.TrackRemote) {
	dec, err := audio.NewOpusDecoderRate(pipeline.Rate)
	if err != nil {
		c.log.Warn("opus decoder", "err", err)
		return
	}
	in := &opusIn{dec: dec, push: c.call.Push}
	for {
		pkt, _, err := tr.ReadRTP()
		if err != nil {
			return
		}
		if err := in.packet(pkt.SequenceNumber, pkt.Payload); err != nil {
			c.t.s.badInput("webrtc", err)
		}
	}
}

// maxConceal bounds the lost packets concealed in a row (100 ms of 20 ms packets); a longer gap
// is left out rather than filled with made-up sound.
const maxConceal = 5

// opusIn turns an RTP Opus stream into 20 ms frames at 16 kHz: lost packets (a gap in the RTP
// sequence numbers, RFC 3550 §5.1) are concealed by the decoder (RFC 6716 §4.4), duplicates and
// late packets dropped. Packets of any duration are re-cut into 20 ms frames.
type opusIn struct {
	dec     *audio.OpusDecoder
	push    func([]int16)
	last    uint16
	started bool
	pending []int16
	quiet   audio.SilenceSkip // the caller's repeated silent packet is not decoded each time
	zeros   []int16
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
				return err
			}
			in.add(pcm)
		}
	}
	in.started, in.last = true, seq
	if len(payload) == 0 {
		return nil // padding only
	}
	if n := in.quiet.Skip(payload); n > 0 {
		if len(in.zeros) < n {
			in.zeros = make([]int16, n)
		}
		in.add(in.zeros[:n])
		return nil
	}
	pcm, err := in.dec.Decode(payload)
	if err != nil {
		return fmt.Errorf("rtp packet %d: %w", seq, err)
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
			c.t.s.badInput("rtvi", err)
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
