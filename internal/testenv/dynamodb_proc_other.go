//go:build !linux

package testenv

import "os/exec"

// setChildAttrs has nothing to add outside Linux.
func setChildAttrs(*exec.Cmd) {}
