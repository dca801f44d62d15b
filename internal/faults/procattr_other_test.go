//go:build !linux

package faults_test

import "os/exec"

// dieWithParent has no portable equivalent; the tests stop their servers.
func dieWithParent(*exec.Cmd) {}
