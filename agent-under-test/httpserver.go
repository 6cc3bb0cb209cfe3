package agent

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
)

// HTTPServer is an http.Server for the agent with Config.HTTP's timeouts, so a client that
// sends its headers or body slowly, or never reads the answer, is cut off. The SSE stream and the
// Twilio websocket run past them on deadlines of their own (events.go, twilio_call.go).
func (s *Server) HTTPServer() *http.Server {
	t := s.cfg.HTTP
	return &http.Server{
		Handler:           s,
		ReadHeaderTimeout: t.ReadHeader,
		ReadTimeout:       t.Read,
		WriteTimeout:      t.Write,
		IdleTimeout:       t.Idle,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelInfo),
	}
}

// ExposureWarning is the warning due when the agent listens at addr: "" on a loopback address,
// else who can place calls unauthenticated.
func ExposureWarning(addr net.Addr, cfg Config) string {
	switch {
	case isLoopback(addr):
		return ""
	case cfg.TwilioAuthToken != "":
		return fmt.Sprintf("WebRTC calls are unauthenticated: anyone who reaches %s can post offers to /api/offer "+
			"(Twilio requests are checked against the auth token)", addr)
	}
	return fmt.Sprintf("calls are unauthenticated: anyone who reaches %s can open Twilio streams and post WebRTC "+
		"offers (--twilio-auth-token checks Twilio's X-Twilio-Signature; WebRTC offers are never authenticated)", addr)
}

func isLoopback(addr net.Addr) bool {
	var ip net.IP
	switch a := addr.(type) {
	case *net.TCPAddr:
		ip = a.IP
	case *net.UDPAddr:
		ip = a.IP
	default:
		host, _, err := net.SplitHostPort(addr.String())
		if err != nil {
			return false
		}
		ip = net.ParseIP(host)
	}
	return ip != nil && ip.IsLoopback()
}
