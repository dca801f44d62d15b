package multiinstance_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/internal/testenv"
	"github.com/mcptasks/mcptasks/tasks/client"
)

// Test identities: every instance accepts the same bearer tokens, so a
// requestor is the same owner whichever instance it talks to.
const (
	tokenAlice = "tok-alice-3f9d"
	tokenBob   = "tok-bob-81c2"
)

// Lease settings the instances run with: a lost worker's task is failed
// within about leaseDuration + reapInterval of the instance dying.
const (
	leaseDuration = time.Second
	reapInterval  = 250 * time.Millisecond
)

// instance is one server process.
type instance struct {
	name string
	url  string
	cmd  *exec.Cmd
	log  string // path of its stderr
	done chan struct{}
}

// startInstance starts a server process on store spec and waits until it
// listens. It is stopped (SIGTERM, then SIGKILL) when t ends. extra
// flags override the defaults of serverCommand.
func startInstance(t *testing.T, name, spec string, extra ...string) *instance {
	t.Helper()
	cmd := serverCommand(t, spec, extra...)
	logPath := filepath.Join(t.TempDir(), name+".log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start instance %s: %v", name, err)
	}
	in := &instance{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	urlc := make(chan string, 1)
	copied := make(chan struct{})
	go func() {
		// Copy the log to a file, picking the URL out of the line that
		// announces it: ... msg="serving MCP over Streamable HTTP" url=http://… store=…
		defer close(copied)
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(logf, line)
			if _, rest, ok := strings.Cut(line, " url="); ok && !sent {
				u, _, _ := strings.Cut(rest, " ")
				urlc <- u
				sent = true
			}
		}
	}()
	go func() {
		<-copied
		_ = cmd.Wait()
		_ = logf.Close()
		close(in.done)
	}()
	t.Cleanup(func() { in.stop(t) })
	select {
	case in.url = <-urlc:
	case <-in.done:
		t.Fatalf("instance %s exited before listening:\n%s", name, in.logTail())
	case <-time.After(60 * time.Second):
		t.Fatalf("instance %s did not listen within 60 s:\n%s", name, in.logTail())
	}
	return in
}

// kill ends the process with SIGKILL, as a crash would, and waits for it.
func (in *instance) kill(t *testing.T) {
	t.Helper()
	if err := in.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("kill -9 %s: %v", in.name, err)
	}
	<-in.done
}

// stop asks the process to shut down and kills it if it does not.
func (in *instance) stop(t *testing.T) {
	select {
	case <-in.done:
		return
	default:
	}
	_ = in.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-in.done:
	case <-time.After(10 * time.Second):
		t.Logf("instance %s ignored SIGTERM for 10 s; killing it", in.name)
		_ = in.cmd.Process.Kill()
		<-in.done
	}
	if t.Failed() {
		t.Logf("instance %s log:\n%s", in.name, in.logTail())
	}
}

func (in *instance) logTail() string {
	b, _ := os.ReadFile(in.log)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// connect returns an initialized client of in, authenticated with token.
func (in *instance) connect(t *testing.T, ctx context.Context, token string) *client.Client {
	t.Helper()
	c := client.New(in.url, client.WithHeader("Authorization", "Bearer "+token))
	if _, err := c.Connect(ctx); err != nil {
		t.Fatalf("connect to %s: %v", in.name, err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

// storeSpecs are the shared stores the tests run on, by name.
func postgresSpec(t *testing.T) string { return testenv.Postgres(t) }

func redisSpec(t *testing.T) string {
	url, prefix := testenv.Redis(t)
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	return url + sep + "prefix=" + prefix
}

// cursorKeyFile writes key to a fresh file and returns its path.
func cursorKeyFile(t *testing.T, key string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "cursor-key")
	if err := os.WriteFile(p, []byte(key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func tokenFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tokens")
	content := fmt.Sprintf("%s alice\n%s bob\n", tokenAlice, tokenBob)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
