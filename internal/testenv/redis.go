package testenv

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// EnvRedisURL points Redis tests at a running server instead of starting one.
const EnvRedisURL = "MCPTASKS_REDIS_URL"

const redisInstallHint = "apt-get install -y --no-install-recommends redis-server"

var (
	redisOnce   sync.Once
	redisShared *RedisServer
	redisErr    error
)

// Redis returns the URL of the Redis server shared by this test binary and
// a key prefix no other call returns, so tests sharing the server never see
// each other's keys. The server is started on first use (on a free loopback
// port, in a temp dir, without persistence) and stopped by StopAll. When
// MCPTASKS_REDIS_URL is set its value is returned and nothing is started.
func Redis(tb testing.TB) (url string, prefix string) {
	tb.Helper()
	prefix = "mt" + randomHex(6) + ":"
	if u := os.Getenv(EnvRedisURL); u != "" {
		return u, prefix
	}
	redisOnce.Do(func() {
		var bin string
		bin, redisErr = redisBinary()
		if redisErr != nil {
			return
		}
		var dir string
		dir, redisErr = os.MkdirTemp("", "mcptasks-redis-")
		if redisErr != nil {
			return
		}
		s := &RedisServer{Dir: dir, bin: bin}
		if redisErr = s.Start(); redisErr != nil {
			os.RemoveAll(dir)
			return
		}
		redisShared = s
		atStop(func() {
			s.Stop()
			os.RemoveAll(dir)
		})
	})
	if redisErr != nil {
		Unavailable(tb, "redis-server", redisInstallHint, redisErr)
	}
	return redisShared.URL, prefix
}

// RedisOptions configures StartRedis.
type RedisOptions struct {
	// AOF turns on the append-only file with an fsync after every write
	// (--appendonly yes --appendfsync always), for crash tests.
	AOF bool
}

// RedisServer is a redis-server process started by this package. Its
// methods are safe for concurrent use.
type RedisServer struct {
	// URL is redis://127.0.0.1:PORT/0.
	URL string
	// Port is the TCP port on 127.0.0.1 it listens on; it stays the same
	// across restarts.
	Port int
	// Dir is its working directory, where the append-only file lives.
	Dir string

	bin  string
	aof  bool
	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
}

// StartRedis starts a redis-server of its own for tb (never the shared
// one, and never the MCPTASKS_REDIS_URL server, since tests using it kill
// and restart it). It is stopped when tb ends.
func StartRedis(tb testing.TB, opts RedisOptions) *RedisServer {
	tb.Helper()
	bin, err := redisBinary()
	if err != nil {
		Unavailable(tb, "redis-server", redisInstallHint, err)
	}
	s := &RedisServer{Dir: tb.TempDir(), bin: bin, aof: opts.AOF}
	if err := s.Start(); err != nil {
		tb.Fatalf("start redis-server: %v", err)
	}
	tb.Cleanup(s.Stop)
	return s
}

// Start starts the server (again), on the port and in the dir it used
// before, and waits until it answers PING, which with an append-only file
// means the data is loaded. Starting a running server is an error.
func (s *RedisServer) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return errors.New("redis-server is already running")
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		if s.Port == 0 || attempt > 0 && s.URL == "" {
			p, err := FreePort()
			if err != nil {
				return fmt.Errorf("free port: %w", err)
			}
			s.Port = p
		}
		lastErr = s.startLocked()
		if lastErr == nil {
			s.URL = fmt.Sprintf("redis://127.0.0.1:%d/0", s.Port)
			return nil
		}
	}
	return lastErr
}

func (s *RedisServer) startLocked() error {
	args := []string{
		"--bind", "127.0.0.1", "--port", strconv.Itoa(s.Port),
		"--dir", s.Dir, "--save", "", "--daemonize", "no",
		"--logfile", filepath.Join(s.Dir, "redis.log"),
		"--protected-mode", "no",
	}
	if s.aof {
		args = append(args, "--appendonly", "yes", "--appendfsync", "always")
	} else {
		args = append(args, "--appendonly", "no")
	}
	cmd := exec.Command(s.bin, args...)
	cmd.Dir = s.Dir
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", s.bin, err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := redisPing(s.Port)
		if err == nil {
			s.cmd, s.done = cmd, done
			return nil
		}
		select {
		case <-done:
			return fmt.Errorf("redis-server exited at start (port %d): %v; log: %s", s.Port, err, tailFile(filepath.Join(s.Dir, "redis.log")))
		default:
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-done
			return fmt.Errorf("redis-server on port %d not ready after 30s: %v", s.Port, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Kill stops the server with SIGKILL, as a crash would, and waits for the
// process to end.
func (s *RedisServer) Kill() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return errors.New("redis-server is not running")
	}
	err := s.cmd.Process.Kill()
	<-s.done
	s.cmd, s.done = nil, nil
	return err
}

// Restart kills the server and starts it again on the same port and dir.
func (s *RedisServer) Restart() error {
	if err := s.Kill(); err != nil {
		return err
	}
	return s.Start()
}

// Stop ends the server gracefully (SIGTERM, then SIGKILL after 10 s). It
// does nothing when the server is not running.
func (s *RedisServer) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = thaw(s.cmd.Process) // a paused server could not act on the signal
	Interrupt(s.cmd.Process, s.done, os.Interrupt, 10*time.Second)
	s.cmd, s.done = nil, nil
}

// redisBinary finds redis-server, installing it when allowed.
func redisBinary() (string, error) {
	if p, err := exec.LookPath("redis-server"); err == nil {
		return p, nil
	}
	if err := AptInstall("redis-server"); err != nil {
		return "", fmt.Errorf("redis-server not found in PATH: %w", err)
	}
	// The Debian package may start a system service; it listens on the
	// default port, which the tests never use.
	p, err := exec.LookPath("redis-server")
	if err != nil {
		return "", fmt.Errorf("redis-server still not found after installing it: %w", err)
	}
	return p, nil
}

// redisPing sends PING over RESP and expects +PONG (a server still loading
// its data answers -LOADING).
func redisPing(port int) error {
	c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if strings.TrimSpace(line) != "+PONG" {
		return fmt.Errorf("PING answered %q", strings.TrimSpace(line))
	}
	return nil
}

func tailFile(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(no log)"
	}
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Pause freezes the server (SIGSTOP): connections stay open and commands
// hang unanswered, as with an unreachable host. Its data stays in memory.
func (s *RedisServer) Pause() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return errors.New("redis-server is not running")
	}
	return freeze(s.cmd.Process)
}

// Resume lets a paused server run again (SIGCONT).
func (s *RedisServer) Resume() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return errors.New("redis-server is not running")
	}
	return thaw(s.cmd.Process)
}
