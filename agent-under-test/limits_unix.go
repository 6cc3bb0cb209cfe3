//go:build unix

package agent

import "syscall"

// openFileLimit is the soft RLIMIT_NOFILE (getrlimit(2)), 0 when unknown.
func openFileLimit() uint64 {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0
	}
	return uint64(rl.Cur)
}
