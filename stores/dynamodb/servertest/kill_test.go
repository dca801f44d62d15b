package servertest_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/internal/testenv"
	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/tasks/client"
)

// taskserver is a cmd/taskserver process started by a test.
type taskserver struct {
	cmd    *exec.Cmd
	url    string
	exited chan struct{}
}

func startTaskserver(t *testing.T, bin string, args ...string) *taskserver {
	t.Helper()
	port, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	logf, err := os.Create(filepath.Join(t.TempDir(), "taskserver.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"--addr", addr}, args...)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ts := &taskserver{cmd: cmd, url: "http://" + addr + "/mcp", exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); logf.Close(); close(ts.exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-ts.exited
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			c.Close()
			return ts
		}
		select {
		case <-ts.exited:
			out, _ := os.ReadFile(logf.Name())
			t.Fatalf("taskserver exited at start:\n%s", out)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("taskserver did not listen within 30s")
		}
	}
}

// TestKilledInstance runs two cmd/taskserver processes on one table. A task
// running on A when A is killed with SIGKILL ends as failed, seen from B,
// once A's lease lapses; a result completed on A stays readable on B.
func TestKilledInstance(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds cmd/taskserver")
	}
	ep := testenv.DynamoDB(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "taskserver")
	build := exec.Command("go", "build", "-o", bin, "github.com/mcptasks/mcptasks/cmd/taskserver")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build cmd/taskserver: %v\n%s", err, out)
	}
	tokens := filepath.Join(dir, "tokens.txt")
	if err := os.WriteFile(tokens, []byte("tok-alice alice\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	spec := "dynamodb://mcptasks_kill_" + hex.EncodeToString(b) + "?endpoint=" + ep + "&region=us-east-1&create=1"
	const lease, reap = 2 * time.Second, 500 * time.Millisecond
	args := []string{"--store", spec, "--fixtures", "--tokens", tokens, "--poll-interval", "100ms",
		"--lease", lease.String(), "--reap-interval", reap.String()}
	a := startTaskserver(t, bin, args...)
	bSrv := startTaskserver(t, bin, args...)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	connect := func(url string) *client.Client {
		c := client.New(url, client.WithHeader("Authorization", "Bearer tok-alice"))
		if _, err := c.Connect(ctx); err != nil {
			t.Fatalf("connect %s: %v", url, err)
		}
		return c
	}
	ca, cb := connect(a.url), connect(bSrv.url)

	done, err := ca.CallToolAsTask(ctx, "fixture_sleep", map[string]any{"ms": 10}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tk, err := ca.WaitTerminal(ctx, done.Task.TaskID, 20*time.Millisecond, 200*time.Millisecond, nil); err != nil || tk.Status != "completed" {
		t.Fatalf("short task on A: %+v, %v", tk, err)
	}
	running, err := ca.CallToolAsTask(ctx, "fixture_sleep", map[string]any{"ms": 600000}, nil)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // let A take and renew its lease
	if err := a.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-a.exited
	killed := time.Now()

	bound := lease + 2*reap + 5*time.Second
	var last *schema.GetTaskResult
	for time.Since(killed) < bound {
		tk, err := cb.GetTask(ctx, running.Task.TaskID)
		if err != nil {
			t.Fatalf("tasks/get on B: %v", err)
		}
		last = tk
		if tk.Terminal() {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if last == nil || last.Status != "failed" || last.Message() == "" {
		t.Fatalf("task of the killed instance after %s: %+v; want failed with a message", bound, last)
	}
	t.Logf("task of the killed instance failed %s after SIGKILL (lease %s, reap every %s): %q",
		time.Since(killed).Round(100*time.Millisecond), lease, reap, last.Message())
	res, err := cb.Result(ctx, done.Task.TaskID)
	if err != nil || len(res) == 0 {
		t.Fatalf("result completed on A, read on B: %s, %v", res, err)
	}
}
