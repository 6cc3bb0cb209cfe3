package lowprio

import (
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// setThreadNice sets the calling OS thread's nice value and Slice (Linux priorities are per
// thread). Where sched_setattr is refused (a seccomp filter), the nice value alone is set.
func setThreadNice(nice int) error {
	attr := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: 0 /* SCHED_OTHER */, Nice: int32(nice),
		Runtime: uint64(Slice.Nanoseconds())}
	if unix.SchedSetAttr(0, &attr, 0) == nil {
		return nil
	}
	if err := syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), nice); err != nil {
		return fmt.Errorf("set thread nice %d: %w", nice, err)
	}
	return nil
}
