package stt

import "runtime"

// niced runs f on an OS thread of its own at a lower scheduling priority (Config.Nice) and waits
// for it: a decode is one long C call, and on a busy machine it must not take CPU from the same
// process's 20 ms senders, whose lateness is what a load generator is judged on. Nice work still
// gets every idle cycle, so nothing is slower when the machine has room. The thread exits with f
// (a new one costs ~0.1 ms beside a ~40 ms decode), so no goroutine or thread outlives a decode.
func niced(nice int, f func()) error {
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
