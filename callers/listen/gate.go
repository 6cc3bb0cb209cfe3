package listen

import (
	"context"
	"fmt"
	"time"
)

// gate stands in front of an Ears' decoders (or request slots): slots bound how many replies
// are heard at once, and the replies waiting for one are bounded in number (beyond maxQueue a
// reply is refused at once) and in time (maxWait). Waiting replies are served in arrival order
// (a channel's blocked senders queue FIFO). It keeps the ears' counters.
type gate struct {
	slots    chan struct{}
	maxQueue int64
	maxWait  time.Duration
	c        counters
}

func newGate(slots, maxQueue int, maxWait time.Duration) *gate {
	slots = max(slots, 1)
	if maxQueue <= 0 {
		maxQueue = DefaultQueuePerSlot * slots
	}
	if maxWait <= 0 {
		maxWait = DefaultMaxWait
	}
	return &gate{slots: make(chan struct{}, slots), maxQueue: int64(maxQueue), maxWait: maxWait}
}

func (g *gate) stats() EarsStats { return g.c.snapshot(cap(g.slots)) }

// classify names a failed decode for Turn.Unjudged and says whether it was a timeout.
type classify func(err error) (unjudged string, timeout bool)

// hear runs one reply's decode (work, on audio of the given length) through the gate and
// counts what became of it. A decode that fails because ctx ended is the call's end, not a
// failure.
func (g *gate) hear(ctx context.Context, audio time.Duration, work func() (string, error), why classify) Hearing {
	g.c.requests.Add(1)
	start := time.Now()
	h, ok := g.enter(ctx)
	h.Wait = time.Since(start)
	if !ok {
		return h
	}
	g.c.started.Add(1)
	g.c.waitNs.Add(int64(h.Wait))
	g.c.audioNs.Add(int64(audio))
	g.c.busy.Add(1)
	t0 := time.Now()
	digits, err := work()
	h.Time = time.Since(t0)
	g.c.busy.Add(-1)
	<-g.slots
	g.c.timeNs.Add(int64(h.Time))
	switch {
	case err == nil:
		g.c.heard.Add(1)
		h.Digits = digits
	case ctx.Err() != nil:
		g.c.cancelled.Add(1)
		h.Err = err
	default:
		reason, timeout := why(err)
		if timeout {
			g.c.timeouts.Add(1)
		} else {
			g.c.failures.Add(1)
		}
		h.Unjudged, h.Err = reason, err
	}
	return h
}

// enter takes a slot, waiting in the bounded queue if there is none free; false with the
// Hearing to return when it got none.
func (g *gate) enter(ctx context.Context) (Hearing, bool) {
	if err := ctx.Err(); err != nil {
		g.c.cancelled.Add(1)
		return Hearing{Err: err}, false
	}
	select {
	case g.slots <- struct{}{}:
		return Hearing{}, true
	default:
	}
	if g.c.waiting.Add(1) > g.maxQueue {
		g.c.waiting.Add(-1)
		g.c.queueFull.Add(1)
		return Hearing{Unjudged: UnjudgedQueueFull, Err: fmt.Errorf("%w: %d replies already waiting", ErrQueueFull, g.maxQueue)}, false
	}
	defer g.c.waiting.Add(-1)
	t := time.NewTimer(g.maxWait)
	defer t.Stop()
	select {
	case g.slots <- struct{}{}:
		return Hearing{}, true
	case <-t.C:
		g.c.waitTimeouts.Add(1)
		return Hearing{Unjudged: UnjudgedTimeout, Err: fmt.Errorf("%w: no decoder within %v", ErrWaitTimeout, g.maxWait)}, false
	case <-ctx.Done():
		g.c.cancelled.Add(1)
		return Hearing{Err: ctx.Err()}, false
	}
}
