// Package frameclock is one drift-free 20 ms (or any period) clock shared by every paced sender of
// a process. A timer per call wakes the process once per call per frame, at scattered phases; one
// shared clock wakes it once per frame and the senders run back to back, which costs less kernel
// and scheduler time per call (make bench: scripts/bench-agent.sh).
//
// The clock's goroutine runs only while someone is subscribed, so an idle process has none.
package frameclock

import (
	"context"
	"sync"
	"time"
)

// Clock broadcasts numbered ticks every Period to its subscribers.
type Clock struct {
	period time.Duration

	mu   sync.Mutex
	subs int
	n    int64         // ticks since the clock (re)started
	ch   chan struct{} // closed at the next tick
	stop chan struct{} // closed to end the running goroutine; nil when none runs
	done chan struct{} // closed when that goroutine has returned
}

// New returns a clock that ticks every period once someone subscribes.
func New(period time.Duration) *Clock {
	if period <= 0 {
		panic("frameclock: period must be positive") // unreachable: the one caller passes the constant pipeline.FrameTime
	}
	return &Clock{period: period}
}

// Sub is one subscriber's view of the clock. It is not safe for concurrent use.
type Sub struct {
	c    *Clock
	last int64
	once sync.Once
}

// Subscribe starts the clock if it is stopped and returns a subscription whose first Next
// returns at the clock's next tick. Close it when done.
func (c *Clock) Subscribe() *Sub {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.subs++
	if c.stop == nil {
		c.n, c.ch = 0, make(chan struct{})
		c.stop, c.done = make(chan struct{}), make(chan struct{})
		go c.run(time.Now(), c.stop, c.done)
	}
	return &Sub{c: c, last: c.n}
}

// run fires ticks on a schedule computed from start, so timer lateness never accumulates.
func (c *Clock) run(start time.Time, stop, done chan struct{}) {
	defer close(done)
	timer := time.NewTimer(c.period)
	defer timer.Stop()
	for k := int64(1); ; {
		select {
		case <-stop:
			return
		case <-timer.C:
		}
		now := time.Now()
		// After a stall the clock jumps to the tick that is due: subscribers see the gap in the
		// tick numbers and catch up themselves, bounded as they choose.
		if due := int64(now.Sub(start) / c.period); due > k {
			k = due
		}
		c.mu.Lock()
		select {
		case <-stop: // stopped while the tick was due: the clock may already run again anew
			c.mu.Unlock()
			return
		default:
		}
		c.n = k
		close(c.ch)
		c.ch = make(chan struct{})
		c.mu.Unlock()
		k++
		timer.Reset(time.Until(start.Add(time.Duration(k) * c.period)))
	}
}

// Next waits for a tick after the last one this subscriber saw and returns how many ticks have
// passed since then (1 unless the subscriber or the clock fell behind). It returns ctx's error
// once ctx is done.
func (s *Sub) Next(ctx context.Context) (ticks int, err error) {
	for {
		s.c.mu.Lock()
		n, ch := s.c.n, s.c.ch
		s.c.mu.Unlock()
		if n > s.last {
			ticks, s.last = int(n-s.last), n
			return ticks, nil
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-ch:
		}
	}
}

// Close ends the subscription; the last one to close stops the clock's goroutine and waits for it.
// Idempotent.
func (s *Sub) Close() {
	s.once.Do(func() {
		c := s.c
		c.mu.Lock()
		c.subs--
		var done chan struct{}
		if c.subs == 0 && c.stop != nil {
			close(c.stop)
			done, c.stop = c.done, nil
		}
		c.mu.Unlock()
		if done != nil {
			<-done
		}
	})
}
