package suites

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"
)

// extStdio drives a server command over stdio in the 2026-07-28 profile:
// each request is one JSON line carrying the per-request _meta, and every
// line the child writes to stdout is kept verbatim as evidence.
type extStdio struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string
	mu    sync.Mutex
	raw   []string
	done  chan struct{}
}

// startExtStdio starts argv (leading NAME=value words become environment
// variables) and begins reading its stdout line by line.
func startExtStdio(ctx context.Context, argv []string) (*extStdio, error) {
	var env []string
	for len(argv) > 0 && envAssignment.MatchString(argv[0]) {
		env, argv = append(env, argv[0]), argv[1:]
	}
	if len(argv) == 0 {
		return nil, errors.New("the command has only environment assignments")
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(cmd.Environ(), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %q: %w", argv[0], err)
	}
	s := &extStdio{cmd: cmd, stdin: stdin, lines: make(chan string, 256), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64*1024), 16<<20)
		for sc.Scan() {
			line := sc.Text()
			s.mu.Lock()
			s.raw = append(s.raw, line)
			s.mu.Unlock()
			select {
			case s.lines <- line:
			default:
			}
		}
	}()
	return s, nil
}

// send writes one request as a single line; version "" means 2026-07-28.
func (s *extStdio) send(id any, method, version string, params map[string]any) error {
	if version == "" {
		version = string(Protocol2026)
	}
	p := map[string]any{}
	for k, v := range params {
		p[k] = v
	}
	p["_meta"] = extMeta(version, capsFull)
	msg := map[string]any{"jsonrpc": "2.0", "method": method, "params": p}
	if id != nil {
		msg["id"] = id
	}
	return s.write(msg)
}

// write encodes msg as one line on the child's stdin.
func (s *extStdio) write(msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = s.stdin.Write(append(b, '\n'))
	return err
}

// next waits up to d for the next stdout line; ok is false on timeout or
// when stdout closed.
func (s *extStdio) next(d time.Duration) (line string, ok bool) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case line := <-s.lines:
		return line, true
	case <-s.done:
		select {
		case line := <-s.lines:
			return line, true
		default:
			return "", false
		}
	case <-t.C:
		return "", false
	}
}

// evidence is every stdout line read so far, verbatim.
func (s *extStdio) evidence() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.raw...)
}

// close ends stdin, gives the child a moment to exit, then kills it.
func (s *extStdio) close() {
	_ = s.stdin.Close()
	select {
	case <-s.done:
	case <-time.After(2 * time.Second):
	}
	if s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
	}
	_ = s.cmd.Wait()
}
