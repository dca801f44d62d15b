//go:build unix

package server_test

import (
	"syscall"
	"time"
)

// processCPU returns the user plus system CPU time this process has used:
// a benchmark reports it per operation, a measure that other load on a
// shared machine disturbs far less than wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
