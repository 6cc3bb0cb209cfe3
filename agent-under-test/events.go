package agent

import (
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/callfleet/callfleet/wire/rtvi"
)

// hub fans each call's RTVI messages out to its SSE subscribers. A subscriber may come before
// the call does (a Twilio caller knows its callSid before it sends start), so topics are made by
// whichever comes first. Publishing never blocks: a subscriber that falls behind loses messages.
// Both the subscribers of a call and the topics waiting for a call are capped.
type hub struct {
	maxSubs    int // per topic
	maxPending int // topics without a live call

	mu      sync.Mutex
	topics  map[string]*topic
	pending int
}

type topic struct {
	subs    map[chan rtvi.Message]struct{}
	live    bool          // a call with this id exists
	ended   chan struct{} // closed when the call ends
	endOnce sync.Once
}

func newHub(maxSubs, maxPending int) *hub {
	return &hub{maxSubs: maxSubs, maxPending: maxPending, topics: map[string]*topic{}}
}

func newTopic() *topic {
	return &topic{subs: map[chan rtvi.Message]struct{}{}, ended: make(chan struct{})}
}

// open marks a call live; close ends its subscribers' streams.
func (h *hub) open(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	t, ok := h.topics[id]
	switch {
	case !ok:
		t = newTopic()
		h.topics[id] = t
	case !t.live:
		h.pending--
	}
	t.live = true
}

func (h *hub) close(id string) {
	h.mu.Lock()
	t, ok := h.topics[id]
	if ok {
		delete(h.topics, id)
		if !t.live {
			h.pending--
		}
	}
	h.mu.Unlock()
	if ok {
		t.endOnce.Do(func() { close(t.ended) })
	}
}

func (h *hub) publish(id string, m rtvi.Message) {
	h.mu.Lock()
	defer h.mu.Unlock()
	t, ok := h.topics[id]
	if !ok {
		return
	}
	for ch := range t.subs {
		select {
		case ch <- m:
		default:
		}
	}
}

func (h *hub) subscribe(id string) (chan rtvi.Message, *topic, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	t, ok := h.topics[id]
	switch {
	case ok && len(t.subs) >= h.maxSubs:
		return nil, nil, fmt.Errorf("%w (%d)", errTooManySubscribers, h.maxSubs)
	case !ok && h.pending >= h.maxPending:
		return nil, nil, fmt.Errorf("%w (%d)", errTooManyPending, h.maxPending)
	case !ok:
		t = newTopic()
		h.topics[id] = t
		h.pending++
	}
	ch := make(chan rtvi.Message, 64)
	t.subs[ch] = struct{}{}
	return ch, t, nil
}

func (h *hub) unsubscribe(id string, ch chan rtvi.Message) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t, ok := h.topics[id]; ok {
		delete(t.subs, ch)
		if len(t.subs) == 0 && !t.live {
			delete(h.topics, id)
			h.pending--
		}
	}
}

func (h *hub) isLive(id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	t, ok := h.topics[id]
	return ok && t.live
}

// pendingWait is how long an SSE subscriber may wait for its call to start; sseWriteTimeout how
// long one event may take to reach a subscriber before it is dropped.
const (
	pendingWait     = 10 * time.Second
	sseWriteTimeout = 10 * time.Second
)

// handleEvents serves GET /calls/{id}/events as Server-Sent Events of the call's RTVI messages.
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if id == "" || len(id) > 128 {
		http.Error(w, `{"error":"bad call id"}`, http.StatusBadRequest)
		return
	}
	ch, t, err := s.hub.subscribe(id)
	if err != nil {
		code := http.StatusServiceUnavailable
		if errors.Is(err, errTooManySubscribers) {
			code = http.StatusTooManyRequests
		}
		w.Header().Set("Retry-After", "1")
		writeJSONError(w, code, fmt.Errorf("events of %q: %w", id, err))
		return
	}
	defer s.hub.unsubscribe(id, ch)
	sw, err := startSSE(w)
	if err != nil {
		return
	}
	wait := time.NewTimer(pendingWait)
	defer wait.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.ctx.Done():
			return
		case <-t.ended:
			sw.drain(ch)
			return
		case <-wait.C:
			if !s.hub.isLive(id) {
				return // no such call came
			}
		case m := <-ch:
			if sw.send(m) != nil {
				return
			}
		}
	}
}

// sseWriter writes one SSE response. The stream outlives the http.Server's WriteTimeout, so each
// event gets a write deadline of its own. Reading needs none: a GET has no body, and net/http
// clears the read deadline when it starts waiting for the client to go (startBackgroundRead).
type sseWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func startSSE(w http.ResponseWriter) (*sseWriter, error) {
	sw := &sseWriter{w: w, rc: http.NewResponseController(w)}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	sw.deadline()
	w.WriteHeader(http.StatusOK)
	if err := sw.rc.Flush(); err != nil {
		return nil, fmt.Errorf("sse: %w", err)
	}
	return sw, nil
}

func (sw *sseWriter) deadline() {
	_ = sw.rc.SetWriteDeadline(time.Now().Add(sseWriteTimeout)) // ErrNotSupported: no deadline to keep
}

func (sw *sseWriter) send(m rtvi.Message) error {
	sw.deadline()
	if err := rtvi.WriteSSE(sw.w, m); err != nil {
		return fmt.Errorf("sse: %w", err)
	}
	return sw.rc.Flush()
}

// drain sends what is queued, once the call has ended.
func (sw *sseWriter) drain(ch chan rtvi.Message) {
	sw.deadline()
	for {
		select {
		case m := <-ch:
			if rtvi.WriteSSE(sw.w, m) != nil {
				return
			}
		default:
			_ = sw.rc.Flush() // the stream ends here either way
			return
		}
	}
}

// callEvents is a call's Events sink: the transport's own channel (the data channel) and the hub.
type callEvents struct {
	id    string
	hub   *hub
	extra func(rtvi.Message)
}

func (e *callEvents) Publish(m rtvi.Message) {
	if e.extra != nil {
		e.extra(m)
	}
	e.hub.publish(e.id, m)
}
