package lowprio

import (
	"fmt"
	"syscall"
)

// setThreadNice sets the calling OS thread's nice value (Linux priorities are per thread).
func setThreadNice(nice int) error {
	if err := syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), nice); err != nil {
		return fmt.Errorf("set thread nice %d: %w", nice, err)
	}
	return nil
}
