package webrtc

import (
	"fmt"
	"io"

	"github.com/callfleet/callfleet/wire/rtvi"
	"github.com/pion/ice/v4"
	"github.com/pion/interceptor"
	"github.com/pion/logging"
	pwebrtc "github.com/pion/webrtc/v4"
)

// Opus as WebRTC negotiates it: RFC 7587 §7 fixes the SDP name at opus/48000/2 whatever the
// channel count actually sent; minptime and in-band FEC are what browsers offer.
const (
	opusClockRate   = 48000
	opusPayloadType = 111
	opusFmtp        = "minptime=10;useinbandfec=1"
	frameTicks      = opusClockRate / 50 // RTP timestamp units per 20 ms frame
)

// MaxDataChannelMessage caps a data channel message from the agent. RTVI messages over
// rtvi.MaxMessageSize are skipped; this is the room pion may use to read one.
const MaxDataChannelMessage = 4 * rtvi.MaxMessageSize

// OpusCapability is the only codec the caller's API negotiates.
var OpusCapability = pwebrtc.RTPCodecCapability{
	MimeType:    pwebrtc.MimeTypeOpus,
	ClockRate:   opusClockRate,
	Channels:    2,
	SDPFmtpLine: opusFmtp,
}

// APIOptions tunes the pion API shared by every call of a Dialer.
type APIOptions struct {
	// UDPMux, when set, makes every peer connection share one UDP socket per local address
	// (on UDPPort, 0 meaning one ephemeral port per address) instead of binding its own sockets
	// for each call: one file descriptor and reader goroutine per address instead of per call
	// and address, and a fixed port for firewalls. Off by default: measured on loopback
	// (BenchmarkTick) it costs a little more CPU per packet than per-call sockets, since every
	// packet goes through the mux's single reader and a demultiplexing hop.
	UDPMux  bool
	UDPPort int
	// NoRTCPReports drops the RTCP sender/receiver report interceptors (RFC 3550 §6.4).
	NoRTCPReports bool
	// IncludeIPv6 gathers udp6 candidates as well as udp4. Off by default: more candidate pairs
	// to check made setup slower (BenchmarkDial) for no gain on loopback or an IPv4 LAN.
	IncludeIPv6 bool
	// PionLog receives pion's warnings and errors; nil discards them, as hundreds of calls
	// closing would otherwise print over the caller's own output.
	PionLog io.Writer
}

// NewAPI builds a pion API for many concurrent calls on loopback or a LAN:
//
//   - MediaEngine with Opus only (OpusCapability, payload type 111), so offers are short and
//     every answer can only pick Opus.
//   - Loopback host candidates included (pion leaves them out by default, and a load tester
//     and its target often share a host), mDNS candidates off (nothing to hide, and resolving
//     .local names costs a multicast round trip), UDP only.
//   - Interceptors: the RTCP sender and receiver reports only. No NACK (audio is not
//     retransmitted; browsers do not negotiate nack for Opus), no TWCC or stats interceptors
//     (per-packet work and per-call goroutines nobody reads).
//
// The returned closer releases the shared UDP sockets, if any; call it after the last call
// has closed.
func NewAPI(cfg APIOptions) (*pwebrtc.API, io.Closer, error) {
	me := &pwebrtc.MediaEngine{}
	if err := me.RegisterCodec(pwebrtc.RTPCodecParameters{
		RTPCodecCapability: OpusCapability,
		PayloadType:        opusPayloadType,
	}, pwebrtc.RTPCodecTypeAudio); err != nil {
		return nil, nil, fmt.Errorf("webrtc api: register opus: %w", err)
	}

	reg := &interceptor.Registry{}
	if !cfg.NoRTCPReports {
		if err := pwebrtc.ConfigureRTCPReports(reg); err != nil {
			return nil, nil, fmt.Errorf("webrtc api: rtcp reports: %w", err)
		}
	}

	logs := logging.NewDefaultLoggerFactory()
	if cfg.PionLog != nil {
		logs.Writer, logs.DefaultLogLevel = cfg.PionLog, logging.LogLevelWarn
	} else {
		logs.Writer, logs.DefaultLogLevel = io.Discard, logging.LogLevelDisabled
	}
	se := pwebrtc.SettingEngine{LoggerFactory: logs}
	// RFC 8841 a=max-message-size: pion would otherwise grow its read buffer for a data channel
	// message of up to 1 GiB; a larger one now closes the channel.
	se.SetSCTPMaxMessageSize(MaxDataChannelMessage)
	se.SetIncludeLoopbackCandidate(true)
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	nets := []pwebrtc.NetworkType{pwebrtc.NetworkTypeUDP4}
	iceNets := []ice.NetworkType{ice.NetworkTypeUDP4}
	if cfg.IncludeIPv6 {
		nets = append(nets, pwebrtc.NetworkTypeUDP6)
		iceNets = append(iceNets, ice.NetworkTypeUDP6)
	}
	se.SetNetworkTypes(nets)

	var closer io.Closer = nopCloser{}
	if cfg.UDPMux {
		mux, err := ice.NewMultiUDPMuxFromPort(cfg.UDPPort,
			ice.UDPMuxFromPortWithLoopback(),
			ice.UDPMuxFromPortWithLogger(logs.NewLogger("ice")),
			ice.UDPMuxFromPortWithNetworks(iceNets...),
			ice.UDPMuxFromPortWithReadBufferSize(4<<20),
			ice.UDPMuxFromPortWithWriteBufferSize(4<<20),
		)
		if err != nil {
			return nil, nil, fmt.Errorf("webrtc api: udp mux on port %d: %w", cfg.UDPPort, err)
		}
		se.SetICEUDPMux(mux)
		closer = mux
	}

	api := pwebrtc.NewAPI(
		pwebrtc.WithMediaEngine(me),
		pwebrtc.WithInterceptorRegistry(reg),
		pwebrtc.WithSettingEngine(se),
	)
	return api, closer, nil
}

type nopCloser struct{}

func (nopCloser) Close() error { return nil }
