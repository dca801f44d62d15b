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
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"
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

// aptLockPath serialises installs across the test binaries that go test
// runs in parallel: without it they fight over dpkg's lock and all but one
// fail.
const aptLockPath = "/tmp/mcptasks-apt.lock"

// aptWait makes apt itself wait for dpkg's lock held by anyone else.
var aptWait = []string{"-o", "DPkg::Lock::Timeout=600"}

// AptInstall installs Debian packages when installing is allowed. Calls
// from several processes at once take turns; packages already installed
// cost one quick apt-get run.
func AptInstall(pkgs ...string) error {
	if !InstallAllowed() {
		return fmt.Errorf("not installed, and %s is not 1", EnvInstall)
	}
	lock, err := os.OpenFile(aptLockPath, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return fmt.Errorf("apt lock: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("apt lock: %w", err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)

	// One package-list refresh per hour is plenty, whichever process did it.
	stamp := aptLockPath + ".updated"
	if fi, err := os.Stat(stamp); err != nil || time.Since(fi.ModTime()) > time.Hour {
		args := append(slices.Clone(aptWait), "update", "-qq")
		if out, err := exec.Command("apt-get", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("apt-get update: %v: %s", err, out)
		}
		_ = os.WriteFile(stamp, nil, 0o666)
	}
	args := append(slices.Clone(aptWait), "install", "-y", "-qq", "--no-install-recommends")
	cmd := exec.Command("apt-get", append(args, pkgs...)...)
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("apt-get install %v: %v: %s", pkgs, err, out)
	}
	return nil
}
