package testenv

import (
	"os/exec"
	"syscall"
)

// DieWithParent makes the kernel kill cmd's process (SIGKILL) when the
// test binary that started it dies, even if no cleanup ran, so no server
// outlives its tests.
func DieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
