// Package taskserverproc runs the reference server, cmd/taskserver, as a
// real child process for end-to-end tests: it builds the binary once per
// test binary, starts instances with the flags a test chooses, learns
// each one's MCP URL from its log, keeps that log, and ends the process
// gently (SIGTERM) or as a crash would (SIGKILL).
//
// A test package that uses it calls Main from its TestMain so the built
// binary is removed (and testenv's engines stopped) when its tests end.
package taskserverproc

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

	"github.com/mcptasks/mcptasks/internal/testenv"
	"github.com/mcptasks/mcptasks/tasks/client"
)

// pkgPath is the import path of the server built by Binary.
const pkgPath = "github.com/mcptasks/mcptasks/cmd/taskserver"

// Time limits of Start and Stop; generous, for a loaded machine.
const (
	listenTimeout = 60 * time.Second
	stopTimeout   = 15 * time.Second
	// logTail is how many bytes of a failed test's server log Stop shows.
	logTail = 8000
)

// build is the one build of cmd/taskserver per test binary: a test binary
// is one process, and building per test would cost seconds each.
var build struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// Main runs the tests with testenv.Main, then removes the binary Binary
// built. Call it from TestMain: os.Exit(taskserverproc.Main(m)).
func Main(m *testing.M) int {
	code := testenv.Main(m)
	if build.dir != "" {
		_ = os.RemoveAll(build.dir)
	}
	return code
}

// Binary builds cmd/taskserver on first use and returns the path of the
// executable; it fails tb if the build fails.
func Binary(tb testing.TB) string {
	tb.Helper()
	build.once.Do(func() {
		build.dir, build.err = os.MkdirTemp("", "mcptasks-taskserver-")
		if build.err != nil {
			return
		}
		build.path = filepath.Join(build.dir, "taskserver")
		out, err := exec.Command("go", "build", "-o", build.path, pkgPath).CombinedOutput()
		if err != nil {
			build.err = fmt.Errorf("go build %s: %w\n%s", pkgPath, err, out)
		}
	})
	if build.err != nil {
		tb.Fatal(build.err)
	}
	return build.path
}

// Flags returns the flags a test server usually needs: a free loopback
// port, store spec, the fixture tools, the bearer tokens in file tokens,
// the given lease and reap interval, and info-level logs. Callers append
// their own; a flag given again later wins.
func Flags(spec, tokens string, lease, reapInterval time.Duration) []string {
	return []string{
		"--addr", "127.0.0.1:0",
		"--store", spec,
		"--fixtures",
		"--tokens", tokens,
		"--lease", lease.String(),
		"--reap-interval", reapInterval.String(),
		"--log-level", "info",
	}
}

// TokenFile writes a --tokens file with one "TOKEN SUBJECT" line per
// entry of lines into a directory tb removes, and returns its path.
func TokenFile(tb testing.TB, lines ...string) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), "tokens")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		tb.Fatal(err)
	}
	return p
}

// Proc is one running cmd/taskserver process.
type Proc struct {
	// Name labels the process in failures and logs.
	Name string
	// URL is the MCP endpoint the process announced.
	URL string

	cmd  *exec.Cmd
	done chan struct{} // closed once the process has exited

	mu  sync.Mutex
	log strings.Builder // its stderr, line by line
}

// Start runs cmd/taskserver with args and waits until it has logged the
// URL it serves on. The process dies with the test binary and is stopped
// (see Stop) when tb ends.
func Start(tb testing.TB, name string, args ...string) *Proc {
	tb.Helper()
	cmd := exec.Command(Binary(tb), args...)
	testenv.DieWithParent(cmd)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start %s: %v", name, err)
	}
	p := &Proc{Name: name, cmd: cmd, done: make(chan struct{})}
	urlc := make(chan string, 1)
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			p.mu.Lock()
			p.log.WriteString(line + "\n")
			p.mu.Unlock()
			if u, ok := announcedURL(line); ok && !sent {
				urlc <- u
				sent = true
			}
		}
	}()
	go func() {
		<-copied
		_ = cmd.Wait()
		close(p.done)
	}()
	tb.Cleanup(func() { p.Stop(tb) })
	select {
	case p.URL = <-urlc:
	case <-p.done:
		tb.Fatalf("%s exited before listening:\n%s", name, p.Log())
	case <-time.After(listenTimeout):
		tb.Fatalf("%s did not listen within %v:\n%s", name, listenTimeout, p.Log())
	}
	return p
}

// announcedURL picks the URL out of the server's startup line, which reads
// like `... msg="serving MCP over Streamable HTTP" url=http://… store=…`.
func announcedURL(line string) (string, bool) {
	_, rest, ok := strings.Cut(line, " url=")
	if !ok {
		return "", false
	}
	u, _, _ := strings.Cut(rest, " ")
	return u, true
}

// Kill ends the process with SIGKILL, as a crash would, and waits until
// it has exited.
func (p *Proc) Kill(tb testing.TB) {
	tb.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		tb.Fatalf("kill -9 %s: %v", p.Name, err)
	}
	<-p.done
}

// Stop asks a running process to shut down (SIGTERM), kills it if it is
// still running after a while, and shows the end of its log if tb failed.
// Stopping an exited process only does the latter.
func (p *Proc) Stop(tb testing.TB) {
	select {
	case <-p.done:
	default:
		if testenv.Interrupt(p.cmd.Process, p.done, syscall.SIGTERM, stopTimeout) {
			tb.Logf("%s ignored SIGTERM for %v; killed it", p.Name, stopTimeout)
		}
	}
	if tb.Failed() {
		log := p.Log()
		if len(log) > logTail {
			log = "…" + log[len(log)-logTail:]
		}
		tb.Logf("%s log:\n%s", p.Name, log)
	}
}

// Connect returns a client of p that has completed initialization and
// sends token as its bearer token; it is closed when tb ends.
func (p *Proc) Connect(ctx context.Context, tb testing.TB, token string) *client.Client {
	tb.Helper()
	c := client.New(p.URL, client.WithHeader("Authorization", "Bearer "+token))
	if _, err := c.Connect(ctx); err != nil {
		tb.Fatalf("connect to %s: %v", p.Name, err)
	}
	tb.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

// Log returns what the process has written to stderr so far.
func (p *Proc) Log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

// CountLog counts the log lines that contain every one of parts.
func (p *Proc) CountLog(parts ...string) int {
	n := 0
	for _, line := range strings.Split(p.Log(), "\n") {
		if containsAll(line, parts) {
			n++
		}
	}
	return n
}

func containsAll(line string, parts []string) bool {
	for _, s := range parts {
		if !strings.Contains(line, s) {
			return false
		}
	}
	return true
}
