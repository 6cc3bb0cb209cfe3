package callers

import (
	"context"
	"time"

	"github.com/callfleet/callfleet/callers/listen"
	"github.com/callfleet/callfleet/wire/rtvi"
)

// ticker is a call driven by runTicks: the turn loop's call and a script's scriptCall.
type ticker interface {
	onReady(now time.Time)                // the agent is ready (the transport says so)
	onEvent(m rtvi.Message, at time.Time) // a server event, as it arrives
	onHeard(h listen.Heard)               // the caller's transcription of a reply
	onCancel(err error)                   // the run was cancelled
	onDone()                              // the connection ended
	tick(now, sched time.Time)            // one 20 ms tick, due at sched
	over() bool
}

// runTicks runs t's ticks on a drift-free clock (tick n is due at start + n*20ms, however late
// tick n-1 was) until t is over. Server events and transcriptions are handed over as they arrive
// so their marks are not rounded to a tick.
func runTicks(ctx context.Context, conn Conn, events <-chan rtvi.Message, heard <-chan listen.Heard, t ticker) {
	start := time.Now()
	ready := conn.Ready()
	timer := time.NewTimer(0)
	defer timer.Stop()
	for n := 0; !t.over(); {
		select {
		case <-timer.C:
		case <-ready:
			ready = nil
			t.onReady(time.Now())
			continue
		case m, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			t.onEvent(m, time.Now())
			continue
		case h := <-heard:
			t.onHeard(h)
			continue
		case <-ctx.Done():
			t.onCancel(ctx.Err())
			return
		case <-conn.Done():
			t.onDone()
			return
		}
		t.tick(time.Now(), start.Add(time.Duration(n)*tick))
		n++
		timer.Reset(time.Until(start.Add(time.Duration(n) * tick)))
	}
}
