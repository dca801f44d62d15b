package faults_test

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the kernel kill cmd if the test process dies first
// (a timeout, a kill), so no server outlives its test.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
