package multiinstance_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mcptasks/mcptasks/internal/testenv"
)

func TestMain(m *testing.M) {
	code := testenv.Main(m)
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}

var (
	buildOnce sync.Once
	binDir    string
	binPath   string
	buildErr  error
)

// taskserver builds cmd/taskserver once per test binary and returns its
// path.
func taskserver(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "mcptasks-multiinstance-")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "taskserver")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/mcptasks/mcptasks/cmd/taskserver").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build ./cmd/taskserver: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// serverCommand returns the command that runs one cmd/taskserver instance
// on store spec: a free loopback port, the fixture tools, the test
// tokens, no cursor key file (instances on one store URL derive the same
// key), and short leases so a lost instance's
// work fails quickly. extra flags come last and win.
func serverCommand(t *testing.T, spec string, extra ...string) *exec.Cmd {
	args := []string{
		"--addr", "127.0.0.1:0",
		"--store", spec,
		"--fixtures",
		"--tokens", tokenFile(t),
		"--lease", leaseDuration.String(),
		"--reap-interval", reapInterval.String(),
		"--log-level", "info",
	}
	cmd := exec.Command(taskserver(t), append(args, extra...)...)
	dieWithParent(cmd)
	return cmd
}
