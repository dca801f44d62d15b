// Package stdio certifies the example mcp-go server over stdio: every
// client of a spec is a child process (this test binary, re-executed as
// the server) on one SQLite store; identity B is another owner on it.
package stdio_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcptasks/mcptasks/examples/mcpgo-server/app"
	"github.com/mcptasks/mcptasks/examples/mcpgo-server/certify/internal/serve"
	"github.com/mcptasks/mcptasks/suites"
)

const childEnv = "MCPGO_EXAMPLE_STDIO_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(child(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// child serves one stdio connection, as the example's --stdio does.
func child(args []string) int {
	fs := flag.NewFlagSet("child", flag.ContinueOnError)
	store := fs.String("store", "", "store URL")
	owner := fs.String("owner", "", "requestor")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ctx := context.Background()
	a, err := app.New(ctx, app.Options{Store: *store, StdioOwner: *owner, PollInterval: 50_000_000})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	err = a.ServeStdio(ctx, os.Stdin, os.Stdout)
	_ = a.Close(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func TestCertifyOverStdio(t *testing.T) {
	store := "sqlite:" + filepath.Join(t.TempDir(), "tasks.db")
	cmd := func(owner string) []string {
		return []string{childEnv + "=1", os.Args[0], "-store=" + store, "-owner=" + owner}
	}
	run, err := suites.CertifyServer(t.Context(), t, suites.ServerConfig{
		Command:  cmd("alice"),
		CommandB: cmd("bob"),
		Fixtures: suites.FixtureMap(app.Fixtures),
	}, suites.WithReportDir(t.TempDir()), suites.WithImplementation("mcpgo-example", "stdio"))
	if err != nil {
		t.Fatal(err)
	}
	serve.RequireZeroFailures(t, run)
}
