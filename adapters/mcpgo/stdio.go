package mcpgo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptasks/mcptasks/tasks/protocol"
)

// lineWriter serializes whole lines on stdout: mcp-go writes each message
// with one Write, and the adapter writes its own between them.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lineWriter) writeLine(msg []byte) error {
	buf := make([]byte, 0, len(msg)+1)
	buf = append(append(buf, msg...), '\n')
	_, err := l.Write(buf)
	return err
}

func isStdio(ctx context.Context) bool { return ctx.Value(stdioKey) != nil }

func stdioOut(ctx context.Context) *lineWriter {
	w, _ := ctx.Value(stdioKey).(*lineWriter)
	return w
}

// ServeStdio serves one client over newline-delimited JSON-RPC on in and
// out: the messages the tasks feature owns are answered here, the rest go
// to stdio.Listen through a pipe. It returns when in ends or ctx is done.
// mcp-go keeps one stdio session per process, so call it once.
func (a *Adapter) ServeStdio(ctx context.Context, stdio *server.StdioServer, in io.Reader, out io.Writer) error {
	lw := &lineWriter{w: out}
	ctx = context.WithValue(ctx, stdioKey, lw)
	if a.stdioOwner != "" {
		ctx = context.WithValue(ctx, subjectKey, a.stdioOwner)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pr, pw := io.Pipe()
	filtered := make(chan struct{})
	go func() {
		defer close(filtered)
		pw.CloseWithError(a.filterStdio(ctx, in, pw, lw))
	}()
	err := stdio.Listen(ctx, pr, lw)
	cancel()
	_ = pr.Close()
	// The filter ends with in; when Listen stopped for ctx, in may stay
	// open (a blocked read of stdin), so it gets a moment, not forever.
	select {
	case <-filtered:
	case <-time.After(time.Second):
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, io.ErrClosedPipe) {
		err = nil
	}
	return err
}

// filterStdio reads the client's lines: the adapter's go to the core, in
// their own goroutine when they may block; the others go to mcp-go.
func (a *Adapter) filterStdio(ctx context.Context, in io.Reader, toMCP io.Writer, out *lineWriter) error {
	r := bufio.NewReaderSize(in, 64<<10)
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if !a.stdioLine(ctx, line, out, &wg) {
				if _, werr := toMCP.Write(line); werr != nil {
					return werr
				}
				if line[len(line)-1] != '\n' {
					_, _ = toMCP.Write([]byte{'\n'})
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// stdioLine serves line if the tasks feature owns it and reports whether
// it did.
func (a *Adapter) stdioLine(ctx context.Context, line []byte, out *lineWriter, wg *sync.WaitGroup) bool {
	trimmed := bytes.TrimSpace(line)
	if trimmed[0] != '{' {
		return false
	}
	var env envelope
	if json.Unmarshal(trimmed, &env) != nil || !a.ours(&env) {
		return false
	}
	sess := a.session("stdio")
	if sess == nil {
		return false // not initialized yet: let mcp-go answer
	}
	if env.Method == "" {
		return a.core.Respond(sess.owner, env.ID, env.Result, env.Error) == nil
	}
	if len(env.ID) == 0 || string(env.ID) == "null" {
		return true
	}
	c := &stdioCall{session: sess}
	serve := func() {
		res, herr := a.handle(ctx, c, &env)
		_ = out.writeLine(encodeReply(env.ID, res, herr))
	}
	if protocol.LongRunning(env.Method) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			serve()
		}()
	} else {
		serve()
	}
	return true
}

// stdioCall is a request read from stdin; related messages go on stdout.
type stdioCall struct{ *session }

// Session returns the session without the request.
func (c *stdioCall) Session() protocol.Session { return c.session }

// Send writes msg on stdout.
func (c *stdioCall) Send(msg []byte) error { return c.out.writeLine(msg) }

var (
	_ protocol.Caller = (*stdioCall)(nil)
	_ protocol.Caller = (*httpCall)(nil)
)
