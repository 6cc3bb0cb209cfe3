package webrtc

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/callers/listen"
	"github.com/callfleet/callfleet/internal/safetext"
	"github.com/callfleet/callfleet/speech/pool"
	"github.com/callfleet/callfleet/wire/signaling"
	pwebrtc "github.com/pion/webrtc/v4"
)

// Signaling kinds.
const (
	SignalingSmallWebRTC = "smallwebrtc"
	SignalingWHIP        = "whip"
)

// Defaults.
const (
	DefaultJitterBuffer    = 40 * time.Millisecond
	DefaultReadyTimeout    = 3 * time.Second
	DefaultDisconnectGrace = 5 * time.Second
	// DataChannelLabel is the label pipecat's own clients give their data channel
	// (small-webrtc-transport: createDataChannel("chat", {ordered: true})); the server takes
	// whatever channel the client opens.
	DataChannelLabel = "chat"
)

// Config says where and how calls are placed.
type Config struct {
	// Signaling is SignalingSmallWebRTC (the default) or SignalingWHIP.
	Signaling string
	// URL is the offer endpoint: pipecat's /api/offer, or the WHIP endpoint.
	URL string
	// BearerToken is sent on WHIP requests (RFC 9725 §4.5); SmallWebRTC has no auth.
	BearerToken string
	// JitterBuffer is the far end's playout delay the caller models (default 40 ms).
	JitterBuffer time.Duration
	// AheadLimit is how far ahead of real time the agent's audio may arrive before the excess is
	// dropped (Turn.Dropped); 0 means listen.DefaultMaxAhead.
	AheadLimit time.Duration
	// HTTPClient carries signaling; nil means http.DefaultClient.
	HTTPClient *http.Client
	// ICEServers are STUN/TURN servers; none are needed on loopback or a LAN.
	ICEServers []pwebrtc.ICEServer
	// ReadyTimeout is how long after connecting Ready waits for bot-ready before closing anyway,
	// for targets without RTVI (default 3 s).
	ReadyTimeout time.Duration
	// DisconnectGrace is how long a disconnected peer connection may take to come back before
	// the call counts as dropped (default 5 s, on top of pion's 5 s ICE disconnect timeout).
	DisconnectGrace time.Duration
	// API is the pion API every call shares; nil builds one with NewAPI(APIOptions).
	API        *pwebrtc.API
	APIOptions APIOptions
}

// Dialer places WebRTC calls. All its calls share one pion API and one DTLS certificate.
type Dialer struct {
	Config

	cert     pwebrtc.Certificate
	apiClose io.Closer
}

var _ callers.Dialer = (*Dialer)(nil)

// NewDialer checks cfg, fills defaults and builds the shared API.
func NewDialer(cfg Config) (*Dialer, error) {
	if cfg.Signaling == "" {
		cfg.Signaling = SignalingSmallWebRTC
	}
	if cfg.Signaling != SignalingSmallWebRTC && cfg.Signaling != SignalingWHIP {
		return nil, fmt.Errorf("webrtc dialer: %w: signaling %q (want %s or %s)",
			ErrConfig, cfg.Signaling, SignalingSmallWebRTC, SignalingWHIP)
	}
	if cfg.URL == "" {
		return nil, fmt.Errorf("webrtc dialer: %w: empty url", ErrConfig)
	}
	if cfg.JitterBuffer <= 0 {
		cfg.JitterBuffer = DefaultJitterBuffer
	}
	if cfg.AheadLimit <= 0 {
		cfg.AheadLimit = listen.DefaultMaxAhead
	}
	if cfg.ReadyTimeout <= 0 {
		cfg.ReadyTimeout = DefaultReadyTimeout
	}
	if cfg.DisconnectGrace <= 0 {
		cfg.DisconnectGrace = DefaultDisconnectGrace
	}
	if _, err := silencePacket(); err != nil {
		return nil, fmt.Errorf("webrtc dialer: %w", err)
	}
	d := &Dialer{Config: cfg, apiClose: nopCloser{}}
	if d.API == nil {
		api, closer, err := NewAPI(cfg.APIOptions)
		if err != nil {
			return nil, fmt.Errorf("webrtc dialer: %w", err)
		}
		d.API, d.apiClose = api, closer
	}
	// One certificate for all calls saves a key generation per call; browsers do the same.
	cert, err := newCertificate()
	if err != nil {
		_ = d.apiClose.Close()
		return nil, fmt.Errorf("webrtc dialer: %w", err)
	}
	d.cert = cert
	return d, nil
}

// Close releases what NewDialer built (the shared UDP sockets). Close every call first.
func (d *Dialer) Close() error {
	if err := d.apiClose.Close(); err != nil {
		return fmt.Errorf("webrtc dialer close: %w", err)
	}
	return nil
}

// Name is "webrtc".
func (d *Dialer) Name() string { return "webrtc" }

// Codec is Opus: clips are sent as their pre-encoded 20 ms packets.
func (d *Dialer) Codec() pool.Codec { return pool.CodecOpus }

// JitterBuffer is the far end's modelled playout delay.
func (d *Dialer) JitterBuffer() time.Duration { return d.Config.JitterBuffer }

var _ callers.AheadLimiter = (*Dialer)(nil)

// MaxAhead is how far ahead of real time agent audio may arrive (AheadLimit).
func (d *Dialer) MaxAhead() time.Duration { return d.AheadLimit }

// signaler returns the offer/answer exchange for one call. SmallWebRTC calls send the call's
// Params, if any, as request_data, which pipecat's runner hands to the bot.
func (d *Dialer) signaler(info callers.CallInfo) (signaling.Signaler, error) {
	if d.Signaling == SignalingWHIP {
		return signaling.WHIP{URL: d.URL, BearerToken: d.BearerToken, Client: d.HTTPClient}, nil
	}
	s := signaling.SmallWebRTC{URL: d.URL, Client: d.HTTPClient}
	if len(info.Params) > 0 {
		b, err := json.Marshal(info.Params)
		if err != nil {
			return nil, fmt.Errorf("request_data: %w", err)
		}
		s.RequestData = b
	}
	return s, nil
}

// Dial places one call: a peer connection with one sendrecv Opus transceiver (first, where
// pipecat looks for the microphone) and the "chat" data channel, an offer holding every ICE
// candidate (no trickle), the answer from the signaling endpoint, then a wait for ICE and DTLS to
// connect, which is the connect mark. Everything is bounded by ctx; on failure nothing is left
// running.
func (d *Dialer) Dial(ctx context.Context, info callers.CallInfo) (callers.Conn, error) {
	c, err := d.dial(ctx, info)
	if err != nil {
		return nil, fmt.Errorf("webrtc dial call %d to %s: %w", info.Call, d.URL, err)
	}
	return c, nil
}

func (d *Dialer) dial(ctx context.Context, info callers.CallInfo) (*Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sig, err := d.signaler(info)
	if err != nil {
		return nil, err
	}
	pc, err := d.API.NewPeerConnection(pwebrtc.Configuration{
		ICEServers:   d.ICEServers,
		Certificates: []pwebrtc.Certificate{d.cert},
	})
	if err != nil {
		return nil, fmt.Errorf("new peer connection: %w", err)
	}
	c, err := newConn(d, pc)
	if err != nil {
		_ = pc.Close()
		return nil, err
	}
	fail := func(err error) (*Conn, error) {
		c.abort(err)
		return nil, err
	}

	offer, err := pc.CreateOffer(nil)
	if err != nil {
		return fail(fmt.Errorf("create offer: %w", err))
	}
	gathered := pwebrtc.GatheringCompletePromise(pc)
	if err := pc.SetLocalDescription(offer); err != nil {
		return fail(fmt.Errorf("set local description: %w", err))
	}
	select {
	case <-gathered:
	case <-ctx.Done():
		return fail(fmt.Errorf("gathering ice candidates: %w", ctx.Err()))
	}

	answer, session, err := sig.Exchange(ctx, pc.LocalDescription().SDP)
	if err != nil {
		return fail(err)
	}
	c.session = session
	if err := pc.SetRemoteDescription(pwebrtc.SessionDescription{Type: pwebrtc.SDPTypeAnswer, SDP: answer}); err != nil {
		return fail(fmt.Errorf("set remote description: %w", safetext.Error(err))) // pion may quote the agent's SDP
	}

	select {
	case <-c.connected:
		return c, nil
	case <-c.done:
		return fail(fmt.Errorf("%w: %s", ErrConnect, pc.ConnectionState()))
	case <-ctx.Done():
		return fail(fmt.Errorf("waiting for ice and dtls (%s): %w", pc.ConnectionState(), ctx.Err()))
	}
}

// newCertificate makes the shared DTLS certificate (ECDSA P-256, as pion and browsers default to).
func newCertificate() (pwebrtc.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return pwebrtc.Certificate{}, fmt.Errorf("dtls key: %w", err)
	}
	cert, err := pwebrtc.GenerateCertificate(key)
	if err != nil {
		return pwebrtc.Certificate{}, fmt.Errorf("dtls certificate: %w", err)
	}
	return *cert, nil
}

// errorsIsNotFound reports a 404 from a WHIP DELETE: the session is already gone.
func errorsIsNotFound(err error) bool {
	var se *signaling.StatusError
	return errors.As(err, &se) && se.StatusCode == http.StatusNotFound
}
