package agent

import (
	"errors"
	"log/slog"
	"sync"
	"time"

	tw "github.com/callfleet/callfleet/wire/twilio"
)

// inputKind is what was wrong with a piece of input: the kind label of agent_bad_input_total.
type inputKind uint8

const (
	kindUnknown         inputKind = iota
	kindBadJSON                   // not JSON of the message's shape
	kindMissingField              // a field the message cannot do without
	kindBadBase64                 // media.payload is not padded standard base64
	kindTooLarge                  // over the message size limit
	kindUnknownEvent              // an event name the protocol does not have
	kindUnexpectedEvent           // an event out of its place: before start, a second start, one Twilio never sends
	kindBadCallSID                // a start whose callSid cannot name a call
	kindBadRTP                    // not an RTP packet of the negotiated stream (RFC 3550)
	kindBadOpus                   // an RTP payload libopus cannot decode (RFC 6716)
	kindBadOffer                  // an offer that is not JSON, not an offer, or its SDP unusable
	kindBadPCID                   // a pc_id that cannot name a call
	kindCallIDInUse               // a pc_id of a live call
	kindBadForm                   // a webhook body that is not a form
	kindBadSignature              // X-Twilio-Signature missing or wrong
	kindBadUpgrade                // a websocket handshake the upgrader refused
	kindBadRTVI                   // an RTVI message that does not decode
	kindSetupTimeout              // no offer body or Twilio start within SetupTimeout
	numKinds
)

var kindNames = [numKinds]string{
	kindUnknown: "unknown", kindBadJSON: "bad_json", kindMissingField: "missing_field",
	kindBadBase64: "bad_base64", kindTooLarge: "too_large", kindUnknownEvent: "unknown_event",
	kindUnexpectedEvent: "unexpected_event", kindBadCallSID: "bad_call_sid", kindBadRTP: "bad_rtp",
	kindBadOpus: "bad_opus", kindBadOffer: "bad_offer", kindBadPCID: "bad_pc_id",
	kindCallIDInUse: "call_id_in_use", kindBadForm: "bad_form", kindBadSignature: "bad_signature",
	kindBadUpgrade: "bad_upgrade", kindBadRTVI: "bad_rtvi", kindSetupTimeout: "setup_timeout",
}

func (k inputKind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return kindNames[kindUnknown]
}

// parseInputKind is String's inverse; kindUnknown for any other text.
func parseInputKind(s string) inputKind {
	for k := kindBadJSON; k < numKinds; k++ {
		if kindNames[k] == s {
			return k
		}
	}
	return kindUnknown
}

// twilioKind classifies an error of the Twilio stream core (tw.Decode's named errors and ours).
func twilioKind(err error) inputKind {
	switch {
	case errors.Is(err, tw.ErrTooLarge):
		return kindTooLarge
	case errors.Is(err, tw.ErrBadPayload):
		return kindBadBase64
	case errors.Is(err, tw.ErrUnknownEvent):
		return kindUnknownEvent
	case errors.Is(err, tw.ErrMissingField):
		return kindMissingField
	case errors.Is(err, tw.ErrMalformed):
		return kindBadJSON
	case errors.Is(err, errBadCallSID):
		return kindBadCallSID
	case errors.Is(err, errBeforeStart), errors.Is(err, errSecondStart), errors.Is(err, errUnexpected):
		return kindUnexpectedEvent
	}
	return kindUnknown
}

// inputLog counts one call's bad input and logs the first of each kind only: a client that sends
// garbage every 20 ms costs a log line per kind, not fifty a second. close logs the totals.
type inputLog struct {
	m         *metrics
	log       *slog.Logger
	transport string
	call      string // set before the call's goroutines start; "" until a Twilio start names it

	mu   sync.Mutex
	seen [numKinds]int
}

func (s *Server) newInputLog(transport, call string) *inputLog {
	return &inputLog{m: s.m, log: s.log, transport: transport, call: call}
}

func (l *inputLog) bad(kind inputKind, err error) {
	l.m.badInput.WithLabelValues(l.transport, kind.String()).Inc()
	l.mu.Lock()
	l.seen[kind]++
	first := l.seen[kind] == 1
	l.mu.Unlock()
	if first {
		l.log.Info("bad input; more of this kind in this call are counted, not logged",
			"transport", l.transport, "call", l.call, "kind", kind, "err", err)
	}
}

// close logs the kinds the call sent more than once, with their counts.
func (l *inputLog) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, n := range l.seen {
		if n > 1 {
			l.log.Info("bad input in this call", "transport", l.transport, "call", l.call, "kind", inputKind(k), "count", n)
		}
	}
}

// requestLogEvery is how often bad input outside a call (forms, offers, handshakes) is logged per
// transport and kind; every piece is counted.
const requestLogEvery = time.Minute

// requestLog rate-limits the log of bad requests, which belong to no call.
type requestLog struct {
	mu   sync.Mutex
	last map[requestKey]requestSeen
}

type requestKey struct {
	transport string
	kind      inputKind
}

type requestSeen struct {
	at         time.Time
	suppressed int
}

// badRequest counts a bad request and logs it unless one of its kind was logged within requestLogEvery.
func (s *Server) badRequest(transport string, kind inputKind, err error) {
	s.m.badInput.WithLabelValues(transport, kind.String()).Inc()
	rl := &s.reqLog
	k := requestKey{transport, kind}
	now := time.Now()
	rl.mu.Lock()
	if rl.last == nil {
		rl.last = map[requestKey]requestSeen{} // bounded: one entry per transport and kind
	}
	seen, ok := rl.last[k]
	logIt := !ok || now.Sub(seen.at) >= requestLogEvery
	if logIt {
		rl.last[k] = requestSeen{at: now}
	} else {
		seen.suppressed++
		rl.last[k] = seen
	}
	rl.mu.Unlock()
	if logIt {
		s.log.Info("bad request", "transport", transport, "kind", kind, "err", err,
			"not_logged_since_last", seen.suppressed)
	}
}
