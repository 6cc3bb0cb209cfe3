package twilio

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/gorilla/websocket"

	"github.com/callfleet/callfleet/audio"
	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/checks"
	"github.com/callfleet/callfleet/wire/rtvi"
	tw "github.com/callfleet/callfleet/wire/twilio"
)

// What a hostile agent writes into its texts: a title change, a screen clear, colour, a bidi
// override, C1 controls.
const escapes = "\x1b]0;owned\x07\x1b[2J\x1b[31m\u202e\u009b1m\u0085"

// hostile is a loopback Twilio Media Streams agent that misbehaves in a different way on each
// path: /ws/{mode}, /events/{sid} (its SSE transcripts) and /twiml/{mode}.
type hostile struct {
	t       testing.TB
	srv     *httptest.Server
	deaf    *httptest.Server // /ws/deaf with a tiny receive buffer, so the caller's writes block
	silent  net.Listener     // accepts TCP and never answers the upgrade
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	floodOf time.Duration // audio each flood sends
	speed   int           // flood pace, times real time

	mu    sync.Mutex
	conns []net.Conn
	sent  map[string]time.Duration // flood audio sent per mode
}

func newHostile(t testing.TB) *hostile {
	h := &hostile{t: t, floodOf: 60 * time.Second, speed: 100, sent: map[string]time.Duration{}}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	mux := http.NewServeMux()
	mux.HandleFunc("/ws/{mode}", h.serveWS)
	mux.HandleFunc("/events/{sid}", h.serveEvents)
	mux.HandleFunc("/twiml/{mode}", h.serveTwiML)
	h.srv = httptest.NewServer(mux)
	h.deaf = httptest.NewUnstartedServer(http.HandlerFunc(h.serveWS))
	h.deaf.Listener = smallReadBuffer{h.deaf.Listener}
	h.deaf.Start()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h.silent = ln
	h.wg.Add(1)
	go h.hold(ln)
	t.Cleanup(h.close)
	return h
}

func (h *hostile) url(mode string) string {
	return "ws" + strings.TrimPrefix(h.srv.URL, "http") + "/ws/" + mode
}

// close ends every connection and handler, then waits for them.
func (h *hostile) close() {
	h.cancel()
	h.silent.Close()
	h.mu.Lock()
	for _, c := range h.conns {
		c.Close()
	}
	h.mu.Unlock()
	h.srv.Close()
	h.deaf.Close()
	h.wg.Wait()
}

func (h *hostile) track(c net.Conn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.conns = append(h.conns, c)
}

// hold accepts connections and never says a word.
func (h *hostile) hold(ln net.Listener) {
	defer h.wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		h.track(c)
	}
}

// smallReadBuffer shrinks each accepted connection's receive buffer.
type smallReadBuffer struct{ net.Listener }

func (l smallReadBuffer) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetReadBuffer(4096)
	}
	return c, err
}

func (h *hostile) serveWS(w http.ResponseWriter, r *http.Request) {
	mode := r.PathValue("mode")
	if r.URL.Path == "/ws/deaf" {
		mode = "deaf"
	}
	if mode == "refuse-status" {
		rawResponse(w, "HTTP/1.1 503 "+escapes+"busy\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
		return
	}
	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	h.wg.Add(1)
	defer h.wg.Done()
	h.track(ws.NetConn())
	defer ws.Close()
	switch mode {
	case "close-now": // the TCP connection drops, no close handshake
		ws.NetConn().Close()
	case "close-reason":
		if startOf(ws) != "" {
			time.Sleep(500 * time.Millisecond) // the call is under way
			msg := websocket.FormatCloseMessage(websocket.CloseInternalServerErr, escapes+"bye")
			ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second))
		}
	case "giant":
		if startOf(ws) != "" {
			ws.WriteMessage(websocket.TextMessage, bytes.Repeat([]byte("x"), 1<<20))
			discard(ws)
		}
	case "silent":
		discard(ws)
	case "slow": // reads a message every 50 ms while the caller sends one every 20
		for {
			if _, _, err := ws.NextReader(); err != nil {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	case "deaf": // never reads: the caller's writes block once the buffers are full
		<-h.ctx.Done()
	case "flood":
		h.floodReply(ws, mode)
	default:
		h.t.Errorf("hostile: no mode %q", mode)
	}
}

// rawResponse writes an HTTP response as given, status line and all.
func rawResponse(w http.ResponseWriter, raw string) {
	c, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	defer c.Close()
	buf.WriteString(raw)
	buf.Flush()
}

// startOf reads the caller's messages up to start and returns its streamSid ("" if none came).
func startOf(ws *websocket.Conn) string {
	for {
		_, data, err := ws.ReadMessage()
		if err != nil {
			return ""
		}
		if m, err := tw.Decode(data); err == nil && m.Event == tw.EventStart {
			return m.StreamSID
		}
	}
}

func discard(ws *websocket.Conn) {
	for {
		if _, _, err := ws.NextReader(); err != nil {
			return
		}
	}
}

// floodReply answers the caller's first phrase with floodOf of a loud tone sent at speed times
// real time, in one-second media messages.
func (h *hostile) floodReply(ws *websocket.Conn, mode string) {
	sid := startOf(ws)
	voiced, silent, flooded := 0, 0, false
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		_, data, err := ws.ReadMessage()
		if err != nil {
			return
		}
		m, err := tw.Decode(data)
		if err != nil || m.Event != tw.EventMedia {
			continue
		}
		mu, _ := m.Audio()
		if !isSilence(mu) {
			voiced, silent = voiced+1, 0
			continue
		}
		if silent++; voiced > 10 && silent == 15 && !flooded {
			flooded = true
			wg.Add(1)
			go func() {
				defer wg.Done()
				h.flood(ws, sid, mode)
			}()
		}
	}
}

// flood sends floodOf of tone at speed times real time; the handler's reader keeps reading.
func (h *hostile) flood(ws *websocket.Conn, sid, mode string) {
	msg := tw.AppendAgentMedia(nil, sid, toneMulaw(time.Second))
	start := time.Now()
	for k := 0; time.Duration(k)*time.Second < h.floodOf; k++ {
		due := start.Add(time.Duration(k) * time.Second / time.Duration(h.speed))
		select {
		case <-time.After(time.Until(due)):
		case <-h.ctx.Done():
			return
		}
		if ws.WriteMessage(websocket.TextMessage, msg) != nil {
			return
		}
		h.mu.Lock()
		h.sent[mode] += time.Second
		h.mu.Unlock()
	}
}

// toneMulaw is d of a 440 Hz tone at -12 dBFS as 8 kHz mu-law: voiced throughout.
func toneMulaw(d time.Duration) []byte {
	pcm := make([]int16, int(d.Seconds()*8000))
	for i := range pcm {
		pcm[i] = int16(8000 * math.Sin(2*math.Pi*440*float64(i)/8000))
	}
	return audio.MulawEncode(nil, pcm)
}

// serveEvents is an SSE stream that floods the call's first turn with escape-laden finals, then
// sends a line past the reader's limit, then holds the stream open.
func (h *hostile) serveEvents(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	select { // the first phrase is being spoken by then
	case <-time.After(800 * time.Millisecond):
	case <-r.Context().Done():
		return
	}
	text := escapes + "seven one" + strings.Repeat(" three", 1000)
	for range 500 {
		if rtvi.WriteSSE(w, rtvi.UserTranscription(text, true, time.Now())) != nil {
			return
		}
	}
	io.WriteString(w, "data: "+strings.Repeat("x", 2*rtvi.DefaultMaxLineSize)+"\n\n")
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

// serveTwiML answers the voice webhook badly.
func (h *hostile) serveTwiML(w http.ResponseWriter, r *http.Request) {
	switch r.PathValue("mode") {
	case "status":
		rawResponse(w, "HTTP/1.1 500 "+escapes+"boom\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
	case "giant":
		w.Header().Set("Content-Type", "text/xml")
		w.Write([]byte("<Response>"))
		w.Write(bytes.Repeat([]byte(" "), 1<<20))
	case "badurl": // XML allows C1 controls; the URL leads nowhere
		w.Header().Set("Content-Type", "text/xml")
		w.Write(tw.StreamTwiML("ws://127.0.0.1:1/\u009b2J\u0085"+strings.Repeat("p", 2000), nil))
	}
}

// sendJunk sends, before a reply, what a hostile agent might: none of it may cost the call.
func (c *agentCall) sendJunk() bool {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	big := tw.AppendAgentMedia(nil, c.streamSid, bytes.Repeat([]byte{0xff}, tw.MaxMessageSize)) // over MaxMessageSize, under readLimit
	msgs := [][]byte{
		big,
		[]byte(`{"event":"media","media":{"payload":"!!!!"}}`),
		[]byte(`{"event":"media","media":{"payload":"/w="}}`),
		[]byte(`{"event":"media","media":{"payload":"` + strings.Repeat("A", 10) + `"}}`),
		[]byte(`not json at all` + escapes),
		[]byte(`{"event":"` + escapes + `"}`),
		[]byte(`{}`),
		tw.AppendMark(nil, c.streamSid, strings.Repeat("m", 2*maxMarkName)),
		tw.AppendMark(nil, c.streamSid, escapes),
	}
	for i := range 2 * maxMarks {
		msgs = append(msgs, tw.AppendMark(nil, c.streamSid, fmt.Sprintf("junk-%d", i)))
	}
	if c.ws.WriteMessage(websocket.BinaryMessage, bytes.Repeat([]byte{0, 1, 2}, 10000)) != nil {
		return false
	}
	for _, m := range msgs {
		if c.ws.WriteMessage(websocket.TextMessage, m) != nil {
			return false
		}
	}
	return true
}

// hostileCase is one call of the hostile suite and what its records must show.
type hostileCase struct {
	name  string
	dial  func(d *Dialer)
	plan  func(p *callers.Plan)
	check func(t *testing.T, res callers.CallResult, turns []callers.Turn)
}

// TestHostileAgent places one call per misbehaviour at once, beside a well-behaved echo: no
// panic, every call ends within its timeouts plus slack, memory stays bounded, every failed call
// and turn has a reason, agent text reaches the records cleaned, and the echo is still heard.
func TestHostileAgent(t *testing.T) {
	p, model := fixtures(t)
	h := newHostile(t)
	echo := newAgent(t, p, behaviour{Delay: injected, Chunk: 40 * time.Millisecond})
	junk := newAgent(t, p, behaviour{Delay: injected, Chunk: 40 * time.Millisecond, Junk: true})
	mode := func(m string) func(*Dialer) { return func(d *Dialer) { d.URL = h.url(m) } }
	twiml := func(m string) func(*Dialer) { return func(d *Dialer) { d.TwiMLURL = h.srv.URL + "/twiml/" + m } }
	two := func(p *callers.Plan) { p.MaxTurns = 2 }
	cases := []hostileCase{
		{name: "well-behaved echo", dial: func(d *Dialer) { d.URL = echo.wsURL() }, plan: two, check: wantUnderstood},
		{name: "junk between replies", dial: func(d *Dialer) { d.URL = junk.wsURL() }, plan: two, check: wantUnderstood},
		{name: "floods 60 s of reply at 100x", dial: mode("flood"), check: func(t *testing.T, res callers.CallResult, turns []callers.Turn) {
			wantEnded(t, res, callers.EndedByCaller)
			tr := oneTurn(t, turns)
			sent := h.floodSent("flood")
			if tr.Error != callers.ReasonOverrun || tr.Dropped.Duration() < sent-15*time.Second || checks.Turn(tr).Reason != checks.ReasonOverrun {
				t.Errorf("turn: error %q, dropped %v of %v sent, reason %v", tr.Error, tr.Dropped, sent, checks.Turn(tr).Reason)
			}
		}},
		{name: "a message over the read limit", dial: mode("giant"), check: wantError("too large")},
		{name: "closes at once", dial: mode("close-now"), check: func(t *testing.T, res callers.CallResult, _ []callers.Turn) {
			if res.EndedBy != callers.EndedByError || res.Error == "" {
				t.Errorf("call: %+v", res)
			}
		}},
		{name: "closes with an escape-laden reason", dial: mode("close-reason"), check: wantError("1011", "bye")},
		{name: "refuses with an escape-laden status", dial: mode("refuse-status"), check: wantConnectFailed("503", "busy")},
		{name: "never answers the upgrade", dial: func(d *Dialer) { d.URL = "ws://" + h.silent.Addr().String() + "/ws" },
			check: wantConnectFailed()},
		{name: "upgrades, then stays silent", dial: mode("silent"), check: func(t *testing.T, res callers.CallResult, turns []callers.Turn) {
			wantEnded(t, res, callers.EndedByCaller)
			if tr := oneTurn(t, turns); tr.Error != callers.ReasonNoAnswer {
				t.Errorf("turn error %q", tr.Error)
			}
		}},
		{name: "reads slowly", dial: mode("slow"), check: func(t *testing.T, res callers.CallResult, turns []callers.Turn) {
			// The kernel's socket buffers absorb a slow reader for minutes, so whether a send is
			// held up depends on the machine: the call must simply end as the caller's, judged.
			wantEnded(t, res, callers.EndedByCaller)
			if tr := oneTurn(t, turns); tr.Error == "" && tr.Heard == "" {
				t.Errorf("a turn with neither a reason nor a reply heard: %+v", tr)
			}
		}},
		{name: "never reads", dial: func(d *Dialer) {
			d.URL = "ws" + strings.TrimPrefix(h.deaf.URL, "http") + "/ws/deaf"
			d.Dialer = &websocket.Dialer{HandshakeTimeout: 2 * time.Second, NetDialContext: smallWriteBuffer}
		}, check: wantError("write")},
		{name: "floods the transcripts", dial: func(d *Dialer) {
			d.URL, d.EventsURL = h.url("silent"), h.srv.URL+"/events/{callSid}"
		}, check: func(t *testing.T, res callers.CallResult, turns []callers.Turn) {
			wantEnded(t, res, callers.EndedByCaller)
			tr := oneTurn(t, turns)
			if n := len(tr.ServerTranscripts); n == 0 || n > 32 {
				t.Errorf("%d server transcripts kept", n)
			}
			for _, s := range tr.ServerTranscripts {
				if len(s) > 512 || !strings.HasPrefix(s, "seven one three") {
					t.Fatalf("transcript kept as %q… (%d bytes)", s[:min(len(s), 20)], len(s))
				}
			}
		}},
		{name: "twiml webhook: escape-laden status", dial: twiml("status"), check: wantConnectFailed("500", "boom")},
		{name: "twiml webhook: giant body", dial: twiml("giant"), check: wantConnectFailed("too large")},
		{name: "twiml webhook: stream url with controls", dial: twiml("badurl"), check: wantConnectFailed("127.0.0.1:1")},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	peak := watchHeap(ctx)
	base := heapNow()
	var wg sync.WaitGroup
	type outcome struct {
		res   callers.CallResult
		turns []callers.Turn
		took  time.Duration
		bound time.Duration
	}
	out := make([]outcome, len(cases))
	for i, tc := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hc := &http.Client{Transport: &http.Transport{}}
			defer hc.CloseIdleConnections()
			d := &Dialer{HTTPClient: hc, Dialer: &websocket.Dialer{HandshakeTimeout: 2 * time.Second}}
			tc.dial(d)
			plan := callers.Plan{Call: i, Seed: uint64(i + 1), Until: time.Now().Add(time.Minute), MaxTurns: 1,
				PauseMin: 100 * time.Millisecond, PauseMax: 200 * time.Millisecond,
				Timeouts: callers.Timeouts{Connect: 3 * time.Second, Answer: 3 * time.Second, Reply: 10 * time.Second}}
			if tc.plan != nil {
				tc.plan(&plan)
			}
			s := &sink{}
			start := time.Now()
			res := callers.Run(ctx, d, p, plan, s, model)
			out[i] = outcome{res: res, turns: s.Turns(), took: time.Since(start), bound: callBound(plan)}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		t.Fatal("the suite overran its deadline")
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := out[i]
			t.Logf("ended by %s in %v: %q; turns %d", o.res.EndedBy, o.took.Round(time.Millisecond), o.res.Error, len(o.turns))
			for _, tr := range o.turns {
				t.Logf("turn %d %s: heard %q err %q dropped %v server %d reason %v", tr.Turn, tr.Phrase, tr.Heard, tr.Error,
					tr.Dropped, len(tr.ServerTranscripts), checks.Turn(tr).Reason)
			}
			if o.took > o.bound {
				t.Errorf("took %v, bound %v", o.took, o.bound)
			}
			wantReasons(t, o.res, o.turns)
			wantClean(t, o.res, o.turns)
			tc.check(t, o.res, o.turns)
		})
	}
	h.close()
	echo.close()
	junk.close()
	grew := peak.stop() - base
	t.Logf("heap peak %.1f MiB above the start", float64(grew)/(1<<20))
	if grew > 64<<20 { // loose, fifteen calls at once: TestFloodHeapFlat holds the flood to a tight bound
		t.Errorf("heap grew by %d MiB during the suite", grew>>20)
	}
}

// callBound is how long a call may take: every wait of its plan, the hang-up and the last
// transcription, and slack for a loaded machine.
func callBound(p callers.Plan) time.Duration {
	const phrase, slack = 4 * time.Second, 20 * time.Second
	perTurn := phrase + p.Timeouts.Answer + p.Timeouts.Reply + p.PauseMax
	return p.Timeouts.Connect + time.Duration(p.MaxTurns)*perTurn + 2*time.Second + 5*time.Second + slack
}

func (h *hostile) floodSent(mode string) time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sent[mode]
}

// smallWriteBuffer dials with a small send buffer, so a peer that stops reading blocks the
// caller's writes within seconds rather than after megabytes.
func smallWriteBuffer(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(4096)
	}
	return c, err
}

// wantReasons checks that a call that is not clean, and each turn not understood, says why.
func wantReasons(t *testing.T, res callers.CallResult, turns []callers.Turn) {
	t.Helper()
	if v := checks.Call(res, turns); !v.Clean && !v.Reason.Failed() {
		t.Errorf("call not clean without a reason: %+v", v)
	}
	if res.EndedBy == callers.EndedByError && res.Error == "" {
		t.Errorf("call ended in error without one")
	}
	for _, tr := range turns {
		if v := checks.Turn(tr); !v.Understood && !v.Reason.Failed() {
			t.Errorf("turn %d not understood without a reason: %+v", tr.Turn, v)
		}
	}
}

// wantClean checks that no text the agent chose reached the records with control characters or
// escapes in it.
func wantClean(t *testing.T, res callers.CallResult, turns []callers.Turn) {
	t.Helper()
	texts := []string{res.Error, res.CallID}
	for _, tr := range turns {
		texts = append(texts, tr.Error, tr.Heard)
		texts = append(texts, tr.ServerTranscripts...)
		texts = append(texts, tr.LateTranscripts...)
	}
	for _, s := range texts {
		if strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }) {
			t.Errorf("control characters recorded: %q", s)
		}
	}
}

func wantUnderstood(t *testing.T, res callers.CallResult, turns []callers.Turn) {
	t.Helper()
	if v := checks.Call(res, turns); !v.Clean {
		t.Errorf("call not clean: %v", v.Reason)
	}
	if len(turns) != 2 {
		t.Fatalf("%d turns", len(turns))
	}
	for _, tr := range turns {
		if v := checks.Turn(tr); !v.Understood {
			t.Errorf("turn %d: heard %q for %q: %v", tr.Turn, tr.Heard, tr.Phrase, v.Reason)
		}
	}
}

func wantEnded(t *testing.T, res callers.CallResult, endedBy string) {
	t.Helper()
	if !res.Connected || res.EndedBy != endedBy {
		t.Fatalf("call ended by %q (connected %v), want %q: %q", res.EndedBy, res.Connected, endedBy, res.Error)
	}
}

func oneTurn(t *testing.T, turns []callers.Turn) callers.Turn {
	t.Helper()
	if len(turns) != 1 {
		t.Fatalf("%d turns, want 1", len(turns))
	}
	return turns[0]
}

// wantError expects a connected call that ended in error, saying each of says.
func wantError(says ...string) func(*testing.T, callers.CallResult, []callers.Turn) {
	return func(t *testing.T, res callers.CallResult, turns []callers.Turn) {
		t.Helper()
		wantEnded(t, res, callers.EndedByError)
		wantSays(t, res.Error, says)
		if v := checks.Call(res, turns); v.Clean {
			t.Error("judged clean")
		}
	}
}

// wantConnectFailed expects a call that never connected, saying each of says.
func wantConnectFailed(says ...string) func(*testing.T, callers.CallResult, []callers.Turn) {
	return func(t *testing.T, res callers.CallResult, turns []callers.Turn) {
		t.Helper()
		if res.Connected || len(turns) != 0 || checks.Call(res, turns).Reason != checks.ReasonConnectFailed {
			t.Fatalf("call %+v with %d turns", res, len(turns))
		}
		wantSays(t, res.Error, says)
	}
}

func wantSays(t *testing.T, msg string, says []string) {
	t.Helper()
	for _, s := range says {
		if !strings.Contains(msg, s) {
			t.Errorf("error %q does not say %q", msg, s)
		}
	}
}

// heapWatch samples the live heap until stopped and keeps the peak.
type heapWatch struct {
	stopc chan struct{}
	done  chan int64
}

func watchHeap(ctx context.Context) *heapWatch {
	w := &heapWatch{stopc: make(chan struct{}), done: make(chan int64, 1)}
	go func() {
		var peak int64
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			peak = max(peak, heapNow())
			select {
			case <-tick.C:
			case <-w.stopc:
				w.done <- peak
				return
			case <-ctx.Done():
				w.done <- peak
				return
			}
		}
	}()
	return w
}

// stop ends the watch and returns the peak.
func (w *heapWatch) stop() int64 {
	close(w.stopc)
	return <-w.done
}
