package testenv

import (
	"os/exec"
	"syscall"
)

// setChildAttrs makes the kernel kill a started server if the test binary
// dies without running StopAll.
func setChildAttrs(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
