package agent

import "net/http"

// rtcTransport is the WebRTC side of the agent (pion): SmallWebRTC offers, one Opus track each
// way, RTVI on a data channel.
type rtcTransport struct{ s *Server }

func newRTCTransport(s *Server) (*rtcTransport, error) { return &rtcTransport{s: s}, nil }

func (t *rtcTransport) handleOffer(w http.ResponseWriter, r *http.Request) {
	http.Error(w, `{"error":"webrtc not built yet"}`, http.StatusNotImplemented)
}

func (t *rtcTransport) close() error { return nil }

func (s *Server) handlePage(w http.ResponseWriter, r *http.Request) {
	w.Write([]byte("callfleet agent\n"))
}
