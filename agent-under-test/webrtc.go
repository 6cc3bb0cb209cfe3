package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/pion/ice/v4"
	"github.com/pion/interceptor"
	"github.com/pion/webrtc/v4"

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
	calls map[string]*rtcCall // by pc_id, from the peer connection's creation to finish
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

// answerWriteTimeout bounds writing the answer, which comes after ICE gathering (gatherTimeout).
const answerWriteTimeout = gatherTimeout + 10*time.Second

// handleOffer answers a SmallWebRTC offer (pipecat's POST /api/offer): JSON {sdp, type, pc_id?}
// in, {sdp, type:"answer", pc_id} out, the answer carrying every ICE candidate (no trickle). The
// request holds a setup place while its body arrives and a call slot only once the offer is valid.
func (t *rtcTransport) handleOffer(w http.ResponseWriter, r *http.Request) {
	setupDone, err := t.s.setup()
	if err != nil {
		w.Header().Set("Retry-After", "1")
		writeJSONError(w, http.StatusServiceUnavailable, err)
		return
	}
	offer, err := t.readOffer(w, r)
	setupDone()
	if err != nil {
		t.refuse(w, err)
		return
	}
	id, release, err := t.admitOffer(offer.PCID)
	if err != nil {
		t.refuse(w, err)
		return
	}
	c, sdp, err := t.answer(r, id, offer.SDP, release)
	if err != nil {
		t.refuse(w, err)
		return
	}
	go c.supervise()
	w.Header().Set("Content-Type", signaling.ContentTypeJSON)
	json.NewEncoder(w).Encode(signaling.Answer{SDP: sdp, Type: signaling.TypeAnswer, PCID: c.id})
}

// readOffer reads and checks the offer within SetupTimeout, before any slot is taken.
func (t *rtcTransport) readOffer(w http.ResponseWriter, r *http.Request) (signaling.Offer, error) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(t.s.cfg.setupTimeout())) // ErrNotSupported: no deadline to keep
	// Once the body is read, net/http clears the read deadline itself (startBackgroundRead).
	offer, err := signaling.DecodeOffer(r.Body)
	_ = rc.SetWriteDeadline(time.Now().Add(answerWriteTimeout))
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		// The read deadline stays: the server must not wait for the rest of this body either.
		w.Header().Set("Connection", "close")
		return signaling.Offer{}, fmt.Errorf("%w: no offer within %v: %w", errRejectOffer, t.s.cfg.setupTimeout(), err)
	case err != nil:
		return signaling.Offer{}, fmt.Errorf("%w: %w", errRejectOffer, err)
	}
	if err := checkOffer(offer.SDP); err != nil {
		return signaling.Offer{}, err
	}
	if offer.PCID != "" && !validCallID(offer.PCID) {
		return signaling.Offer{}, errBadPCID
	}
	return offer, nil
}

// admitOffer takes a call slot under the offer's pc_id, or a fresh "pc-<n>".
func (t *rtcTransport) admitOffer(pcID string) (string, func(), error) {
	if pcID != "" {
		release, err := t.s.admit(transportWebRTC, pcID)
		return pcID, release, err
	}
	for {
		id := fmt.Sprintf("pc-%d", t.s.nextID.Add(1))
		release, err := t.s.admit(transportWebRTC, id)
		if !errors.Is(err, ErrCallIDInUse) { // a Twilio callSid may have taken the name
			return id, release, err
		}
	}
}

// answer sets up the admitted call. It owns release: on an error it has been called.
func (t *rtcTransport) answer(r *http.Request, id, offer string, release func()) (*rtcCall, string, error) {
	c, err := t.newCall(id, release)
	if err != nil {
		release()
		return nil, "", err
	}
	sdp, err := c.negotiate(r.Context(), offer)
	if err != nil {
		c.finish()
		return nil, "", err
	}
	return c, sdp, nil
}

// refuse answers an offer that gets no call, counting the client's mistakes as bad input.
func (t *rtcTransport) refuse(w http.ResponseWriter, err error) {
	code, kind := offerStatus(err)
	if kind != kindUnknown {
		t.s.badRequest(transportWebRTC, kind, err)
	}
	if code == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	writeJSONError(w, code, err)
}

// offerStatus is the HTTP status for an offer's error, and its bad-input kind if it is the client's.
func offerStatus(err error) (int, inputKind) {
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return http.StatusRequestTimeout, kindSetupTimeout
	case errors.Is(err, ErrCallIDInUse):
		return http.StatusConflict, kindCallIDInUse
	case errors.Is(err, errBadPCID):
		return http.StatusBadRequest, kindBadPCID
	case errors.Is(err, errRejectOffer):
		return http.StatusBadRequest, kindBadOffer
	case errors.Is(err, ErrShuttingDown), errors.Is(err, ErrTooManyCalls), errors.Is(err, ErrSetupLimit):
		return http.StatusServiceUnavailable, kindUnknown
	}
	return http.StatusInternalServerError, kindUnknown
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
