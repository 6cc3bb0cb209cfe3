package twilio

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/callfleet/callfleet/speech"
	"github.com/callfleet/callfleet/speech/pool"
	"github.com/callfleet/callfleet/wire/rtvi"
	tw "github.com/callfleet/callfleet/wire/twilio"
)

// behaviour is what the fake agent does with each phrase it hears.
type behaviour struct {
	Delay       time.Duration // caller's speech_end frame received -> first voiced reply audio sent
	Chunk       time.Duration // reply piece size, sent at real-time pace; 0: the whole reply at once
	GapAt, Gap  time.Duration // a hole of Gap in the reply after GapAt of its audio
	Silent      bool          // never answer
	Wrong       bool          // answer another phrase's digits
	HangupAfter int           // close the call (1000) on hearing the end of this turn
	Refuse      bool          // close with 1013 at once
	RefuseLate  bool          // close with 1013 on start, once the caller's media flows
	Mark        bool          // send a mark after each reply
	ClearAfter  time.Duration // send clear this long after the reply's first audio
	Transcripts bool          // publish a final user-transcription 100 ms after each phrase ends
	LateTurn    int           // hold this turn's transcript until the next phrase is being spoken
	Events404   int           // answer the first n events requests 404
	AuthToken   string        // check X-Twilio-Signature on /twiml and the websocket upgrade
	Junk        bool          // before each reply, send what a hostile agent might (sendJunk)
}

// observed is what the agent saw of one turn, on the shared monotonic clock.
type observed struct {
	turn      int
	digits    string
	answered  string
	heardEnd  time.Time // the caller's speech_end frame arrived
	firstSent time.Time // first reply audio written
	// firstWrite is when that write began: the caller may read the audio before the write returns
	// (a whole reply in one message, under -race), so its arrival lies between the two.
	firstWrite time.Time
	lastSent   time.Time // last reply audio written
	replyDur   time.Duration
	reply      *pool.Clip // what the agent said, from frame from on
	from       int
	sends      []sent
	markSent   time.Time
	markEcho   time.Time
	clearSent  time.Time
}

// sent is one media message of a reply: when it was written and how many frames it held.
type sent struct {
	at     time.Time
	frames int
}

// agent is a fake Twilio Media Streams application: it recognises the caller's phrases by their
// exact mu-law frames (the pool's) and answers with the same phrase from the pool.
type agent struct {
	t     testing.TB
	b     behaviour
	pool  *pool.Pool
	byEnd map[string][]*pool.Clip // a clip's speech_end frame -> the clips ending with it
	byMid map[string][]*pool.Clip // a frame early in a clip (the phrase is being spoken) -> clips
	srv   *httptest.Server
	wg    sync.WaitGroup

	mu       sync.Mutex
	turns    []*observed
	params   map[string]string
	stops    int
	events   map[string]chan rtvi.Message
	eventReq int
	conns    []*websocket.Conn
}

func newAgent(t testing.TB, p *pool.Pool, b behaviour) *agent {
	a := &agent{t: t, b: b, pool: p, byEnd: map[string][]*pool.Clip{}, byMid: map[string][]*pool.Clip{},
		events: map[string]chan rtvi.Message{}}
	for i := 0; i < p.Len(); i++ {
		c := p.Clip(i)
		a.byEnd[string(c.Mulaw[c.EndFrame()])] = append(a.byEnd[string(c.Mulaw[c.EndFrame()])], c)
		a.byMid[string(c.Mulaw[c.StartFrame()+3])] = append(a.byMid[string(c.Mulaw[c.StartFrame()+3])], c)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/ws", a.serveWS)
	mux.HandleFunc("/twiml", a.serveTwiML)
	mux.HandleFunc("/events/{sid}", a.serveEvents)
	a.srv = httptest.NewServer(mux)
	t.Cleanup(a.close)
	return a
}

func (a *agent) wsURL() string { return "ws" + strings.TrimPrefix(a.srv.URL, "http") + "/ws" }

// close stops the server and waits for every connection's goroutines.
func (a *agent) close() {
	a.mu.Lock()
	for _, c := range a.conns {
		c.Close()
	}
	a.mu.Unlock()
	a.srv.Close()
	a.wg.Wait()
}

func (a *agent) observed() []observed {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]observed, len(a.turns))
	for i, o := range a.turns {
		out[i] = *o
	}
	return out
}

func (a *agent) serveTwiML(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	if a.b.AuthToken != "" && !tw.ValidSignature(a.b.AuthToken, a.srv.URL+r.URL.RequestURI(), r.PostForm, r.Header.Get(tw.SignatureHeader)) {
		http.Error(w, "bad signature", http.StatusForbidden)
		return
	}
	w.Header().Set("Content-Type", "text/xml")
	w.Write(tw.StreamTwiML(a.wsURL(), map[string]string{"CallSid": r.PostForm.Get("CallSid"), "via": "twiml"}))
}

// serveEvents streams a call's RTVI messages as Server-Sent Events.
func (a *agent) serveEvents(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.eventReq++
	ch, ok := a.events[r.PathValue("sid")]
	refuse := a.eventReq <= a.b.Events404
	a.mu.Unlock()
	if !ok || refuse {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	for {
		select {
		case m, ok := <-ch:
			if !ok {
				return
			}
			rtvi.WriteSSE(w, m)
			w.(http.Flusher).Flush()
		case <-r.Context().Done():
			return
		}
	}
}

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// agentCall is one websocket call at the agent.
type agentCall struct {
	a         *agent
	ws        *websocket.Conn
	ctx       context.Context
	streamSid string
	events    chan rtvi.Message
	wmu       sync.Mutex
	wg        sync.WaitGroup
	heard     int
	late      []string // transcripts held until the next phrase is spoken
	history   [][]byte // frames received, for matching whole phrases
}

// match returns the clip whose voiced frames up to frame idx(clip) are the last ones received.
func (c *agentCall) match(cands []*pool.Clip, idx func(*pool.Clip) int) *pool.Clip {
	h := c.history
next:
	for _, cl := range cands {
		n := idx(cl) - cl.StartFrame() + 1
		if n > len(h) {
			continue
		}
		for k := 0; k < n; k++ {
			if string(h[len(h)-n+k]) != string(cl.Mulaw[cl.StartFrame()+k]) {
				continue next
			}
		}
		return cl
	}
	return nil
}

func (a *agent) serveWS(w http.ResponseWriter, r *http.Request) {
	// Twilio signs the websocket request too: over the URL dialled, query included, no body params.
	wsURL := "ws" + strings.TrimPrefix(a.srv.URL, "http") + r.URL.RequestURI()
	if a.b.AuthToken != "" && !tw.ValidSignature(a.b.AuthToken, wsURL, nil, r.Header.Get(tw.SignatureHeader)) {
		http.Error(w, "bad signature", http.StatusForbidden)
		return
	}
	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	a.wg.Add(1)
	defer a.wg.Done()
	a.mu.Lock()
	a.conns = append(a.conns, ws)
	a.mu.Unlock()
	defer ws.Close()
	if a.b.Refuse {
		msg := websocket.FormatCloseMessage(websocket.CloseTryAgainLater, "at capacity")
		ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second))
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &agentCall{a: a, ws: ws, ctx: ctx, events: make(chan rtvi.Message, 64)}
	defer func() {
		cancel()
		c.wg.Wait()
	}()
	c.run()
}

func (c *agentCall) run() {
	for {
		_, data, err := c.ws.ReadMessage()
		if err != nil {
			return
		}
		m, err := tw.Decode(data)
		if err != nil {
			c.a.t.Errorf("agent: bad message from caller: %v", err)
			continue
		}
		switch m.Event {
		case tw.EventStart:
			c.start(&m)
			if c.a.b.RefuseLate {
				msg := websocket.FormatCloseMessage(websocket.CloseTryAgainLater, "at capacity")
				c.ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second))
			}
		case tw.EventMedia:
			payload, err := m.Audio()
			if err != nil || len(payload) != 160 {
				c.a.t.Errorf("agent: media of %d bytes: %v", len(payload), err)
				continue
			}
			c.media(payload, time.Now())
		case tw.EventMark:
			c.a.mu.Lock()
			if o := c.a.turnByMark(m.Mark.Name); o != nil && o.markEcho.IsZero() {
				o.markEcho = time.Now()
			}
			c.a.mu.Unlock()
		case tw.EventStop:
			c.a.mu.Lock()
			c.a.stops++
			c.a.mu.Unlock()
		}
	}
}

func (c *agentCall) start(m *tw.Message) {
	c.streamSid = m.StreamSID
	a := c.a
	a.mu.Lock()
	a.params = m.Start.CustomParameters
	a.events[m.Start.CallSID] = c.events
	a.mu.Unlock()
	if m.Start.MediaFormat != tw.DefaultMediaFormat || len(m.Start.Tracks) != 1 || m.Start.Tracks[0] != tw.TrackInbound {
		a.t.Errorf("agent: start %+v", m.Start)
	}
}

// media recognises the frames that matter: a phrase under way, and a phrase's speech_end.
func (c *agentCall) media(frame []byte, at time.Time) {
	if len(c.history) == 500 {
		c.history = c.history[:copy(c.history, c.history[250:])]
	}
	c.history = append(c.history, frame)
	mid := func(cl *pool.Clip) int { return cl.StartFrame() + 3 }
	if len(c.late) > 0 && c.match(c.a.byMid[string(frame)], mid) != nil {
		for _, text := range c.late {
			c.publish(rtvi.UserTranscription(text, true, time.Now()))
		}
		c.late = nil
	}
	clip := c.match(c.a.byEnd[string(frame)], (*pool.Clip).EndFrame)
	if clip == nil {
		return
	}
	c.heard++
	o := &observed{turn: c.heard, digits: clip.Digits, heardEnd: at}
	c.a.mu.Lock()
	c.a.turns = append(c.a.turns, o)
	c.a.mu.Unlock()
	b := c.a.b
	if b.Transcripts {
		c.transcript(clip.Digits)
	}
	if b.HangupAfter == c.heard {
		msg := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "goodbye")
		c.ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second))
		return
	}
	if b.Silent {
		return
	}
	reply := clip
	if b.Wrong {
		reply = c.a.other(clip)
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		c.reply(o, reply, at.Add(b.Delay))
	}()
}

// transcript publishes the phrase's final transcript, now+100 ms or held for LateTurn.
func (c *agentCall) transcript(digits string) {
	text := speech.Words(digits)
	if c.a.b.LateTurn == c.heard {
		c.late = append(c.late, text)
		return
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		select {
		case <-time.After(100 * time.Millisecond):
			c.publish(rtvi.UserTranscription(text, true, time.Now()))
		case <-c.ctx.Done():
		}
	}()
}

func (c *agentCall) publish(m rtvi.Message) {
	select {
	case c.events <- m:
	default:
		c.a.t.Errorf("agent: events backlog")
	}
}

// reply speaks clip from just before its first voiced frame, starting at at, in pieces at
// real-time pace.
func (c *agentCall) reply(o *observed, clip *pool.Clip, at time.Time) {
	b := c.a.b
	from := max(0, clip.StartFrame()-2)
	frames := clip.Mulaw[from:]
	per := max(1, int(b.Chunk/(20*time.Millisecond)))
	if b.Chunk == 0 {
		per = len(frames)
	}
	c.a.mu.Lock()
	o.answered, o.replyDur = clip.Digits, time.Duration(len(frames))*20*time.Millisecond
	o.reply, o.from = clip, from
	c.a.mu.Unlock()
	if b.Junk && !c.sendJunk() {
		return
	}
	for k := 0; k*per < len(frames); k++ {
		due := at.Add(time.Duration(k*per) * 20 * time.Millisecond)
		if b.Gap > 0 && time.Duration(k*per)*20*time.Millisecond >= b.GapAt {
			due = due.Add(b.Gap)
		}
		if !c.sleepUntil(due) {
			return
		}
		var payload []byte
		piece := frames[k*per : min((k+1)*per, len(frames))]
		for _, f := range piece {
			payload = append(payload, f...)
		}
		before := time.Now()
		if !c.send(tw.AppendAgentMedia(nil, c.streamSid, payload)) {
			return
		}
		now := time.Now()
		c.a.mu.Lock()
		if k == 0 {
			o.firstWrite, o.firstSent = before, now
		}
		o.lastSent = now
		o.sends = append(o.sends, sent{at: now, frames: len(piece)})
		c.a.mu.Unlock()
	}
	c.afterReply(o)
}

// afterReply sends the mark and the clear the behaviour asks for.
func (c *agentCall) afterReply(o *observed) {
	b := c.a.b
	if b.Mark {
		c.send(tw.AppendMark(nil, c.streamSid, fmt.Sprintf("reply-%d", o.turn)))
		c.a.mu.Lock()
		o.markSent = time.Now()
		c.a.mu.Unlock()
	}
	if b.ClearAfter > 0 && c.sleepUntil(o.firstSent.Add(b.ClearAfter)) {
		c.send(tw.AppendClear(nil, c.streamSid))
		c.a.mu.Lock()
		o.clearSent = time.Now()
		c.a.mu.Unlock()
	}
}

func (c *agentCall) sleepUntil(t time.Time) bool {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-c.ctx.Done():
		return false
	}
}

func (c *agentCall) send(msg []byte) bool {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.ws.WriteMessage(websocket.TextMessage, msg) == nil
}

func (a *agent) turnByMark(name string) *observed {
	for _, o := range a.turns {
		if name == fmt.Sprintf("reply-%d", o.turn) {
			return o
		}
	}
	return nil
}

// other is a clip with different digits, for a wrong answer.
func (a *agent) other(c *pool.Clip) *pool.Clip {
	for i := 0; i < a.pool.Len(); i++ {
		if o := a.pool.Clip(i); o.Digits != c.Digits {
			return o
		}
	}
	a.t.Fatalf("pool has one phrase")
	return nil
}
