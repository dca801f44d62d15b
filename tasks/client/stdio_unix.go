//go:build unix

package client

import (
	"os/exec"
	"syscall"
)

// newProcessGroup puts the child in its own process group, so that Close
// also ends what it started (for example the program under `go run`).
func newProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killProcess kills the child's process group.
func killProcess(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Process.Kill()
}
