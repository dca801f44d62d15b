package main

import (
	"context"
	"io"
	"net/url"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/internal/testenv"
	"github.com/mcptasks/mcptasks/tasks/client"
)

const password = "Pw-S3cr3t.x"

// startServer runs the command with args until stop is called and returns
// the MCP URL it logged, and a function that stops it and returns its
// exit code.
func startServer(t *testing.T, stderr *testenv.SyncBuffer, args ...string) (string, func() int) {
	t.Helper()
	code := make(chan int, 1)
	go func() { code <- run(args, strings.NewReader(""), io.Discard, stderr) }()
	re := regexp.MustCompile(`url=(http://\S+)`)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := re.FindStringSubmatch(stderr.String()); m != nil {
			return m[1], func() int {
				if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
				select {
				case c := <-code:
					return c
				case <-time.After(20 * time.Second):
					t.Fatal("no shutdown after SIGTERM")
					return -1
				}
			}
		}
		select {
		case c := <-code:
			t.Fatalf("server exited with %d:\n%s", c, stderr.String())
		default:
		}
	}
	t.Fatalf("server did not start:\n%s", stderr.String())
	return "", nil
}

// runFixtureTask connects c, runs fixture_sleep as a task and waits for
// its result, failing t at the first error.
func runFixtureTask(ctx context.Context, t *testing.T, c *client.Client) {
	t.Helper()
	if _, err := c.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	ct, err := c.CallToolAsTask(ctx, "fixture_sleep", map[string]any{"ms": 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Result(ctx, ct.Task.TaskID); err != nil {
		t.Fatal(err)
	}
}

// The password of a store URL appears in no log line, neither while the
// server runs nor when the store cannot be opened.
func TestNoSecretInLogs(t *testing.T) {
	dsn := testenv.Postgres(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	// The test cluster trusts local connections, so any password works.
	u.User = url.UserPassword(u.User.Username(), password)
	var stderr testenv.SyncBuffer
	mcpURL, stop := startServer(t, &stderr, "--addr", "127.0.0.1:0", "--fixtures", "--log-level", "debug", "--store", u.String())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	runFixtureTask(ctx, t, client.New(mcpURL))
	if code := stop(); code != 0 {
		t.Errorf("exit code %d", code)
	}
	logs := stderr.String()
	if strings.Contains(logs, password) || strings.Contains(logs, "S3cr3t") {
		t.Errorf("the store password is in the logs:\n%s", logs)
	}
	if !strings.Contains(logs, "xxxxx@") {
		t.Errorf("the startup line does not show the redacted store:\n%s", logs)
	}

	for _, spec := range []string{
		"postgres://app:" + password + "@127.0.0.1:1/tasks?sslmode=disable&connect_timeout=2",
		"postgres://app:" + password + "@db:port/tasks",
		"redis://:" + password + "@127.0.0.1:1/0",
		"dynamodb://tbl?endpoint=http://k:" + password + "@127.0.0.1:port",
		"nosuch://u:" + password + "@x",
	} {
		var out testenv.SyncBuffer
		if code := run([]string{"--stdio", "--store", spec}, strings.NewReader(""), io.Discard, &out); code != 1 {
			t.Errorf("exit %d for a bad store", code)
		}
		if strings.Contains(out.String(), "S3cr3t") {
			t.Errorf("the store password is in the logs:\n%s", out.String())
		}
	}
}

// --allow-remote without tokens is refused unless explicitly wanted, and
// then warned about.
func TestAllowRemoteWithoutTokens(t *testing.T) {
	var stderr testenv.SyncBuffer
	if code := run([]string{"--addr", "0.0.0.0:0", "--allow-remote"}, strings.NewReader(""), io.Discard, &stderr); code != 1 ||
		!strings.Contains(stderr.String(), "--tokens") {
		t.Errorf("exit %d: %s", code, stderr.String())
	}
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/tokens", []byte("tok alice\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stderr = testenv.SyncBuffer{}
	if code := run([]string{"--addr", "0.0.0.0:0", "--allow-remote", "--tokens", dir + "/tokens", "--allow-anonymous"}, strings.NewReader(""), io.Discard, &stderr); code != 1 ||
		!strings.Contains(stderr.String(), "--allow-anonymous-remote") {
		t.Errorf("exit %d: %s", code, stderr.String())
	}
	stderr = testenv.SyncBuffer{}
	_, stop := startServer(t, &stderr, "--addr", "0.0.0.0:0", "--allow-remote", "--allow-anonymous-remote")
	if code := stop(); code != 0 {
		t.Errorf("exit code %d", code)
	}
	if !strings.Contains(stderr.String(), "level=WARN") || !strings.Contains(stderr.String(), "WITHOUT AUTHENTICATION") {
		t.Errorf("no warning:\n%s", stderr.String())
	}
}
