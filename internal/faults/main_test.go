package faults_test

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
		binDir, buildErr = os.MkdirTemp("", "mcptasks-faults-")
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
