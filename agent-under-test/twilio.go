package agent

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"

	tw "github.com/callfleet/callfleet/wire/twilio"
)

var upgrader = websocket.Upgrader{ReadBufferSize: 4096, WriteBufferSize: 4096, HandshakeTimeout: 10 * time.Second,
	CheckOrigin: func(*http.Request) bool { return true }}

// handleTwiML answers Twilio's voice webhook with a <Connect><Stream> to this agent's websocket,
// checking X-Twilio-Signature when an auth token is set (Twilio "Webhooks security").
func (s *Server) handleTwiML(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		s.badRequest(transportTwilio, kindBadForm, err)
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	base := s.baseURL(r)
	if s.cfg.TwilioAuthToken != "" {
		full := base + r.URL.RequestURI()
		if !tw.ValidSignature(s.cfg.TwilioAuthToken, full, r.PostForm, r.Header.Get(tw.SignatureHeader)) {
			s.badRequest(transportTwilio, kindBadSignature, fmt.Errorf("twiml %s: %w", full, errBadSignature))
			http.Error(w, "invalid signature", http.StatusForbidden)
			return
		}
	}
	ws := "ws" + strings.TrimPrefix(base, "http") + "/twilio/ws"
	params := map[string]string{}
	// Passed back only if it can name a call: the start that carries it back must be accepted.
	if v := r.PostForm.Get("CallSid"); validCallID(v) {
		params["CallSid"] = v
	}
	w.Header().Set("Content-Type", "text/xml")
	w.Write(tw.StreamTwiML(ws, params))
}

func (s *Server) baseURL(r *http.Request) string {
	if s.cfg.PublicURL != "" {
		return strings.TrimSuffix(s.cfg.PublicURL, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// checkWSSignature checks X-Twilio-Signature on the websocket upgrade. Twilio signs the wss URL
// it opens, query string included, with no POST parameters (Twilio "Webhooks security"). A TLS
// proxy in front of the agent makes the request arrive as plain ws, so both schemes of the one
// URL are accepted: the HMAC still binds host, path and query to the auth token.
func (s *Server) checkWSSignature(r *http.Request) error {
	base := s.baseURL(r)
	rest := strings.TrimPrefix(strings.TrimPrefix(base, "https://"), "http://") + r.URL.RequestURI()
	sig := r.Header.Get(tw.SignatureHeader)
	ok := false
	for _, scheme := range []string{"wss://", "ws://"} {
		if tw.ValidSignature(s.cfg.TwilioAuthToken, scheme+rest, nil, sig) {
			ok = true
		}
	}
	if !ok {
		return fmt.Errorf("websocket wss://%s: %w", rest, errBadSignature)
	}
	return nil
}

// handleTwilio runs one Media Streams call: Twilio's messages in, media/mark/clear out. The
// connection holds a setup place, not a call slot, until its start has arrived and is valid.
func (s *Server) handleTwilio(w http.ResponseWriter, r *http.Request) {
	if s.cfg.TwilioAuthToken != "" {
		if err := s.checkWSSignature(r); err != nil {
			s.badRequest(transportTwilio, kindBadSignature, err)
			http.Error(w, "invalid signature", http.StatusForbidden)
			return
		}
	}
	setupDone, err := s.setup()
	if err != nil {
		w.Header().Set("Retry-After", "1")
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	defer setupDone()
	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		s.badRequest(transportTwilio, kindBadUpgrade, err)
		return // the upgrader has answered
	}
	defer ws.Close()
	ws.SetReadLimit(s.cfg.MaxMessage)
	tc := &twilioCall{s: s, ws: ws, ts: newTwilioStream(), in: s.newInputLog(transportTwilio, "")}
	defer tc.in.close()
	err = tc.awaitStart(s.cfg.setupTimeout())
	setupDone()
	if err != nil {
		tc.refuseStart(err)
		return
	}
	callSid := tc.ts.start.Start.CallSID
	tc.in.call = callSid
	release, err := s.admit(transportTwilio, callSid)
	if err != nil {
		code, reason := refusalClose(err)
		tc.close(code, reason)
		s.log.Info("twilio call refused", "call", callSid, "err", err)
		return
	}
	defer release()
	if err := tc.run(); err != nil {
		s.log.Info("twilio call ended", "call", callSid, "err", err)
	}
}

// refuseStart ends a connection whose start never came or cannot be taken.
func (tc *twilioCall) refuseStart(err error) {
	switch {
	case errors.Is(err, errStopped):
		tc.close(websocket.CloseNormalClosure, "")
	case tc.s.ctx.Err() != nil:
		tc.close(websocket.CloseGoingAway, ErrShuttingDown.Error())
	case errors.Is(err, errBadCallSID):
		tc.close(websocket.ClosePolicyViolation, err.Error())
	case isTimeout(err):
		tc.in.bad(kindSetupTimeout, err)
		tc.close(websocket.CloseProtocolError, fmt.Sprintf("no start within %v", tc.s.cfg.setupTimeout()))
	case errors.Is(err, websocket.ErrReadLimit):
		tc.in.bad(kindTooLarge, err) // the reader has sent 1009
	}
}

// isTimeout reports a read deadline passing; gorilla/websocket hides os.ErrDeadlineExceeded
// behind a net.Error of its own.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// refusalClose is the websocket close for an admission error (RFC 6455 §7.4.1): 1013 "Try Again
// Later" past --max-calls, 1008 "Policy Violation" for a callSid already live, 1001 "Going Away"
// on shutdown.
func refusalClose(err error) (int, string) {
	switch {
	case errors.Is(err, ErrCallIDInUse):
		return websocket.ClosePolicyViolation, err.Error()
	case errors.Is(err, ErrShuttingDown):
		return websocket.CloseGoingAway, err.Error()
	}
	return websocket.CloseTryAgainLater, err.Error()
}

// maxCloseReason is the longest close reason: a control frame's payload is at most 125 bytes,
// 2 of them the code (RFC 6455 §5.5).
const maxCloseReason = 123

// closeReason cuts reason to fit a close frame, on a rune boundary.
func closeReason(reason string) string {
	if len(reason) <= maxCloseReason {
		return reason
	}
	cut := maxCloseReason
	for cut > 0 && !utf8.RuneStart(reason[cut]) {
		cut--
	}
	return reason[:cut]
}
