package agent

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pion/ice/v4"
	"github.com/pion/webrtc/v4"
	"github.com/pion/webrtc/v4/pkg/media"
	"go.uber.org/goleak"

	"github.com/callfleet/callfleet/audio"
	"github.com/callfleet/callfleet/speech/pool"
	"github.com/callfleet/callfleet/wire/rtvi"
	"github.com/callfleet/callfleet/wire/signaling"
)

// noLeaks fails the test if goroutines started during it outlive it. Call it before startAgent so
// its check runs after the agent's shutdown (cleanups run last-registered first).
func noLeaks(t *testing.T) {
	t.Helper()
	fixtures(t) // the shared model's goroutines belong to the package, not the test
	base := goleak.IgnoreCurrent()
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for {
			err := goleak.Find(base)
			if err == nil {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("goroutines leaked: %v", err)
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

// lossyConn is the caller's network: cut drops every packet both ways without a word, like a
// laptop lid closing.
type lossyConn struct {
	net.PacketConn
	cut atomic.Bool
}

func (c *lossyConn) ReadFrom(p []byte) (int, net.Addr, error) {
	for {
		n, addr, err := c.PacketConn.ReadFrom(p)
		if err != nil || !c.cut.Load() {
			return n, addr, err
		}
	}
}

func (c *lossyConn) WriteTo(p []byte, addr net.Addr) (int, error) {
	if c.cut.Load() {
		return len(p), nil
	}
	return c.PacketConn.WriteTo(p, addr)
}

// rtcPeer is a pion SmallWebRTC caller: Opus up in real time, the agent's Opus decoded to 16 kHz,
// RTVI from the data channel.
type rtcPeer struct {
	t       testing.TB
	pc      *webrtc.PeerConnection
	track   *webrtc.TrackLocalStaticSample
	net     *lossyConn
	id      string // pc_id
	readyID string // id of the client-ready sent
	start   time.Time
	n       int

	mu     sync.Mutex
	msgs   []rtvi.Message
	agent  []int16
	loud   int // agent frames above the silence threshold
	ended  chan struct{}
	ending sync.Once
}

func newPeerAPI(t testing.TB) (*webrtc.API, *lossyConn) {
	t.Helper()
	me := &webrtc.MediaEngine{}
	if err := me.RegisterCodec(webrtc.RTPCodecParameters{RTPCodecCapability: opusCodec, PayloadType: 111},
		webrtc.RTPCodecTypeAudio); err != nil {
		t.Fatal(err)
	}
	udp, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	conn := &lossyConn{PacketConn: udp}
	mux := ice.NewUDPMuxDefault(ice.UDPMuxParams{UDPConn: conn})
	t.Cleanup(func() { mux.Close() })
	se := webrtc.SettingEngine{}
	se.SetIncludeLoopbackCandidate(true)
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
	se.SetICEUDPMux(mux)
	return webrtc.NewAPI(webrtc.WithMediaEngine(me), webrtc.WithSettingEngine(se)), conn
}

// dialRTC connects a caller to the agent at base; withAudio=false offers a data channel only.
func dialRTC(t testing.TB, ctx context.Context, base string, withAudio bool) (*rtcPeer, error) {
	t.Helper()
	api, conn := newPeerAPI(t)
	pc, err := api.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	p := &rtcPeer{t: t, pc: pc, net: conn, readyID: rtvi.NewID(), ended: make(chan struct{})}
	if withAudio {
		p.addAudio()
	}
	dc, err := pc.CreateDataChannel("rtvi-ai", nil)
	if err != nil {
		t.Fatal(err)
	}
	dc.OnOpen(func() {
		b, _ := rtvi.Encode(rtvi.ClientReady(p.readyID, rtvi.About{Library: "callfleet-test"}))
		// A SmallWebRTC keepalive and a signalling message, which the agent ignores, and a
		// truncated RTVI message, which it counts as bad input without ending the call.
		dc.SendText("ping")
		dc.SendText(`{"type":"signalling","message":{"type":"trackStatus","enabled":true}}`)
		dc.SendText(`{"label":"rtvi-ai"`)
		dc.SendText(string(b))
	})
	dc.OnMessage(func(m webrtc.DataChannelMessage) { p.onRTVI(m.Data) })
	pc.OnConnectionStateChange(func(s webrtc.PeerConnectionState) {
		if s == webrtc.PeerConnectionStateClosed || s == webrtc.PeerConnectionStateFailed {
			p.ending.Do(func() { close(p.ended) })
		}
	})
	offer, err := pc.CreateOffer(nil)
	if err != nil {
		t.Fatal(err)
	}
	gathered := webrtc.GatheringCompletePromise(pc)
	if err := pc.SetLocalDescription(offer); err != nil {
		t.Fatal(err)
	}
	<-gathered
	sig := signaling.SmallWebRTC{URL: base + "/api/offer"}
	answer, sess, err := sig.Exchange(ctx, pc.LocalDescription().SDP)
	if err != nil {
		return nil, err
	}
	p.id = sess.ID
	if err := pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeAnswer, SDP: answer}); err != nil {
		t.Fatal(err)
	}
	p.start = time.Now()
	return p, nil
}

func (p *rtcPeer) addAudio() {
	track, err := webrtc.NewTrackLocalStaticSample(opusCodec, "mic", "caller")
	if err != nil {
		p.t.Fatal(err)
	}
	sender, err := p.pc.AddTrack(track)
	if err != nil {
		p.t.Fatal(err)
	}
	go func() {
		for buf := make([]byte, 1500); ; {
			if _, _, err := sender.Read(buf); err != nil {
				return
			}
		}
	}()
	p.track = track
	p.pc.OnTrack(func(tr *webrtc.TrackRemote, _ *webrtc.RTPReceiver) {
		dec, err := audio.NewOpusDecoderRate(16000)
		if err != nil {
			p.t.Error(err)
			return
		}
		in := &opusIn{dec: dec, push: p.onAgentFrame}
		for {
			pkt, _, err := tr.ReadRTP()
			if err != nil {
				return
			}
			if err := in.packet(pkt.SequenceNumber, pkt.Payload); err != nil {
				p.t.Errorf("agent sent undecodable opus: %v", err)
			}
		}
	})
}

func (p *rtcPeer) onAgentFrame(f []int16) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.agent = append(p.agent, f...)
	if audio.RMS(f) > 300 {
		p.loud++
	}
}

func (p *rtcPeer) onRTVI(data []byte) {
	m, err := rtvi.Decode(data)
	if err != nil {
		p.t.Errorf("agent sent a bad RTVI message: %v: %s", err, data)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.msgs = append(p.msgs, m)
}

// frame sends one 20 ms packet at its real-time slot.
func (p *rtcPeer) frame(pkt []byte) {
	time.Sleep(time.Until(p.start.Add(time.Duration(p.n) * 20 * time.Millisecond)))
	p.n++
	if err := p.track.WriteSample(media.Sample{Data: pkt, Duration: 20 * time.Millisecond}); err != nil {
		p.t.Logf("write sample: %v", err)
	}
}

func (p *rtcPeer) say(c *pool.Clip) {
	for _, pkt := range c.Opus {
		p.frame(pkt)
	}
}

// silentOpus is a 20 ms 48 kHz packet of silence, as a muted browser sends.
var silentOpus = sync.OnceValue(func() []byte {
	enc, err := audio.NewOpusEncoder(24000)
	if err != nil {
		panic(err)
	}
	pkt, err := enc.Encode(make([]int16, 960))
	if err != nil {
		panic(err)
	}
	return pkt
})

// until sends silence until cond holds or ctx ends; it reports whether cond held.
func (p *rtcPeer) until(ctx context.Context, cond func() bool) bool {
	for ctx.Err() == nil {
		p.frame(silentOpus())
		if cond() {
			return true
		}
	}
	return false
}

// has reports whether a message of type typ (and id, if not empty) arrived.
func (p *rtcPeer) has(typ, id string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range p.msgs {
		if m.Type == typ && (id == "" || m.ID == id) {
			return true
		}
	}
	return false
}

func (p *rtcPeer) count(typ string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, m := range p.msgs {
		if m.Type == typ {
			n++
		}
	}
	return n
}

func (p *rtcPeer) finals() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, m := range p.msgs {
		if text, final, err := m.Transcription(); err == nil && final && m.Type == rtvi.TypeUserTranscription {
			out = append(out, text)
		}
	}
	return out
}

// awaitLive waits up to limit for the agent's live-call count to reach n and returns how long it took.
func awaitLive(t testing.TB, srv *Server, n int, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for srv.Live() != n {
		if time.Since(start) > limit {
			t.Fatalf("live calls %d after %v, want %d", srv.Live(), limit, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return time.Since(start)
}

func TestWebRTCTurn(t *testing.T) {
	model, p := fixtures(t)
	noLeaks(t)
	srv, hs := startAgent(t, DefaultConfig())
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	c, err := dialRTC(t, ctx, hs.URL, true)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(c.id, "pc-") {
		t.Errorf("pc_id %q, want pc-<n>", c.id)
	}
	if !c.until(ctx, func() bool { return c.has(rtvi.TypeBotReady, c.readyID) }) {
		t.Fatal("no bot-ready answering client-ready")
	}
	clip := p.Clip(0)
	sent := time.Now()
	c.say(clip)
	if !c.until(ctx, func() bool { return c.has(rtvi.TypeBotStoppedSpeaking, "") }) {
		t.Fatalf("no reply; messages so far: %d", len(c.msgs))
	}
	end := time.Now().Add(300 * time.Millisecond) // the last packets in flight
	c.until(ctx, func() bool { return time.Now().After(end) })
	t.Logf("phrase %q: %v from first packet to bot-stopped-speaking", clip.Digits, time.Since(sent))

	if n, one := c.count(rtvi.TypeBotReady), c.has(rtvi.TypeBotReady, c.readyID); n != 1 || !one {
		t.Errorf("%d bot-ready messages, want exactly one, answering client-ready %s", n, c.readyID)
	}
	if got := c.finals(); len(got) != 1 || got[0] != clip.Digits {
		t.Errorf("user-transcription finals %q, want [%q]", got, clip.Digits)
	}
	for _, typ := range []string{rtvi.TypeUserStartedSpeaking, rtvi.TypeBotStartedSpeaking, rtvi.TypeBotTranscription,
		rtvi.TypeBotOutput, rtvi.TypeBotTTSText} {
		if !c.has(typ, "") {
			t.Errorf("no %s on the data channel", typ)
		}
	}
	c.mu.Lock()
	reply, loud := append([]int16(nil), c.agent...), c.loud
	c.mu.Unlock()
	heard, err := model.Transcribe(ctx, reply)
	if err != nil || heard != clip.Digits {
		t.Errorf("reply heard as %q (%v), want %q (%d loud frames of %d)", heard, err, clip.Digits, loud, len(reply)/320)
	}
	if n := metric(t, hs.URL, `agent_bad_input_total{kind="bad_rtvi",transport="webrtc"}`); n != 1 {
		t.Errorf("bad RTVI counted %v, want 1 (the truncated message only)", n)
	}
	// Hanging up: the DTLS close_notify ends the call at once.
	c.pc.Close()
	t.Logf("call ended %v after the caller hung up", awaitLive(t, srv, 0, 3*time.Second))
}

func TestWebRTCVanishedCaller(t *testing.T) {
	noLeaks(t)
	srv, hs := startAgent(t, DefaultConfig())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := dialRTC(t, ctx, hs.URL, true)
	if err != nil {
		t.Fatal(err)
	}
	if !c.until(ctx, func() bool { return c.has(rtvi.TypeBotReady, c.readyID) }) {
		t.Fatal("no bot-ready")
	}
	c.net.cut.Store(true) // not a packet more, not even a DTLS alert
	gone := awaitLive(t, srv, 0, 10*time.Second)
	t.Logf("vanished caller's call ended after %v", gone)
}

func TestWebRTCIdleHangup(t *testing.T) {
	noLeaks(t)
	cfg := DefaultConfig()
	cfg.Pipeline.IdlePrompt = 300 * time.Millisecond
	cfg.Pipeline.IdleHangup = 300 * time.Millisecond
	srv, hs := startAgent(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	c, err := dialRTC(t, ctx, hs.URL, true)
	if err != nil {
		t.Fatal(err)
	}
	closed := func() bool {
		select {
		case <-c.ended:
			return true
		default:
			return false
		}
	}
	if !c.until(ctx, closed) {
		t.Fatal("the agent did not hang up on a silent caller")
	}
	if !c.has(rtvi.TypeBotTranscription, "") {
		t.Error("no idle prompt before the hang-up")
	}
	awaitLive(t, srv, 0, 3*time.Second)
}

// offerReply is what /api/offer answers: an answer or an error.
type offerReply struct {
	Error string `json:"error"`
	PCID  string `json:"pc_id"`
	Type  string `json:"type"`
}

// TestWebRTCShutdown: Shutdown hangs up on live calls (the caller sees its peer connection
// close) and refuses new ones.
func TestWebRTCShutdown(t *testing.T) {
	noLeaks(t)
	srv, hs := startAgent(t, DefaultConfig())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := dialRTC(t, ctx, hs.URL, true)
	if err != nil {
		t.Fatal(err)
	}
	if !c.until(ctx, func() bool { return c.has(rtvi.TypeBotReady, c.readyID) }) {
		t.Fatal("no bot-ready")
	}
	start := time.Now()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	t.Logf("shutdown took %v", time.Since(start))
	select {
	case <-c.ended:
	case <-time.After(3 * time.Second):
		t.Error("the caller's peer connection is still up after shutdown")
	}
	if _, err := dialRTC(t, ctx, hs.URL, true); err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("offer after shutdown: %v, want 503", err)
	}
}

// postOffer posts a raw body to /api/offer.
func postOffer(t *testing.T, base, body string) (int, offerReply) {
	t.Helper()
	resp, err := http.Post(base+"/api/offer", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r offerReply
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || (r.Error == "") != (resp.StatusCode == http.StatusOK) {
		t.Errorf("status %d with reply %+v (%v)", resp.StatusCode, r, err)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("content type %q", ct)
	}
	return resp.StatusCode, r
}

// pionOffer returns a real offer SDP with one audio m-line (ICE gathered), never answered.
func pionOffer(t *testing.T) string {
	t.Helper()
	api, _ := newPeerAPI(t)
	pc, err := api.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	if _, err := pc.AddTransceiverFromKind(webrtc.RTPCodecTypeAudio); err != nil {
		t.Fatal(err)
	}
	offer, err := pc.CreateOffer(nil)
	if err != nil {
		t.Fatal(err)
	}
	gathered := webrtc.GatheringCompletePromise(pc)
	if err := pc.SetLocalDescription(offer); err != nil {
		t.Fatal(err)
	}
	<-gathered
	return pc.LocalDescription().SDP
}

// metric returns the value of one series of the agent's /metrics, or -1 when it is absent.
func metric(t *testing.T, base, series string) float64 {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("metric %s: %v", line, err)
			}
			return f
		}
	}
	return -1
}

func TestWebRTCRefusedPastMaxCalls(t *testing.T) {
	noLeaks(t)
	cfg := DefaultConfig()
	cfg.MaxCalls = 1
	srv, hs := startAgent(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	first, err := dialRTC(t, ctx, hs.URL, true)
	if err != nil {
		t.Fatal(err)
	}
	_, err = dialRTC(t, ctx, hs.URL, true)
	var se *signaling.StatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusServiceUnavailable || !strings.Contains(se.Body, `"error"`) {
		t.Fatalf("second call: %v, want 503 with a JSON error", err)
	}
	if !first.until(ctx, func() bool { return first.has(rtvi.TypeBotReady, first.readyID) }) {
		t.Fatal("the live call was disturbed by the refusal")
	}
	if srv.Live() != 1 {
		t.Fatalf("live = %d", srv.Live())
	}
}

func TestOfferBadInput(t *testing.T) {
	noLeaks(t)
	srv, hs := startAgent(t, DefaultConfig())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, tc := range []struct{ name, body string }{
		{"not json", `{sdp`},
		{"not an offer", `{"sdp":"v=0\r\n","type":"answer"}`},
		{"no v=0", `{"sdp":"hello","type":"offer"}`},
		{"garbage sdp", `{"sdp":"v=0\r\nthis is not sdp\r\n","type":"offer"}`},
	} {
		if code, r := postOffer(t, hs.URL, tc.body); code != http.StatusBadRequest {
			t.Errorf("%s: status %d (%s), want 400", tc.name, code, r.Error)
		}
	}
	// A real offer with a data channel but no audio m-line.
	_, err := dialRTC(t, ctx, hs.URL, false)
	var se *signaling.StatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusBadRequest || !strings.Contains(se.Body, "no audio") {
		t.Errorf("offer without audio: %v, want 400 no audio", err)
	}
	if srv.Live() != 0 {
		t.Errorf("live = %d after bad offers", srv.Live())
	}
	if n := metric(t, hs.URL, `agent_bad_input_total{kind="bad_offer",transport="webrtc"}`); n != 5 {
		t.Errorf("bad offers counted %v, want 5", n)
	}
}

// TestOfferPCID: a pc_id the client chooses names the call; one already live is refused (409),
// as renegotiation is not supported.
func TestOfferPCID(t *testing.T) {
	noLeaks(t)
	srv, hs := startAgent(t, DefaultConfig())
	sdp := pionOffer(t)
	bad, _ := json.Marshal(signaling.Offer{SDP: sdp, Type: signaling.TypeOffer, PCID: "../../etc/passwd"})
	if code, r := postOffer(t, hs.URL, string(bad)); code != http.StatusBadRequest {
		t.Errorf("offer with a path for pc_id: %d %+v, want 400", code, r)
	}
	body, _ := json.Marshal(signaling.Offer{SDP: sdp, Type: signaling.TypeOffer, PCID: "SmallWebRTCConnection#0-abc"})
	code, r := postOffer(t, hs.URL, string(body))
	if code != http.StatusOK || r.PCID != "SmallWebRTCConnection#0-abc" || r.Type != "answer" {
		t.Fatalf("offer with pc_id: %d %+v", code, r)
	}
	if code, r := postOffer(t, hs.URL, string(body)); code != http.StatusConflict {
		t.Errorf("second offer with a live pc_id: %d %+v, want 409", code, r)
	}
	if srv.Live() != 1 {
		t.Errorf("live = %d, want the first call only", srv.Live())
	}
}

func TestOpusInConcealsGaps(t *testing.T) {
	enc, err := audio.NewOpusEncoder(24000)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := audio.NewOpusDecoderRate(16000)
	if err != nil {
		t.Fatal(err)
	}
	frames := 0
	in := &opusIn{dec: dec, push: func(f []int16) {
		if len(f) != 320 {
			t.Fatalf("frame of %d samples", len(f))
		}
		frames++
	}}
	pkt, _ := enc.Encode(make([]int16, 960))
	for _, tc := range []struct {
		seq  uint16
		want int // frames pushed so far
	}{
		{65534, 1}, {65535, 2}, {1, 4}, // wrap, one lost: concealed
		{1, 4}, {0, 4}, // duplicate, late
		{40, 4 + maxConceal + 1}, // a long gap: concealed up to maxConceal
	} {
		if err := in.packet(tc.seq, pkt); err != nil {
			t.Fatal(err)
		}
		if frames != tc.want {
			t.Fatalf("after seq %d: %d frames, want %d", tc.seq, frames, tc.want)
		}
	}
	if err := in.packet(41, []byte{0xff, 0xff, 0xff}); err == nil {
		t.Error("garbage packet decoded")
	}
}
