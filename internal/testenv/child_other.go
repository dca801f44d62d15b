//go:build !linux

package testenv

import "os/exec"

// DieWithParent does nothing where the kernel has no parent-death signal;
// cleanups alone stop the child there.
func DieWithParent(*exec.Cmd) {}
