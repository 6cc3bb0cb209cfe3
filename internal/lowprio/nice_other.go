//go:build !linux

package lowprio

// setThreadNice is a no-op where priorities are not per thread: decodes run at normal priority.
func setThreadNice(int) error { return nil }
