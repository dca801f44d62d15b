package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// StdioURL is the endpoint name of a client that speaks to a child
// process over stdio (see Process).
const StdioURL = "stdio:"

// maxStdioLine bounds one message read from a child's stdout.
const maxStdioLine = 64 << 20

// maxStderr bounds how much of a child's stderr a Process keeps.
const maxStderr = 256 << 10

// Process is an MCP server started as a child process and spoken to with
// newline-delimited JSON-RPC on its stdin and stdout: the stdio transport.
// Its stderr is kept (the last 256 KiB) for reports.
//
// A Process plugs into Client as an http.RoundTripper (see NewStdio), so
// every client feature works unchanged: a posted request is written as
// one line and answered by an event stream that carries, in order, the
// messages the child writes until the response to that request; a posted
// notification or response is written and answered 202 at once; a GET
// opens a stream that receives the child's requests and notifications
// while it is open. Messages that answer no pending request go to the GET
// stream if one is open, else to the oldest pending request, else they
// wait for the next stream. One Process is one connection: one session.
type Process struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser

	wmu sync.Mutex // serialises writes to stdin

	mu      sync.Mutex
	pending map[string][]*stdioStream
	order   []*stdioStream
	get     *stdioStream
	backlog [][]byte
	ended   bool

	stderr  *tailBuffer
	done    chan struct{} // closed when stdout has ended
	waited  chan struct{} // closed when the process has exited
	waitErr error
	closeMu sync.Mutex
	closed  bool
}

// ProcessOption tunes StartProcess.
type ProcessOption func(*processOptions)

type processOptions struct{ stderr io.Writer }

// WithStderrCopy also copies everything the child writes on stderr to w
// (which must be safe for concurrent use when shared by several children).
func WithStderrCopy(w io.Writer) ProcessOption {
	return func(o *processOptions) { o.stderr = w }
}

// StartProcess starts argv as a child process with env added to the
// current environment (entries "NAME=value"). The context only bounds the
// start; the child runs until Close.
func StartProcess(ctx context.Context, argv []string, env []string, opts ...ProcessOption) (*Process, error) {
	var po processOptions
	for _, o := range opts {
		o(&po)
	}
	if len(argv) == 0 || argv[0] == "" {
		return nil, errors.New("stdio: empty command")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.WaitDelay = 2 * time.Second
	newProcessGroup(cmd)
	p := &Process{
		cmd:     cmd,
		pending: map[string][]*stdioStream{},
		stderr:  &tailBuffer{max: maxStderr},
		done:    make(chan struct{}),
		waited:  make(chan struct{}),
	}
	cmd.Stderr = p.stderr
	if po.stderr != nil {
		cmd.Stderr = io.MultiWriter(p.stderr, po.stderr)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("stdio: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("stdio: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("stdio: start %q: %w", argv[0], err)
	}
	p.stdin = stdin
	go p.readLoop(stdout)
	go func() {
		<-p.done
		p.waitErr = cmd.Wait()
		close(p.waited)
	}()
	return p, nil
}

// NewStdio returns an unconnected client that speaks to p. Options that
// replace the HTTP client are overridden.
func NewStdio(p *Process, opts ...Option) *Client {
	return New(StdioURL, append(opts, WithHTTPClient(p.HTTPClient()))...)
}

// HTTPClient returns an *http.Client whose transport is p.
func (p *Process) HTTPClient() *http.Client { return &http.Client{Transport: p} }

// Stderr returns what the child wrote on stderr so far (the last 256 KiB).
func (p *Process) Stderr() string { return p.stderr.String() }

// Exited reports whether the child's stdout has ended (it exited or
// closed it).
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Close ends the child: it closes its stdin, gives it grace to exit, then
// kills it (with its process group where the platform has one). It
// returns nil when the child exited on its own or was killed by Close.
func (p *Process) Close(grace time.Duration) error {
	p.closeMu.Lock()
	if p.closed {
		p.closeMu.Unlock()
		<-p.waited
		return nil
	}
	p.closed = true
	p.closeMu.Unlock()
	p.wmu.Lock()
	_ = p.stdin.Close()
	p.wmu.Unlock()
	select {
	case <-p.waited:
		return nil
	case <-time.After(grace):
	}
	killProcess(p.cmd)
	select {
	case <-p.waited:
	case <-time.After(5 * time.Second):
		return errors.New("stdio: the child did not exit after being killed")
	}
	return nil
}

// RoundTrip carries one HTTP request of Client over stdio.
func (p *Process) RoundTrip(req *http.Request) (*http.Response, error) {
	switch req.Method {
	case http.MethodGet:
		return p.openGet(req)
	case http.MethodPost:
	default:
		// No sessions to end over stdio.
		return response(req, http.StatusMethodNotAllowed, "", io.NopCloser(strings.NewReader(""))), nil
	}
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	body = bytes.TrimSpace(body)
	var head struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
	}
	isRequest := json.Unmarshal(body, &head) == nil && head.Method != nil && len(head.ID) > 0 && !isNull(head.ID)
	if !isRequest {
		if err := p.write(body); err != nil {
			return nil, err
		}
		return response(req, http.StatusAccepted, "", io.NopCloser(strings.NewReader(""))), nil
	}
	st := newStdioStream(req.Context(), p)
	st.id = canonicalID(head.ID)
	p.mu.Lock()
	if p.ended {
		p.mu.Unlock()
		return nil, fmt.Errorf("stdio: %w", p.exitError())
	}
	p.pending[st.id] = append(p.pending[st.id], st)
	p.order = append(p.order, st)
	p.flushBacklogLocked()
	p.mu.Unlock()
	if err := p.write(body); err != nil {
		st.Close()
		return nil, err
	}
	return response(req, http.StatusOK, "text/event-stream", st), nil
}

// openGet registers the stream for messages that answer no request.
func (p *Process) openGet(req *http.Request) (*http.Response, error) {
	st := newStdioStream(req.Context(), p)
	st.isGet = true
	p.mu.Lock()
	if p.ended {
		p.mu.Unlock()
		return nil, fmt.Errorf("stdio: %w", p.exitError())
	}
	if p.get != nil {
		p.get.finish(io.EOF)
	}
	p.get = st
	p.flushBacklogLocked()
	p.mu.Unlock()
	return response(req, http.StatusOK, "text/event-stream", st), nil
}

func response(req *http.Request, status int, ct string, body io.ReadCloser) *http.Response {
	h := http.Header{}
	if ct != "" {
		h.Set("Content-Type", ct)
	}
	return &http.Response{
		Status: fmt.Sprintf("%d %s", status, http.StatusText(status)), StatusCode: status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Body: body, ContentLength: -1, Request: req,
	}
}

// write sends one message as one line.
func (p *Process) write(msg []byte) error {
	line := make([]byte, 0, len(msg)+1)
	line = append(append(line, msg...), '\n')
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if _, err := p.stdin.Write(line); err != nil {
		return fmt.Errorf("stdio: write to the child: %w", err)
	}
	return nil
}

// readLoop routes every line the child writes.
func (p *Process) readLoop(stdout io.Reader) {
	defer close(p.done)
	r := bufio.NewReaderSize(stdout, 64<<10)
	for {
		line, err := readLine(r)
		if len(bytes.TrimSpace(line)) > 0 {
			p.route(bytes.TrimSpace(line))
		}
		if err != nil {
			break
		}
	}
	p.mu.Lock()
	p.ended = true
	for _, st := range p.order {
		st.finish(io.ErrUnexpectedEOF)
	}
	if p.get != nil {
		p.get.finish(io.EOF)
	}
	p.pending, p.order, p.get = map[string][]*stdioStream{}, nil, nil
	p.mu.Unlock()
}

// readLine reads one line of at most maxStdioLine bytes (longer lines are
// cut there).
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, isPrefix, err := r.ReadLine()
		if len(line)+len(chunk) <= maxStdioLine {
			line = append(line, chunk...)
		}
		if err != nil || !isPrefix {
			return line, err
		}
	}
}

// route hands one message to the stream it belongs to.
func (p *Process) route(msg []byte) {
	var head struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
	}
	_ = json.Unmarshal(msg, &head)
	p.mu.Lock()
	defer p.mu.Unlock()
	if head.Method == nil && len(head.ID) > 0 {
		id := canonicalID(head.ID)
		if sts := p.pending[id]; len(sts) > 0 {
			st := sts[0]
			st.push(msg)
			st.finish(io.EOF)
			p.unregisterLocked(st)
			return
		}
	}
	switch {
	case p.get != nil:
		p.get.push(msg)
	case len(p.order) > 0:
		p.order[0].push(msg)
	default:
		p.backlog = append(p.backlog, msg)
	}
}

// flushBacklogLocked hands the waiting messages to the first stream open.
func (p *Process) flushBacklogLocked() {
	if len(p.backlog) == 0 {
		return
	}
	st := p.get
	if st == nil && len(p.order) > 0 {
		st = p.order[0]
	}
	if st == nil {
		return
	}
	for _, m := range p.backlog {
		st.push(m)
	}
	p.backlog = nil
}

// unregisterLocked forgets a stream.
func (p *Process) unregisterLocked(st *stdioStream) {
	if st.isGet {
		if p.get == st {
			p.get = nil
		}
		return
	}
	sts := p.pending[st.id]
	for i, s := range sts {
		if s == st {
			sts = append(sts[:i:i], sts[i+1:]...)
			break
		}
	}
	if len(sts) == 0 {
		delete(p.pending, st.id)
	} else {
		p.pending[st.id] = sts
	}
	for i, s := range p.order {
		if s == st {
			p.order = append(p.order[:i:i], p.order[i+1:]...)
			break
		}
	}
}

// exitError says why the child is gone.
func (p *Process) exitError() error {
	select {
	case <-p.waited:
		if p.waitErr != nil {
			return fmt.Errorf("the child process ended (%v)", p.waitErr)
		}
	case <-time.After(100 * time.Millisecond):
	}
	return errors.New("the child process closed its stdout")
}

// canonicalID is the compact form of a JSON-RPC id, for matching.
func canonicalID(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(bytes.TrimSpace(raw))
	}
	return b.String()
}

// stdioStream is the event-stream body of one answer: messages are queued
// without bound, so the reader of stdout never waits for a slow consumer.
type stdioStream struct {
	ctx   context.Context
	p     *Process
	id    string
	isGet bool

	mu     sync.Mutex
	buf    bytes.Buffer
	err    error // set once finished
	signal chan struct{}
}

func newStdioStream(ctx context.Context, p *Process) *stdioStream {
	return &stdioStream{ctx: ctx, p: p, signal: make(chan struct{}, 1)}
}

// push queues one message as an event.
func (s *stdioStream) push(msg []byte) {
	s.mu.Lock()
	if s.err == nil {
		s.buf.WriteString("data: ")
		s.buf.Write(msg)
		s.buf.WriteString("\n\n")
	}
	s.mu.Unlock()
	s.wake()
}

// finish ends the stream once what is queued has been read.
func (s *stdioStream) finish(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
	s.wake()
}

func (s *stdioStream) wake() {
	select {
	case s.signal <- struct{}{}:
	default:
	}
}

// Read returns queued events, waiting for more until the stream is
// finished or the request's context ends.
func (s *stdioStream) Read(b []byte) (int, error) {
	for {
		s.mu.Lock()
		if s.buf.Len() > 0 {
			n, _ := s.buf.Read(b)
			s.mu.Unlock()
			return n, nil
		}
		err := s.err
		s.mu.Unlock()
		if err != nil {
			return 0, err
		}
		select {
		case <-s.signal:
		case <-s.ctx.Done():
			s.finish(s.ctx.Err())
		}
	}
}

// Close forgets the stream; messages for it go elsewhere from now on.
func (s *stdioStream) Close() error {
	s.finish(io.EOF)
	s.p.mu.Lock()
	s.p.unregisterLocked(s)
	s.p.mu.Unlock()
	return nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu   sync.Mutex
	max  int
	buf  []byte
	lost bool
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0:0], t.buf[over:]...)
		t.lost = true
	}
	return len(b), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.lost {
		return "(earlier output cut)\n" + string(t.buf)
	}
	return string(t.buf)
}
