// Package lowprio runs batch work (a transcriber decode, a synthesis: long C calls) on threads
// of lower scheduling priority, so the same machine's 20 ms senders and pacers, whose lateness
// is what callfleet measures and is judged on, preempt it. Nice work still gets every idle cycle,
// so nothing is slower when the machine has room.
package lowprio

import (
	"runtime"
	"time"
)

// Nice is the niceness callfleet's batch work runs at.
const Nice = 10

// Slice is the scheduler time slice batch threads ask for (Linux 6.12+ EEVDF, sched_attr's
// sched_runtime; older kernels ignore it). The default slice lets a running nice thread keep the
// CPU for up to ~3 ms after a sender wakes (EEVDF runs the current task to parity); at the
// minimum slice the sender gets it within 0.1 ms. Over 100 WebRTC callers on one core that took
// send lateness p99 from 6 ms to 5 ms (scripts/bench-fleet.sh), and the work keeps its fair
// share, unlike SCHED_IDLE (which did as well but starves the work when the machine is full).
const Slice = 100 * time.Microsecond

// Run runs f on an OS thread of its own at the given nice value (1–19) and Slice, and waits for
// it. The thread exits with f (a new one costs ~0.1 ms beside a 10–40 ms decode or synthesis),
// so no goroutine or thread outlives the work.
func Run(nice int, f func()) error {
	errc := make(chan error, 1)
	go func() {
		// Never unlocked: the thread exits with the goroutine, so its priority dies with it (an
		// unprivileged process cannot raise a thread's priority back).
		runtime.LockOSThread()
		if err := setThreadNice(nice); err != nil {
			errc <- err
			return
		}
		f()
		errc <- nil
	}()
	return <-errc
}
