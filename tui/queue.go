package tui

import (
	"sync"
	"time"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/scenarios"
)

// batch is what the program receives at once: the events since the last batch, in order, and
// each call's latest state (a lane shows only the latest, so older ones are dropped).
type batch struct {
	events []scenarios.Event
	states map[int]callers.State
	done   bool // the run has ended: quit after applying this batch
}

// queue is unbounded on the side that matters: Turn, Call and step events are never dropped, and
// State events collapse to one per call, so pushing never blocks and memory stays bounded by the
// records the run keeps anyway.
type queue struct {
	mu     sync.Mutex
	events []scenarios.Event
	states map[int]callers.State
	done   bool
	sent   bool // the done batch was handed out
	closed bool
	wake   chan struct{} // capacity 1: something arrived
	gone   chan struct{} // closed by close: the program is gone
}

func newQueue() *queue {
	return &queue{states: map[int]callers.State{}, wake: make(chan struct{}, 1), gone: make(chan struct{})}
}

// push adds an event without ever waiting on the consumer.
func (q *queue) push(e scenarios.Event) {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	switch e.Kind {
	case scenarios.EventState:
		q.states[e.CallN] = e.State
	case scenarios.EventStepStart:
		// The states so far belong to the step before: a probe numbers each setting's calls
		// from 0 again, so they must not land on the new step's lanes.
		for call, s := range q.states {
			q.events = append(q.events, scenarios.Event{Kind: scenarios.EventState, At: e.At, CallN: call, State: s})
		}
		clear(q.states)
		q.events = append(q.events, e)
	default:
		q.events = append(q.events, e)
	}
	q.mu.Unlock()
	q.signal()
}

// finish marks the end of the run; the batch carrying it is the last.
func (q *queue) finish() {
	q.mu.Lock()
	q.done = true
	q.mu.Unlock()
	q.signal()
}

// close releases a waiting next and drops every later push.
func (q *queue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.closed {
		q.closed = true
		close(q.gone)
	}
}

func (q *queue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// next waits for something to deliver, then gap more so bursts coalesce into one redraw; false
// once the queue is closed or the done batch has gone out.
func (q *queue) next(gap time.Duration) (batch, bool) {
	for {
		if b, ok, more := q.take(); !more {
			return batch{}, false
		} else if ok {
			return b, true
		}
		select {
		case <-q.wake:
		case <-q.gone:
			return batch{}, false
		}
		if gap > 0 {
			select {
			case <-time.After(gap):
			case <-q.gone:
				return batch{}, false
			}
		}
	}
}

// take drains what is queued; ok when there was something, more false when nothing ever will be.
func (q *queue) take() (b batch, ok, more bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed || q.sent {
		return batch{}, false, false
	}
	if len(q.events) == 0 && len(q.states) == 0 && !q.done {
		return batch{}, false, true
	}
	b = batch{events: q.events, states: q.states, done: q.done}
	q.events, q.states = nil, map[int]callers.State{}
	q.sent = q.done
	return b, true, true
}
