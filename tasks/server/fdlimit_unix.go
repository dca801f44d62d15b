//go:build unix

package server

import "syscall"

// fdReserve is how many descriptors the connection cap leaves for
// everything else the process opens (store connections, files, the
// listener itself).
const fdReserve = 64

// fdBudget returns how many client connections fit under the process's
// open-file limit, or 0 when the limit is unknown or very large.
func fdBudget() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur > 1<<30 {
		return 0
	}
	return max(int(rl.Cur)-fdReserve, 16)
}
