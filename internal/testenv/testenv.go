// Package testenv starts real service engines (PostgreSQL, Redis, a
// DynamoDB-compatible server) on loopback for tests, once per test binary,
// and stops them when the binary's tests end.
//
// Environment:
//   - A DSN variable (MCPTASKS_POSTGRES_DSN, MCPTASKS_REDIS_URL,
//     MCPTASKS_DYNAMODB_ENDPOINT) points tests at an engine that is already
//     running; nothing is started then.
//   - MCPTASKS_INSTALL_SERVICES=1 installs a missing engine (apt or npm).
//   - MCPTASKS_REQUIRE_SERVICES=1 turns a missing engine into a test
//     failure instead of a skip. CI sets both.
//
// A test package that uses a service calls testenv.Main from its TestMain
// so the engines it started are stopped afterwards.
package testenv

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"sync"
	"testing"
)

// Environment variable names understood by this package.
const (
	EnvRequire = "MCPTASKS_REQUIRE_SERVICES"
	EnvInstall = "MCPTASKS_INSTALL_SERVICES"
)

var (
	stopMu sync.Mutex
	stops  []func()
)

// Main runs the tests of a package and then stops every engine this
// process started. Use it as: func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
func Main(m *testing.M) int {
	code := m.Run()
	StopAll()
	return code
}

// StopAll stops every engine started so far, newest first.
func StopAll() {
	stopMu.Lock()
	fns := stops
	stops = nil
	stopMu.Unlock()
	for i := len(fns) - 1; i >= 0; i-- {
		fns[i]()
	}
}

// atStop registers fn to run in StopAll.
func atStop(fn func()) {
	stopMu.Lock()
	stops = append(stops, fn)
	stopMu.Unlock()
}

// Required reports whether a missing engine must fail the tests.
func Required() bool { return os.Getenv(EnvRequire) == "1" }

// InstallAllowed reports whether missing engines may be installed.
func InstallAllowed() bool { return os.Getenv(EnvInstall) == "1" }

// Unavailable ends the current test because service could not be used:
// a failure when services are required, a skip (naming what to install)
// otherwise.
func Unavailable(tb testing.TB, service, install string, err error) {
	tb.Helper()
	msg := fmt.Sprintf("%s is not available: %v\n  to run these tests: %s\n  (or set %s=1 to install it automatically)", service, err, install, EnvInstall)
	if Required() {
		tb.Fatalf("%s\n  %s=1, so this is a failure, not a skip", msg, EnvRequire)
	}
	tb.Skip(msg)
}

// FreePort asks the kernel for a free TCP port on 127.0.0.1.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

var aptUpdate sync.Once

// AptInstall installs Debian packages when installing is allowed.
func AptInstall(pkgs ...string) error {
	if !InstallAllowed() {
		return fmt.Errorf("not installed, and %s is not 1", EnvInstall)
	}
	var updErr error
	aptUpdate.Do(func() {
		if out, err := exec.Command("apt-get", "update", "-qq").CombinedOutput(); err != nil {
			updErr = fmt.Errorf("apt-get update: %v: %s", err, out)
		}
	})
	if updErr != nil {
		return updErr
	}
	args := append([]string{"install", "-y", "-qq", "--no-install-recommends"}, pkgs...)
	cmd := exec.Command("apt-get", args...)
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("apt-get install %v: %v: %s", pkgs, err, out)
	}
	return nil
}
