package webrtc

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/callfleet/callfleet/wire/rtvi"
	"github.com/callfleet/callfleet/wire/signaling"
	"github.com/pion/rtp"
	pwebrtc "github.com/pion/webrtc/v4"
)

// testPeer is a minimal answering agent on loopback: pipecat's SmallWebRTC POST /api/offer and a
// WHIP endpoint (POST /whip, DELETE /whip/{id}), each call a pion peer connection that echoes the
// caller's Opus packets back on its own track after delay, answers client-ready with bot-ready
// and then emits a user-transcription.
type testPeer struct {
	api        *pwebrtc.API
	srv        *httptest.Server
	delay      time.Duration
	noRTVI     bool     // ignore client-ready, as a target without RTVI would
	dropEvery  int      // drop every n-th echoed packet (n > 0)
	flood      [][]byte // instead of echoing, send these Opus packets at floodSpeed times real time
	floodSpeed int

	mu      sync.Mutex
	calls   map[string]*peerCall
	next    int
	labels  []string // data channel labels seen
	reqData []string // SmallWebRTC request_data seen
	deletes int      // WHIP DELETEs served
}

type peerCall struct {
	id string
	pc *pwebrtc.PeerConnection
	dc atomic.Pointer[pwebrtc.DataChannel]
	wg sync.WaitGroup // echo goroutines
}

const (
	testTranscript = "one two three"
	whipPath       = "/whip"
)

func newTestPeer(delay time.Duration) (*testPeer, error) {
	api, _, err := NewAPI(APIOptions{NoRTCPReports: true})
	if err != nil {
		return nil, err
	}
	p := &testPeer{api: api, delay: delay, calls: map[string]*peerCall{}}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	return p, nil
}

func (p *testPeer) offerURL() string { return p.srv.URL + "/api/offer" }
func (p *testPeer) whipURL() string  { return p.srv.URL + whipPath }

// close hangs up every call and stops the server.
func (p *testPeer) close() {
	p.srv.Close()
	p.mu.Lock()
	calls := p.calls
	p.calls = map[string]*peerCall{}
	p.mu.Unlock()
	for _, c := range calls {
		c.close()
	}
}

func (p *testPeer) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/api/offer":
		o, err := signaling.DecodeOffer(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		p.mu.Lock()
		p.reqData = append(p.reqData, string(o.RequestData))
		p.mu.Unlock()
		c, sdp, err := p.answer(o.SDP)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", signaling.ContentTypeJSON)
		_ = json.NewEncoder(w).Encode(signaling.Answer{SDP: sdp, Type: signaling.TypeAnswer, PCID: c.id})
	case r.Method == http.MethodPost && r.URL.Path == whipPath:
		offer, err := signaling.ReadWHIPOffer(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		c, sdp, err := p.answer(offer)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", signaling.ContentTypeSDP)
		w.Header().Set("Location", whipPath+"/"+c.id)
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(sdp))
	case r.Method == http.MethodDelete && strings.HasPrefix(r.URL.Path, whipPath+"/"):
		id := strings.TrimPrefix(r.URL.Path, whipPath+"/")
		p.mu.Lock()
		c := p.calls[id]
		delete(p.calls, id)
		if c != nil {
			p.deletes++
		}
		p.mu.Unlock()
		if c == nil {
			http.NotFound(w, r)
			return
		}
		c.close()
		w.WriteHeader(http.StatusOK)
	default:
		http.NotFound(w, r)
	}
}

// answer creates the agent's side of one call and returns its complete answer.
func (p *testPeer) answer(offer string) (*peerCall, string, error) {
	pc, err := p.api.NewPeerConnection(pwebrtc.Configuration{})
	if err != nil {
		return nil, "", err
	}
	p.mu.Lock()
	p.next++
	c := &peerCall{id: fmt.Sprintf("pc-%d", p.next), pc: pc}
	p.calls[c.id] = c
	p.mu.Unlock()

	fail := func(err error) (*peerCall, string, error) {
		p.mu.Lock()
		delete(p.calls, c.id)
		p.mu.Unlock()
		c.close()
		return nil, "", err
	}
	if err := pc.SetRemoteDescription(pwebrtc.SessionDescription{Type: pwebrtc.SDPTypeOffer, SDP: offer}); err != nil {
		return fail(err)
	}
	track, err := pwebrtc.NewTrackLocalStaticRTP(OpusCapability, "agent", "agent")
	if err != nil {
		return fail(err)
	}
	if _, err := pc.AddTrack(track); err != nil { // takes the offered transceiver: sendrecv
		return fail(err)
	}
	pc.OnTrack(func(remote *pwebrtc.TrackRemote, _ *pwebrtc.RTPReceiver) {
		if len(p.flood) > 0 {
			p.floodTo(c, remote, track)
			return
		}
		p.echo(c, remote, track)
	})
	pc.OnDataChannel(func(dc *pwebrtc.DataChannel) {
		p.mu.Lock()
		p.labels = append(p.labels, dc.Label())
		p.mu.Unlock()
		c.dc.Store(dc)
		dc.OnMessage(func(m pwebrtc.DataChannelMessage) { p.onMessage(dc, m) })
	})
	answer, err := pc.CreateAnswer(nil)
	if err != nil {
		return fail(err)
	}
	gathered := pwebrtc.GatheringCompletePromise(pc)
	if err := pc.SetLocalDescription(answer); err != nil {
		return fail(err)
	}
	<-gathered
	return c, pc.LocalDescription().SDP, nil
}

// echo sends every received packet back after p.delay, keeping its sequence number and
// timestamp (the local track sets SSRC and payload type).
func (p *testPeer) echo(c *peerCall, remote *pwebrtc.TrackRemote, local *pwebrtc.TrackLocalStaticRTP) {
	type due struct {
		at  time.Time
		pkt *rtp.Packet
	}
	queue := make(chan due, 1000)
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		for d := range queue {
			time.Sleep(time.Until(d.at))
			_ = local.WriteRTP(d.pkt)
		}
	}()
	defer close(queue)
	for n := 1; ; n++ {
		pkt, _, err := remote.ReadRTP()
		if err != nil {
			return
		}
		if p.dropEvery > 0 && n%p.dropEvery == 0 {
			continue
		}
		select {
		case queue <- due{time.Now().Add(p.delay), pkt}:
		default:
		}
	}
}

// floodTo answers the caller's first packet with p.flood, sent at floodSpeed times real time,
// and reads what the caller sends until the call ends.
func (p *testPeer) floodTo(c *peerCall, remote *pwebrtc.TrackRemote, local *pwebrtc.TrackLocalStaticRTP) {
	if _, _, err := remote.ReadRTP(); err != nil {
		return
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		start := time.Now()
		pkt := &rtp.Packet{Header: rtp.Header{Version: 2}}
		for i, payload := range p.flood {
			time.Sleep(time.Until(start.Add(time.Duration(i) * 20 * time.Millisecond / time.Duration(p.floodSpeed))))
			pkt.SequenceNumber, pkt.Timestamp, pkt.Payload = uint16(i), uint32(i)*frameTicks, payload
			if local.WriteRTP(pkt) != nil {
				return
			}
		}
	}()
	for {
		if _, _, err := remote.ReadRTP(); err != nil {
			return
		}
	}
}

func (p *testPeer) onMessage(dc *pwebrtc.DataChannel, m pwebrtc.DataChannelMessage) {
	msg, err := rtvi.Decode(m.Data)
	if err != nil || msg.Type != rtvi.TypeClientReady || p.noRTVI {
		return
	}
	for _, out := range []rtvi.Message{
		rtvi.BotReady(msg.ID, rtvi.About{Library: "testpeer"}),
		rtvi.UserTranscription(testTranscript, true, time.Now()),
	} {
		b, _ := rtvi.Encode(out)
		_ = dc.SendText(string(b))
	}
}

// hangup ends call id from the agent's side, first telling the caller with pipecat's peerLeft
// when peerLeft is set.
func (p *testPeer) hangup(id string, peerLeft bool) error {
	p.mu.Lock()
	c := p.calls[id]
	delete(p.calls, id)
	p.mu.Unlock()
	if c == nil {
		return fmt.Errorf("no call %q", id)
	}
	if dc := c.dc.Load(); peerLeft && dc != nil {
		if err := dc.SendText(`{"type":"signalling","message":{"type":"peerLeft"}}`); err != nil {
			return err
		}
		time.Sleep(50 * time.Millisecond) // let it arrive before the close
	}
	c.close()
	return nil
}

func (c *peerCall) close() {
	_ = c.pc.GracefulClose()
	c.wg.Wait()
}

func (p *testPeer) seen() (labels []string, deletes int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.labels...), p.deletes
}
