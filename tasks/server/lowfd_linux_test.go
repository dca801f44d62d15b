//go:build linux

package server_test

import (
	"context"
	"os/exec"
	"syscall"
)

// setNoFile lowers the process's open-file limit (soft and hard) to n.
func setNoFile(n uint64) error {
	return syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: n, Max: n})
}

func execCommand(ctx context.Context, name string, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, name, args...)
}
