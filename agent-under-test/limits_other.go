//go:build !unix

package agent

// openFileLimit is unknown off Unix: the memory alone bounds the default limit.
func openFileLimit() uint64 { return 0 }
