package scenarios

import (
	"sync"
	"time"

	"github.com/callfleet/callfleet/callers"
)

// EventKind says what an Event carries.
type EventKind int

const (
	EventUnknown EventKind = iota
	EventStepStart
	EventStepEnd
	EventTurn
	EventCall
	EventState
)

// Event is one thing that happened in a run, as every output (turns.jsonl, progress lines, the
// live view, Prometheus) sees it.
type Event struct {
	Kind   EventKind
	At     time.Time
	Step   StepSchedule       // EventStepStart
	Result *StepResult        // EventStepEnd
	Turn   callers.Turn       // EventTurn
	Call   callers.CallResult // EventCall
	CallN  int                // EventState: the call index
	State  callers.State      // EventState
}

// Output consumes events on its own goroutine; it may be slow without slowing any caller.
type Output interface {
	Handle(Event)
}

// Bus fans events out to outputs. Adding never blocks: each output has an unbounded queue and a
// goroutine draining it, so a slow terminal or disk never adds send lateness to a caller.
type Bus struct {
	qs []*queue
	wg sync.WaitGroup
}

var _ callers.Sink = (*Bus)(nil)

type queue struct {
	mu     sync.Mutex
	items  []Event
	wake   chan struct{}
	closed bool
	out    Output
}

// NewBus starts a goroutine per output; Close drains them.
func NewBus(outs ...Output) *Bus {
	b := &Bus{}
	for _, o := range outs {
		q := &queue{wake: make(chan struct{}, 1), out: o}
		b.qs = append(b.qs, q)
		b.wg.Add(1)
		go func() { defer b.wg.Done(); q.drain() }()
	}
	return b
}

func (q *queue) add(e Event) {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	q.items = append(q.items, e)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *queue) drain() {
	for {
		q.mu.Lock()
		items, closed := q.items, q.closed
		q.items = nil
		q.mu.Unlock()
		for _, e := range items {
			q.out.Handle(e)
		}
		if closed && len(items) == 0 {
			return
		}
		if len(items) == 0 {
			<-q.wake
		}
	}
}

// Add sends an event to every output.
func (b *Bus) Add(e Event) {
	if e.At.IsZero() {
		e.At = time.Now()
	}
	for _, q := range b.qs {
		q.add(e)
	}
}

func (b *Bus) Turn(t callers.Turn)          { b.Add(Event{Kind: EventTurn, Turn: t}) }
func (b *Bus) Call(c callers.CallResult)    { b.Add(Event{Kind: EventCall, Call: c}) }
func (b *Bus) State(n int, s callers.State) { b.Add(Event{Kind: EventState, CallN: n, State: s}) }

// Hooks wires the bus to a controller.
func (b *Bus) Hooks() Hooks {
	return Hooks{
		StepStart: func(s StepSchedule, at time.Time) { b.Add(Event{Kind: EventStepStart, Step: s, At: at}) },
		StepEnd:   func(r StepResult) { b.Add(Event{Kind: EventStepEnd, Result: &r, Step: r.Schedule}) },
		Sink:      b,
	}
}

// Close delivers every queued event and waits for the outputs to finish.
func (b *Bus) Close() {
	for _, q := range b.qs {
		q.mu.Lock()
		q.closed = true
		q.mu.Unlock()
		select {
		case q.wake <- struct{}{}:
		default:
		}
	}
	b.wg.Wait()
}
