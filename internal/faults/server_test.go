package faults_test

import (
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/internal/taskserverproc"
)

// The requestor every test acts as; a bearer token keeps it the same owner
// across server restarts.
const token = "tok-faults-5be1"

// Settings the servers run with: short leases and quick reaping, so lost
// work would be reaped within seconds (and so a wrong reap would show).
const (
	leaseDuration = 2 * time.Second
	reapInterval  = 250 * time.Millisecond
)

// startServer starts cmd/taskserver on store spec with the fixture tools
// and the test token, and waits until it listens. It is stopped when t
// ends. extra flags come last and win.
func startServer(t *testing.T, name, spec string, extra ...string) *taskserverproc.Proc {
	t.Helper()
	args := append(taskserverproc.Flags(spec, taskserverproc.TokenFile(t, token+" faults"), leaseDuration, reapInterval),
		"--poll-interval", "200ms",
		"--shutdown-grace", "2s",
	)
	return taskserverproc.Start(t, name, append(args, extra...)...)
}
