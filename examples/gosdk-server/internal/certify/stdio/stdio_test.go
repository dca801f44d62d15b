// Package stdio certifies the example server over stdio: every client of
// the suite is a process of its own, identity B's processes share identity
// A's SQLite store.
package stdio_test

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcptasks/mcptasks/examples/gosdk-server/internal/certifytest"
	"github.com/mcptasks/mcptasks/suites"
)

func TestCertifyOverStdio(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "gosdk-server")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/mcptasks/mcptasks/examples/gosdk-server").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	command := []string{bin, "--stdio", "--store", "sqlite:" + filepath.Join(dir, "tasks.db"),
		"--poll-interval", "50ms", "--log-level", "warn"}
	cfg := certifytest.Config()
	cfg.URLs, cfg.Headers, cfg.HeadersB = nil, nil, nil
	cfg.Command, cfg.CommandB = command, command
	run, err := suites.CertifyServer(t.Context(), t, cfg,
		suites.WithReportDir(t.TempDir()), suites.WithImplementation("gosdk-server (stdio, sqlite)", "test"))
	if err != nil {
		t.Fatal(err)
	}
	// Over stdio no request carries credentials, so identity B is not a
	// second authorization context: the requirements that bind tasks to
	// one cannot be judged (isolation between sessions is, and passes).
	certifytest.Judge(t, run, "TASKS-SEC-001", "TASKS-SEC-006", "TASKS-SEC-007")
}
