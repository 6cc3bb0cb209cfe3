package stt

import "runtime"

// thread runs one decoder's work on an OS thread of its own at a lower scheduling priority
// (Config.Nice): a decode is one long C call, and on a busy machine it must not take CPU from the
// same process's 20 ms senders, whose lateness is what a load generator is judged on. Nice work
// still gets every idle cycle, so nothing is slower when the machine has room.
type thread struct {
	jobs chan func()
	done chan struct{}
}

// startThread starts the thread; fails only if the priority cannot be set.
func startThread(nice int) (*thread, error) {
	t := &thread{jobs: make(chan func()), done: make(chan struct{})}
	ready := make(chan error, 1)
	go func() {
		defer close(t.done)
		// Never unlocked: the thread exits with the goroutine, so its priority dies with it
		// (an unprivileged process cannot raise a thread's priority back).
		runtime.LockOSThread()
		if err := setThreadNice(nice); err != nil {
			ready <- err
			return
		}
		ready <- nil
		for job := range t.jobs {
			job()
		}
	}()
	if err := <-ready; err != nil {
		<-t.done
		return nil, err
	}
	return t, nil
}

// run does f on the thread and waits for it.
func (t *thread) run(f func()) {
	finished := make(chan struct{})
	t.jobs <- func() { f(); close(finished) }
	<-finished
}

// stop ends the thread once its current job is done.
func (t *thread) stop() {
	close(t.jobs)
	<-t.done
}
