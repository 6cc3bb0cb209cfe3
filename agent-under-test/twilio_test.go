package agent

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/callfleet/callfleet/audio"
	"github.com/callfleet/callfleet/speech"
	"github.com/callfleet/callfleet/speech/pool"
	"github.com/callfleet/callfleet/wire/rtvi"
	tw "github.com/callfleet/callfleet/wire/twilio"
)

// twClient is a minimal Twilio Media Streams client: it plays Twilio's side in real time.
type twClient struct {
	t         testing.TB
	ws        *websocket.Conn
	callSid   string
	streamSid string
	seq, n    int
	start     time.Time

	mu       sync.Mutex
	agent    []int16     // agent audio at 8 kHz, in arrival order
	arrivals []time.Time // of each agent media message
	first    time.Time
	last     time.Time
	marks    []string
	clears   []time.Time
	closed   chan struct{}
	closedAt time.Time
	closeCE  *websocket.CloseError
}

func dialTwilio(t testing.TB, base, callSid string) *twClient {
	t.Helper()
	u := "ws" + strings.TrimPrefix(base, "http") + "/twilio/ws"
	ws, _, err := websocket.DefaultDialer.Dial(u, nil)
	if err != nil {
		t.Fatalf("dial %s: %v", u, err)
	}
	c := &twClient{t: t, ws: ws, callSid: callSid, streamSid: "MZ" + callSid, closed: make(chan struct{})}
	t.Cleanup(func() { ws.Close() })
	go c.read()
	c.send(tw.AppendConnected(nil))
	c.seq++
	c.send(tw.AppendStart(nil, c.seq, tw.Start{StreamSID: c.streamSid, CallSID: callSid, AccountSID: "AC1"}))
	c.start = time.Now()
	return c
}

func (c *twClient) send(b []byte) {
	if err := c.ws.WriteMessage(websocket.TextMessage, b); err != nil {
		c.t.Logf("send: %v", err)
	}
}

func (c *twClient) read() {
	defer close(c.closed)
	for {
		_, data, err := c.ws.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			c.mu.Lock()
			c.closedAt = time.Now()
			if errors.As(err, &ce) {
				c.closeCE = ce
			}
			c.mu.Unlock()
			return
		}
		m, err := tw.Decode(data)
		if err != nil {
			c.t.Errorf("agent sent an undecodable message: %v: %s", err, data)
			continue
		}
		now := time.Now()
		c.mu.Lock()
		switch m.Event {
		case tw.EventMedia:
			mu, err := m.Audio()
			if err != nil {
				c.t.Errorf("agent media: %v", err)
			}
			if c.first.IsZero() {
				c.first = now
			}
			c.last = now
			c.arrivals = append(c.arrivals, now)
			c.agent = audio.MulawDecode(c.agent, mu)
		case tw.EventMark:
			c.marks = append(c.marks, m.Mark.Name)
		case tw.EventClear:
			c.clears = append(c.clears, now)
		}
		c.mu.Unlock()
	}
}

// frame sends one 20 ms media message at its real-time slot and returns its send time.
func (c *twClient) frame(mu []byte) time.Time {
	due := c.start.Add(time.Duration(c.n) * 20 * time.Millisecond)
	time.Sleep(time.Until(due))
	c.seq++
	c.n++
	c.send(tw.AppendMedia(nil, c.streamSid, c.seq, c.n, int64(c.n*20), mu, tw.TrackInbound))
	return time.Now()
}

var silence8k = make([]byte, 160)

func init() {
	for i := range silence8k {
		silence8k[i] = 0xFF // mu-law zero
	}
}

// say plays a clip and returns the send times of the frames holding its first and last voiced sample.
func (c *twClient) say(clip *pool.Clip) (first, last time.Time) {
	for i, f := range clip.Mulaw {
		at := c.frame(f)
		if i == clip.StartFrame() {
			first = at
		}
		if i == clip.EndFrame() {
			last = at
		}
	}
	return first, last
}

func (c *twClient) silence(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
		c.frame(silence8k)
	}
}

// waitReply plays silence until the agent has spoken and then been quiet for quiet.
func (c *twClient) waitReply(quiet, limit time.Duration) bool {
	end := time.Now().Add(limit)
	for time.Now().Before(end) {
		c.frame(silence8k)
		c.mu.Lock()
		done := !c.first.IsZero() && time.Since(c.last) > quiet
		c.mu.Unlock()
		if done {
			return true
		}
	}
	return false
}

// agentAudio16k is the agent's reply as callfleet's Twilio caller hears it (audio.Widen, not a
// plain upsample: the transcriber inserts a "two" before a band-limited "six").
func (c *twClient) agentAudio16k() []int16 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return audio.Widen(c.agent)
}

func (c *twClient) stop() {
	c.seq++
	c.send(tw.AppendStop(nil, c.streamSid, c.seq, "AC1", c.callSid))
}

// sse collects the RTVI messages of a call from GET /calls/{id}/events.
type sse struct {
	mu   sync.Mutex
	msgs []rtvi.Message
	at   []time.Time
}

func subscribe(t testing.TB, ctx context.Context, base, id string) *sse {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/calls/"+url.PathEscape(id)+"/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("events: %v", err)
	}
	s := &sse{}
	go func() {
		defer resp.Body.Close()
		r := rtvi.NewSSEReader(bufio.NewReader(resp.Body))
		for {
			m, err := r.Next()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.msgs = append(s.msgs, m)
			s.at = append(s.at, time.Now())
			s.mu.Unlock()
		}
	}()
	return s
}

func (s *sse) finals() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, m := range s.msgs {
		if m.Type == rtvi.TypeUserTranscription {
			if text, final, err := m.Transcription(); err == nil && final {
				out = append(out, text)
			}
		}
	}
	return out
}

// said is the digits of the agent's bot-output texts.
func (s *sse) said() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var texts []string
	for _, m := range s.msgs {
		if o, err := m.Output(); err == nil && o.Spoken {
			texts = append(texts, o.Text)
		}
	}
	return speech.Normalize(strings.Join(texts, " "))
}

func (s *sse) has(typ string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.msgs {
		if m.Type == typ {
			return true
		}
	}
	return false
}

func TestTwilioTurn(t *testing.T) {
	noLeaks(t)
	model, p := fixtures(t)
	dir := t.TempDir()
	cfg := DefaultConfig()
	cfg.RecordDir = dir
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	clip := p.Clip(0)
	c, ev, wait := oneTurn(t, ctx, cfg, "CA-turn", clip)
	marks := c.marks

	if got := ev.finals(); len(got) != 1 || got[0] != clip.Digits {
		t.Errorf("server transcripts %q, want [%q]", got, clip.Digits)
	}
	heard, err := model.Transcribe(ctx, c.agentAudio16k())
	if err != nil || heard != clip.Digits {
		t.Errorf("reply heard as %q (%v), want %q", heard, err, clip.Digits)
	}
	if len(marks) != 1 {
		t.Errorf("marks %q, want one after the reply", marks)
	}
	for _, typ := range []string{rtvi.TypeUserStartedSpeaking, rtvi.TypeUserStoppedSpeaking, rtvi.TypeBotStartedSpeaking, rtvi.TypeBotStoppedSpeaking,
		rtvi.TypeBotOutput, rtvi.TypeBotTTSText, rtvi.TypeBotTranscription} {
		if !ev.has(typ) {
			t.Errorf("no %s event", typ)
		}
	}
	if said := ev.said(); said != clip.Digits {
		t.Errorf("bot-output says %q, want %q", said, clip.Digits)
	}
	// The end-of-turn wait is 1.5 s of silence as the VAD sees it; it hears a word's fading end as
	// silence already, so the reply comes a little sooner after the clip's last voiced sample.
	if wait < 1100*time.Millisecond || wait > 2500*time.Millisecond {
		t.Errorf("speech end to reply %v, want about 1.5 s", wait)
	}
	t.Logf("speech end to first reply audio: %v", wait)
	checkLead(t, c.arrivals)
	checkRecording(t, model, filepath.Join(dir, "CA-turn.wav"), clip.Digits)
}

// checkLead checks a reply ran twilioLead frames ahead of the clock and was paced after that:
// the first lead+1 frames came at once (paced, the last of them would be 60 ms after the first),
// and the whole reply took at least its length less the lead (lateness only makes it longer).
func checkLead(t *testing.T, arrivals []time.Time) {
	t.Helper()
	n := len(arrivals)
	if n <= twilioLead+1 {
		t.Fatalf("%d media messages, want a reply longer than the lead", n)
	}
	if burst := arrivals[twilioLead].Sub(arrivals[0]); burst >= time.Duration(twilioLead)*20*time.Millisecond {
		t.Errorf("frame %d came %v after the first, want the lead sent at once", twilioLead, burst)
	}
	want := time.Duration(n-1-twilioLead)*20*time.Millisecond - 20*time.Millisecond
	if span := arrivals[n-1].Sub(arrivals[0]); span < want {
		t.Errorf("%d frames came over %v, want at least %v: the reply was not paced", n, span, want)
	}
}

// oneTurn says clip to an agent started with cfg and hangs up once the reply has ended; it
// returns the call, its server events and the wait from the clip's end to the first reply audio.
func oneTurn(t *testing.T, ctx context.Context, cfg Config, callSid string, clip *pool.Clip) (*twClient, *sse, time.Duration) {
	t.Helper()
	_, hs := startAgent(t, cfg)
	ev := subscribe(t, ctx, hs.URL, callSid)
	c := dialTwilio(t, hs.URL, callSid)
	c.silence(200 * time.Millisecond)
	_, end := c.say(clip)
	if !c.waitReply(1200*time.Millisecond, 8*time.Second) {
		t.Fatal("no reply within 8 s")
	}
	c.stop()
	<-c.closed // the reader has ended: c's fields are the test's from here
	return c, ev, c.first.Sub(end)
}

func checkRecording(t *testing.T, model interface {
	Transcribe(context.Context, []int16) (string, error)
}, path, digits string) {
	t.Helper()
	rec, err := audio.ReadWAVFile(path)
	if err != nil {
		t.Fatalf("recording: %v", err)
	}
	if rec.Rate != 16000 || rec.Channels != 2 {
		t.Fatalf("recording is %d Hz %d ch, want 16000 Hz stereo", rec.Rate, rec.Channels)
	}
	left := make([]int16, len(rec.Samples)/2)
	right := make([]int16, len(left))
	for i := range left {
		left[i], right[i] = rec.Samples[2*i], rec.Samples[2*i+1]
	}
	for _, ch := range []struct {
		name string
		pcm  []int16
	}{{"caller (left)", left}, {"agent (right)", right}} {
		got, err := model.Transcribe(context.Background(), ch.pcm)
		if err != nil || got != digits {
			t.Errorf("recording %s heard as %q (%v), want %q", ch.name, got, err, digits)
		}
	}
}

func TestTwilioRefusedPastMaxCalls(t *testing.T) {
	noLeaks(t)
	cfg := DefaultConfig()
	cfg.MaxCalls = 1
	srv, hs := startAgent(t, cfg)
	first := dialTwilio(t, hs.URL, "CA-1")
	deadline := time.Now().Add(5 * time.Second)
	for srv.Live() != 1 && time.Now().Before(deadline) {
		first.frame(silence8k)
	}
	second := dialTwilio(t, hs.URL, "CA-2")
	select {
	case <-second.closed:
	case <-time.After(5 * time.Second):
		t.Fatal("second call not refused")
	}
	second.mu.Lock()
	ce := second.closeCE
	second.mu.Unlock()
	if ce == nil || ce.Code != websocket.CloseTryAgainLater {
		t.Fatalf("refusal close = %v, want 1013", ce)
	}
	first.frame(silence8k)
	select {
	case <-first.closed:
		t.Fatal("the live call was disturbed by the refusal")
	default:
	}
	if srv.Live() != 1 {
		t.Fatalf("live = %d", srv.Live())
	}
	first.stop()
	<-first.closed
}

func TestTwilioBadInput(t *testing.T) {
	noLeaks(t)
	srv, hs := startAgent(t, DefaultConfig())
	c := dialTwilio(t, hs.URL, "CA-bad")
	for _, msg := range []string{
		`{not json`,
		`{"event":"party"}`,
		`{"event":"media","streamSid":"MZCA-bad","media":{"payload":"***"}}`,
		`{"event":"media","streamSid":"MZCA-bad"}`,
		`[]`, ``, `null`,
	} {
		c.send([]byte(msg))
	}
	c.frame(silence8k)
	c.frame(silence8k)
	select {
	case <-c.closed:
		t.Fatal("bad messages closed the call")
	default:
	}
	big := strings.Repeat("x", 70<<10)
	c.send([]byte(`{"event":"media","media":{"payload":"` + big + `"}}`))
	select {
	case <-c.closed:
	case <-time.After(5 * time.Second):
		t.Fatal("oversize message did not close the call")
	}
	waitLive(t, srv, 0)
	// Media before start: counted and ignored, then the call still starts.
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(hs.URL, "http")+"/twilio/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	ws.WriteMessage(websocket.TextMessage, tw.AppendMedia(nil, "MZx", 1, 1, 20, silence8k, tw.TrackInbound))
	ws.WriteMessage(websocket.TextMessage, tw.AppendStart(nil, 2, tw.Start{StreamSID: "MZx", CallSID: "CAx"}))
	waitLive(t, srv, 1)
	ws.Close()
	waitLive(t, srv, 0)
}

func waitLive(t testing.TB, srv *Server, n int) {
	t.Helper()
	deadline := time.Now().Add(40 * time.Second)
	for srv.Live() != n {
		if time.Now().After(deadline) {
			t.Fatalf("live calls %d, want %d", srv.Live(), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestTwiMLSignature(t *testing.T) {
	noLeaks(t)
	cfg := DefaultConfig()
	cfg.TwilioAuthToken = "secret"
	_, hs := startAgent(t, cfg)
	form := url.Values{"CallSid": {"CA9"}, "From": {"+1555"}}
	for _, tc := range []struct {
		name string
		sig  string
		want int
	}{
		{"valid", tw.Signature("secret", hs.URL+"/twiml", form), http.StatusOK},
		{"wrong", tw.Signature("other", hs.URL+"/twiml", form), http.StatusForbidden},
		{"missing", "", http.StatusForbidden},
	} {
		req, _ := http.NewRequest(http.MethodPost, hs.URL+"/twiml", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if tc.sig != "" {
			req.Header.Set(tw.SignatureHeader, tc.sig)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body [512]byte
		n, _ := resp.Body.Read(body[:])
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, resp.StatusCode, tc.want)
		}
		if tc.want == http.StatusOK {
			u, _, err := tw.ParseStreamURL(body[:n])
			if err != nil || !strings.HasSuffix(u, "/twilio/ws") || !strings.HasPrefix(u, "ws://") {
				t.Errorf("stream url %q, %v", u, err)
			}
		}
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fixModel != nil {
		fixModel.Close()
	}
	os.Exit(code)
}
