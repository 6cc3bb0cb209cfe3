package agent

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/callfleet/callfleet/wire/rtvi"
)

// hub fans each call's RTVI messages out to its SSE subscribers. A subscriber may come before
// the call does (a Twilio caller knows its callSid before it sends start), so topics are made by
// whichever comes first. Publishing never blocks: a subscriber that falls behind loses messages.
type hub struct {
	mu     sync.Mutex
	topics map[string]*topic
}

type topic struct {
	subs    map[chan rtvi.Message]struct{}
	live    bool          // a call with this id exists
	ended   chan struct{} // closed when the call ends
	endOnce sync.Once
}

func newHub() *hub { return &hub{topics: map[string]*topic{}} }

func (h *hub) topicLocked(id string) *topic {
	t, ok := h.topics[id]
	if !ok {
		t = &topic{subs: map[chan rtvi.Message]struct{}{}, ended: make(chan struct{})}
		h.topics[id] = t
	}
	return t
}

// open marks a call live; close ends its subscribers' streams.
func (h *hub) open(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.topicLocked(id).live = true
}

func (h *hub) close(id string) {
	h.mu.Lock()
	t, ok := h.topics[id]
	if ok {
		delete(h.topics, id)
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

func (h *hub) subscribe(id string) (chan rtvi.Message, *topic) {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.topicLocked(id)
	ch := make(chan rtvi.Message, 64)
	t.subs[ch] = struct{}{}
	return ch, t
}

func (h *hub) unsubscribe(id string, ch chan rtvi.Message) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t, ok := h.topics[id]; ok {
		delete(t.subs, ch)
		if len(t.subs) == 0 && !t.live {
			delete(h.topics, id)
		}
	}
}

func (h *hub) isLive(id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	t, ok := h.topics[id]
	return ok && t.live
}

// pendingWait is how long an SSE subscriber may wait for its call to start.
const pendingWait = 10 * time.Second

// handleEvents serves GET /calls/{id}/events as Server-Sent Events of the call's RTVI messages.
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if id == "" || len(id) > 128 {
		http.Error(w, `{"error":"bad call id"}`, http.StatusBadRequest)
		return
	}
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, `{"error":"streaming unsupported"}`, http.StatusInternalServerError)
		return
	}
	ch, t := s.hub.subscribe(id)
	defer s.hub.unsubscribe(id, ch)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl.Flush()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	wait := time.NewTimer(pendingWait)
	defer wait.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.ctx.Done():
			return
		case <-t.ended:
			s.drain(w, ch)
			return
		case <-wait.C:
			if !s.hub.isLive(id) {
				return // no such call came
			}
		case m := <-ch:
			if err := rtvi.WriteSSE(w, m); err != nil {
				return
			}
			fl.Flush()
		}
	}
}

func (s *Server) drain(w http.ResponseWriter, ch chan rtvi.Message) {
	for {
		select {
		case m := <-ch:
			if rtvi.WriteSSE(w, m) != nil {
				return
			}
		default:
			if fl, ok := w.(http.Flusher); ok {
				fl.Flush()
			}
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
