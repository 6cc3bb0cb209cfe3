package agent

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/callfleet/callfleet/wire/signaling"
	tw "github.com/callfleet/callfleet/wire/twilio"
)

func wsURL(base string) string { return "ws" + strings.TrimPrefix(base, "http") + "/twilio/ws" }

// dialWS opens the agent's websocket with header and sends nothing.
func dialWS(t *testing.T, base string, header http.Header) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	ws, resp, err := websocket.DefaultDialer.Dial(wsURL(base), header)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if ws != nil {
		t.Cleanup(func() { ws.Close() })
	}
	return ws, resp, err
}

// awaitClose reads until the agent closes ws and returns its close frame (nil: none came).
func awaitClose(t *testing.T, ws *websocket.Conn, limit time.Duration) *websocket.CloseError {
	t.Helper()
	ws.SetReadDeadline(time.Now().Add(limit))
	for {
		if _, _, err := ws.ReadMessage(); err != nil {
			var ce *websocket.CloseError
			if errors.As(err, &ce) {
				return ce
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatalf("agent did not close the websocket within %v", limit)
			}
			return nil
		}
	}
}

// awaitMetric waits for a series of /metrics to read want.
func awaitMetric(t *testing.T, base, series string, want float64, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		got := metric(t, base, series)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s = %v after %v, want %v", series, got, limit, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestActiveCallsExportedAtStart(t *testing.T) {
	noLeaks(t)
	cfg := DefaultConfig()
	cfg.MaxCalls = 7
	_, hs := startAgent(t, cfg)
	for _, series := range []string{
		`agent_active_calls{transport="twilio"}`, `agent_active_calls{transport="webrtc"}`,
		`agent_calls_total{transport="twilio"}`, `agent_calls_total{transport="webrtc"}`,
	} {
		if got := metric(t, hs.URL, series); got != 0 {
			t.Errorf("%s = %v before any call, want 0 (absent reads -1)", series, got)
		}
	}
	if got := metric(t, hs.URL, "agent_max_calls"); got != 7 {
		t.Errorf("agent_max_calls = %v, want 7", got)
	}
}

// hostileSetup is a client that connects and then never finishes its offer or start; outcome
// waits for the agent to give up on it and says how it did.
type hostileSetup func(t *testing.T, base string) (outcome func() string)

// trickleOffer posts an offer whose body never completes.
func trickleOffer(t *testing.T, base string) func() string {
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST /api/offer HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{\"sdp\":\"v=0")
	return func() string {
		conn.SetReadDeadline(time.Now().Add(15 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			return err.Error()
		}
		resp.Body.Close()
		return resp.Status
	}
}

// silentStream opens the Twilio websocket and sends connected, or garbage, but never start.
func silentStream(first string) hostileSetup {
	return func(t *testing.T, base string) func() string {
		ws, _, err := dialWS(t, base, nil)
		if err != nil {
			t.Fatal(err)
		}
		ws.WriteMessage(websocket.TextMessage, []byte(first))
		return func() string {
			ce := awaitClose(t, ws, 15*time.Second)
			if ce == nil {
				return "no close frame"
			}
			return fmt.Sprintf("%d %s", ce.Code, ce.Text)
		}
	}
}

// TestSetupHoldsNoSlot: a client that never finishes its offer or start holds no --max-calls
// slot, and is cut off after SetupTimeout.
func TestSetupHoldsNoSlot(t *testing.T) {
	for _, tc := range []struct {
		name, transport string
		open            hostileSetup
		want            string
	}{
		{"offer body trickling", transportWebRTC, trickleOffer, "408"},
		{"websocket without start", transportTwilio, silentStream(twConnected), "1002 no start within"},
		{"websocket sending garbage", transportTwilio, silentStream(`{"event":`), "1002 no start within"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			noLeaks(t)
			cfg := DefaultConfig()
			cfg.MaxCalls = 1
			cfg.SetupTimeout = 2 * time.Second
			srv, hs := startAgent(t, cfg)
			start := time.Now()
			outcome := tc.open(t, hs.URL)
			c := dialTwilio(t, hs.URL, "CA-real")
			waitLive(t, srv, 1) // the one slot was free
			c.stop()
			<-c.closed
			got := outcome()
			took := time.Since(start)
			if !strings.Contains(got, tc.want) {
				t.Errorf("agent ended the slow client with %q, want %q", got, tc.want)
			}
			if took < cfg.SetupTimeout || took > cfg.SetupTimeout+2*time.Second*timingSlack {
				t.Errorf("slow client cut off after %v, want about %v", took, cfg.SetupTimeout)
			}
			series := fmt.Sprintf(`agent_bad_input_total{kind="setup_timeout",transport=%q}`, tc.transport)
			awaitMetric(t, hs.URL, series, 1, 5*time.Second)
		})
	}
}

// TestSetupLimit: past the places for connections still setting up, a new one is refused at once.
func TestSetupLimit(t *testing.T) {
	noLeaks(t)
	cfg := DefaultConfig()
	cfg.MaxCalls = 1 // minSetups places
	srv, hs := startAgent(t, cfg)
	for range minSetups {
		if _, _, err := dialWS(t, hs.URL, nil); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		srv.mu.Lock()
		n := srv.setups
		srv.mu.Unlock()
		if n == minSetups {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d connections setting up, want %d", n, minSetups)
		}
		time.Sleep(10 * time.Millisecond)
	}
	_, resp, err := dialWS(t, hs.URL, nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("websocket past the setup limit: %v, %v; want 503", resp, err)
	}
	code, r := postOffer(t, hs.URL, `{}`)
	if code != http.StatusServiceUnavailable || !strings.Contains(r.Error, "set up") {
		t.Errorf("offer past the setup limit: %d %q, want 503", code, r.Error)
	}
}

func TestTwilioRefusals(t *testing.T) {
	noLeaks(t)
	srv, hs := startAgent(t, DefaultConfig())
	live := dialTwilio(t, hs.URL, "CA-dup")
	waitLive(t, srv, 1)
	start := func(callSid string) string {
		return string(tw.AppendStart(nil, 1, tw.Start{StreamSID: "MZ" + callSid, CallSID: callSid}))
	}
	for _, tc := range []struct {
		name string
		msgs []string
		code int
		text string
	}{
		{"callSid already live", []string{twConnected, start("CA-dup")}, websocket.ClosePolicyViolation, "already live"},
		{"callSid not a name", []string{start("CA 1")}, websocket.ClosePolicyViolation, "callSid"},
		{"callSid too long", []string{start(strings.Repeat("C", 129))}, websocket.ClosePolicyViolation, "callSid"},
		{"stop before start", []string{twConnected, twStop}, websocket.CloseNormalClosure, ""},
	} {
		ws, _, err := dialWS(t, hs.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range tc.msgs {
			ws.WriteMessage(websocket.TextMessage, []byte(m))
		}
		ce := awaitClose(t, ws, 5*time.Second)
		if ce == nil || ce.Code != tc.code || !strings.Contains(ce.Text, tc.text) {
			t.Errorf("%s: close %v, want %d %q", tc.name, ce, tc.code, tc.text)
		}
	}
	// A pc_id may not name a live Twilio call either: ids are the agent's, not a transport's.
	body, _ := json.Marshal(signaling.Offer{SDP: pionOffer(t), Type: signaling.TypeOffer, PCID: "CA-dup"})
	if code, r := postOffer(t, hs.URL, string(body)); code != http.StatusConflict {
		t.Errorf("offer with the live callSid as pc_id: %d %+v, want 409", code, r)
	}
	live.frame(silence8k)
	select {
	case <-live.closed:
		t.Fatal("the live call was disturbed by the refusals")
	default:
	}
	if srv.Live() != 1 {
		t.Fatalf("live = %d, want the first call only", srv.Live())
	}
	if n := metric(t, hs.URL, `agent_refused_calls_total{reason="call_id_in_use"}`); n != 2 {
		t.Errorf("refusals for an id in use: %v, want 2", n)
	}
	live.stop()
	<-live.closed
	waitLive(t, srv, 0)
	again := dialTwilio(t, hs.URL, "CA-dup") // its callSid is free once the call has ended
	waitLive(t, srv, 1)
	again.stop()
	<-again.closed
}

func TestTwilioWebsocketSignature(t *testing.T) {
	noLeaks(t)
	cfg := DefaultConfig()
	cfg.TwilioAuthToken = "secret"
	srv, hs := startAgent(t, cfg)
	host := strings.TrimPrefix(hs.URL, "http://")
	for _, tc := range []struct {
		name  string
		query string // of the URL dialled
		sig   string
		want  int // HTTP status of the upgrade
	}{
		{"signed wss url", "", tw.Signature("secret", "wss://"+host+"/twilio/ws", nil), http.StatusSwitchingProtocols},
		{"signed ws url (behind a TLS proxy)", "", tw.Signature("secret", "ws://"+host+"/twilio/ws", nil), http.StatusSwitchingProtocols},
		{"signed with its query", "?a=1", tw.Signature("secret", "wss://"+host+"/twilio/ws?a=1", nil), http.StatusSwitchingProtocols},
		{"signed without its query", "?a=1", tw.Signature("secret", "wss://"+host+"/twilio/ws", nil), http.StatusForbidden},
		{"signed https url", "", tw.Signature("secret", "https://"+host+"/twilio/ws", nil), http.StatusForbidden},
		{"other token", "", tw.Signature("other", "wss://"+host+"/twilio/ws", nil), http.StatusForbidden},
		{"with post params", "", tw.Signature("secret", "wss://"+host+"/twilio/ws", url.Values{"a": {"1"}}), http.StatusForbidden},
		{"missing", "", "", http.StatusForbidden},
	} {
		h := http.Header{}
		if tc.sig != "" {
			h.Set(tw.SignatureHeader, tc.sig)
		}
		ws, resp, err := websocket.DefaultDialer.Dial(wsURL(hs.URL)+tc.query, h)
		if resp == nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: upgrade answered %d, want %d", tc.name, resp.StatusCode, tc.want)
		}
		if ws == nil {
			continue
		}
		ws.WriteMessage(websocket.TextMessage, []byte(twStart))
		waitLive(t, srv, 1)
		ws.WriteMessage(websocket.TextMessage, []byte(twStop))
		awaitClose(t, ws, 5*time.Second)
		ws.Close()
		waitLive(t, srv, 0)
	}
	if n := metric(t, hs.URL, `agent_bad_input_total{kind="bad_signature",transport="twilio"}`); n != 5 {
		t.Errorf("bad signatures counted %v, want 5", n)
	}
}

func TestSSESubscriberCap(t *testing.T) {
	noLeaks(t)
	cfg := DefaultConfig()
	cfg.MaxSubscribers = 2
	_, hs := startAgent(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	get := func() (int, string) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, hs.URL+"/calls/CA-sse/events", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode == http.StatusOK {
			go func() { io.Copy(io.Discard, resp.Body); resp.Body.Close() }() // held until ctx ends
			return resp.StatusCode, ""
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for i := range cfg.MaxSubscribers {
		if code, body := get(); code != http.StatusOK {
			t.Fatalf("subscriber %d: %d %s", i+1, code, body)
		}
	}
	code, body := get()
	if code != http.StatusTooManyRequests || !strings.Contains(body, `"error"`) || !strings.Contains(body, "subscribers") {
		t.Errorf("subscriber past the cap: %d %s, want 429 with a JSON reason", code, body)
	}
}

func TestHubCaps(t *testing.T) {
	h := newHub(2, 2)
	type op struct {
		do, id string
		ok     bool // subscribe's outcome
	}
	for i, o := range []op{
		{"sub", "a", true}, {"sub", "a", true}, {"sub", "a", false}, // two per call
		{"sub", "b", true}, {"sub", "c", false}, // two calls pending at most
		{"open", "c", true}, {"sub", "c", true}, // a live call is not pending
		{"open", "a", true}, {"sub", "d", true}, // a's call came: a place is free
		{"close", "a", true}, {"close", "c", true},
	} {
		switch o.do {
		case "sub":
			if _, _, err := h.subscribe(o.id); (err == nil) != o.ok {
				t.Fatalf("op %d: subscribe %s: %v, want ok=%v", i, o.id, err, o.ok)
			}
		case "open":
			h.open(o.id)
		case "close":
			h.close(o.id)
		}
	}
	if h.pending != 2 || len(h.topics) != 2 { // b and d wait
		t.Errorf("pending %d, topics %d; want 2 and 2", h.pending, len(h.topics))
	}
}

// TestShutdownEndsSetup: Shutdown does not wait out SetupTimeout for a connection still without
// its start; it closes it as going away.
func TestShutdownEndsSetup(t *testing.T) {
	noLeaks(t)
	cfg := DefaultConfig()
	cfg.SetupTimeout = time.Minute
	srv, hs := startAgent(t, cfg)
	ws, _, err := dialWS(t, hs.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	ws.WriteMessage(websocket.TextMessage, []byte(twConnected))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	ce := awaitClose(t, ws, 5*time.Second)
	if ce == nil || ce.Code != websocket.CloseGoingAway {
		t.Errorf("close %v, want 1001", ce)
	}
	if took := time.Since(start); took > 2*time.Second*timingSlack {
		t.Errorf("the connection without start was closed %v after shutdown", took)
	}
}
