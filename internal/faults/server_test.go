package faults_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/tasks/client"
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

// server is one cmd/taskserver process.
type server struct {
	name string
	url  string
	cmd  *exec.Cmd
	done chan struct{}

	mu  sync.Mutex
	log strings.Builder // its stderr (slog text lines)
}

// startServer starts cmd/taskserver on store spec with the fixture tools
// and waits until it listens. It is stopped when t ends.
func startServer(t *testing.T, name, spec string, extra ...string) *server {
	t.Helper()
	args := []string{
		"--addr", "127.0.0.1:0",
		"--store", spec,
		"--fixtures",
		"--tokens", tokenFile(t),
		"--lease", leaseDuration.String(),
		"--reap-interval", reapInterval.String(),
		"--poll-interval", "200ms",
		"--shutdown-grace", "2s",
		"--log-level", "info",
	}
	cmd := exec.Command(taskserver(t), append(args, extra...)...)
	dieWithParent(cmd)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	s := &server{name: name, cmd: cmd, done: make(chan struct{})}
	urlc := make(chan string, 1)
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			s.mu.Lock()
			s.log.WriteString(line + "\n")
			s.mu.Unlock()
			// msg="serving MCP over Streamable HTTP" url=http://… store=…
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
		close(s.done)
	}()
	t.Cleanup(func() { s.stop(t) })
	select {
	case s.url = <-urlc:
	case <-s.done:
		t.Fatalf("%s exited before listening:\n%s", name, s.logText())
	case <-time.After(60 * time.Second):
		t.Fatalf("%s did not listen within 60 s:\n%s", name, s.logText())
	}
	return s
}

// kill ends the process with SIGKILL and waits for it.
func (s *server) kill(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("kill -9 %s: %v", s.name, err)
	}
	<-s.done
}

// stop asks the process to end (SIGTERM), kills it after 15 s, and shows
// its log when the test failed.
func (s *server) stop(t *testing.T) {
	select {
	case <-s.done:
	default:
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(15 * time.Second):
			t.Logf("%s ignored SIGTERM for 15 s; killing it", s.name)
			_ = s.cmd.Process.Kill()
			<-s.done
		}
	}
	if t.Failed() {
		log := s.logText()
		if len(log) > 8000 {
			log = "…" + log[len(log)-8000:]
		}
		t.Logf("%s log:\n%s", s.name, log)
	}
}

func (s *server) logText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

// countLog counts the log lines containing every one of parts.
func (s *server) countLog(parts ...string) int {
	n := 0
	for _, line := range strings.Split(s.logText(), "\n") {
		if containsAll(line, parts) {
			n++
		}
	}
	return n
}

func containsAll(line string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(line, p) {
			return false
		}
	}
	return true
}

// connect returns an initialized client of s.
func (s *server) connect(t *testing.T, ctx context.Context) *client.Client {
	t.Helper()
	c := client.New(s.url, client.WithHeader("Authorization", "Bearer "+token))
	if _, err := c.Connect(ctx); err != nil {
		t.Fatalf("connect to %s: %v", s.name, err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

func tokenFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(p, []byte(fmt.Sprintf("%s faults\n", token)), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
