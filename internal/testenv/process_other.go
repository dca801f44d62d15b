//go:build !unix

package testenv

import (
	"errors"
	"os"
)

// processAlive cannot tell here, so it says yes: nothing is swept.
func processAlive(int) bool { return true }

// freeze is not possible without POSIX signals.
func freeze(*os.Process) error {
	return errors.New("testenv: cannot freeze a process on this platform")
}

// thaw is not possible without POSIX signals.
func thaw(*os.Process) error { return errors.New("testenv: cannot thaw a process on this platform") }
