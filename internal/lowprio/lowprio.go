// Package lowprio runs batch work (a transcriber decode, a synthesis: long C calls) on threads
// of lower scheduling priority, so the same machine's 20 ms senders and pacers, whose lateness
// is what callfleet measures and is judged on, preempt it. Nice work still gets every idle cycle,
// so nothing is slower when the machine has room.
package lowprio

import "runtime"

// Nice is the niceness callfleet's batch work runs at.
const Nice = 10

// Run runs f on an OS thread of its own at the given nice value (1–19) and waits for it. The
// thread exits with f (a new one costs ~0.1 ms beside a 10–40 ms decode or synthesis), so no
// goroutine or thread outlives the work.
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
