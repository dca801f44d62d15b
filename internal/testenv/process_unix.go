//go:build unix

package testenv

import (
	"errors"
	"os"
	"syscall"
)

// processAlive reports whether a process with this pid exists.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// freeze stops p (SIGSTOP) without ending it.
func freeze(p *os.Process) error { return p.Signal(syscall.SIGSTOP) }

// thaw lets a frozen p run again (SIGCONT).
func thaw(p *os.Process) error { return p.Signal(syscall.SIGCONT) }
