//go:build !unix

package client

import "os/exec"

// newProcessGroup does nothing where there are no process groups.
func newProcessGroup(*exec.Cmd) {}

// killProcess kills the child.
func killProcess(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
