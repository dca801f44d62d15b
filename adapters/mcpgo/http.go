package mcpgo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/protocol"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// maxBody bounds a POST body the adapter reads before deciding who serves it.
const maxBody = 8 << 20

const headerSessionID = "Mcp-Session-Id"

// Handler returns the Streamable HTTP endpoint: next is mcp-go's
// *server.StreamableHTTPServer (or anything serving it). Requests the tasks
// feature owns are answered here; everything else goes to next untouched.
func (a *Adapter) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { a.serveHTTP(next, w, r) })
}

// envelope is the part of a JSON-RPC message the adapter routes on.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

func (a *Adapter) serveHTTP(next http.Handler, w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if a.verify != nil {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		sub := ""
		var err error
		if ok && tok != "" {
			sub, err = a.verify(ctx, tok)
		}
		if !ok || tok == "" || err != nil || sub == "" {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			http.Error(w, "a valid bearer token is required", http.StatusUnauthorized)
			return
		}
		ctx = context.WithValue(ctx, subjectKey, sub)
		r = r.WithContext(ctx)
	}
	if a.authSubject != nil {
		sub, ok := a.authSubject(r)
		if !ok || sub == "" {
			w.Header().Set("WWW-Authenticate", "Bearer")
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		ctx = context.WithValue(ctx, subjectKey, sub)
		r = r.WithContext(ctx)
	}
	if !a.originAllowed(r) {
		http.Error(w, "origin not allowed", http.StatusForbidden)
		return
	}
	switch r.Method {
	case http.MethodGet, http.MethodDelete:
		if !a.knownSession(w, r) {
			return
		}
		if r.Method == http.MethodGet {
			a.serveGet(next, w, r)
			return
		}
		next.ServeHTTP(w, r)
		return
	case http.MethodPost:
	default:
		next.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "cannot read the request body", http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var env envelope
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' || json.Unmarshal(trimmed, &env) != nil {
		next.ServeHTTP(w, r) // mcp-go answers batches and malformed JSON
		return
	}
	if env.Method == "initialize" {
		next.ServeHTTP(w, r)
		return
	}
	if !a.knownSession(w, r) {
		return
	}
	if !a.ours(&env) {
		next.ServeHTTP(w, r)
		return
	}
	sid := r.Header.Get(headerSessionID)
	sess := a.session(sid)
	if v := r.Header.Get("MCP-Protocol-Version"); v != "" && !protocol.SupportedVersion(v) {
		http.Error(w, "unsupported MCP-Protocol-Version "+v, http.StatusBadRequest)
		return
	}
	owner, err := ownerOf(ctx, sid)
	if err != nil {
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	if env.Method == "" {
		if err := a.core.Respond(owner, env.ID, env.Result, env.Error); errors.Is(err, protocol.ErrUnknownResponse) {
			next.ServeHTTP(w, r) // an answer to one of mcp-go's own requests
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if len(env.ID) == 0 || string(env.ID) == "null" {
		w.WriteHeader(http.StatusAccepted) // a notification with a tasks method: nothing to answer
		return
	}
	c := &httpCall{session: sess, owner: owner, w: w}
	res, herr := a.handle(ctx, c, &env)
	c.reply(env.ID, res, herr)
}

// knownSession answers 400 to a request without a session id and 404 to
// one whose session never existed or has ended; mcp-go would serve both on
// a fresh session, which would leave the client's tasks without an owner.
// The adapter therefore needs mcp-go's stateful sessions (the default).
func (a *Adapter) knownSession(w http.ResponseWriter, r *http.Request) bool {
	sid := r.Header.Get(headerSessionID)
	if sid == "" {
		http.Error(w, "Mcp-Session-Id header is required", http.StatusBadRequest)
		return false
	}
	if s := a.session(sid); s == nil || s.stdio {
		http.Error(w, "unknown or ended session", http.StatusNotFound)
		return false
	}
	return true
}

// originAllowed checks the Origin header against DNS rebinding: requests
// without one (not from a browser), from a loopback origin or from an
// origin given to WithAllowedOrigins pass.
func (a *Adapter) originAllowed(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" || slices.Contains(a.origins, o) {
		return true
	}
	u, err := url.Parse(o)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// ours reports whether the tasks feature answers msg: tasks/* requests,
// answers to the core's own requests, and tools/call with params.task or
// for a tool that must run as a task.
func (a *Adapter) ours(env *envelope) bool {
	switch env.Method {
	case "tasks/get", "tasks/result", "tasks/list", "tasks/cancel":
		return true
	case "tools/call":
		var p struct {
			Name string          `json:"name"`
			Task json.RawMessage `json:"task"`
		}
		if json.Unmarshal(env.Params, &p) != nil {
			return false // mcp-go answers malformed params
		}
		if len(p.Task) > 0 && string(p.Task) != "null" {
			return true
		}
		t, ok := a.core.Tools().Lookup(p.Name)
		return ok && t.TaskSupport == TaskRequired
	case "":
		// A response: the core's requests have string ids it minted.
		return len(env.ID) > 0 && env.ID[0] == '"' && (env.Result != nil || env.Error != nil)
	}
	return false
}

// handle serves one request the tasks feature owns.
func (a *Adapter) handle(ctx context.Context, c protocol.Caller, env *envelope) (json.RawMessage, *tasks.RPCError) {
	if env.Method == "tools/call" {
		var p struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(env.Params, &p)
		if _, ok := a.core.Tools().Lookup(p.Name); !ok && a.srv.GetTool(p.Name) != nil {
			return nil, &tasks.RPCError{Code: wire.CodeMethodNotFound,
				Message: "tool " + p.Name + " cannot run as a task (its execution.taskSupport is not optional or required)"}
		}
	}
	res, err := a.core.Handle(ctx, c, env.Method, env.Params)
	if err != nil {
		return nil, a.core.WireError(env.Method, err)
	}
	return res, nil
}

// encodeReply builds the JSON-RPC answer to id.
func encodeReply(id, result json.RawMessage, rpcErr *tasks.RPCError) []byte {
	var m any
	if rpcErr != nil {
		m = struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   *tasks.RPCError `json:"error"`
		}{"2.0", id, rpcErr}
	} else {
		m = struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Result  json.RawMessage `json:"result"`
		}{"2.0", id, result}
	}
	b, err := json.Marshal(m)
	if err != nil {
		b, _ = json.Marshal(struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   *tasks.RPCError `json:"error"`
		}{"2.0", id, &tasks.RPCError{Code: wire.CodeInternalError, Message: "internal error: the result could not be encoded"}})
	}
	return b
}

// httpCall is one POST the adapter answers: plain JSON, or an SSE stream
// once the core sends a related message (an input request on tasks/result)
// before the answer.
type httpCall struct {
	*session
	owner tasks.Owner
	w     http.ResponseWriter
	mu    sync.Mutex
	sse   bool
	done  bool
}

// Owner is the requestor of this request.
func (c *httpCall) Owner() tasks.Owner { return c.owner }

// Session returns the session without the request, for what outlives it.
func (c *httpCall) Session() protocol.Session { return c.session }

// Send writes msg on the request's stream ahead of the answer.
func (c *httpCall) Send(msg []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return errors.New("mcpgo: the request was answered")
	}
	if !c.sse {
		h := c.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		c.w.WriteHeader(http.StatusOK)
		c.sse = true
	}
	return writeEvent(c.w, msg)
}

func (c *httpCall) reply(id, result json.RawMessage, rpcErr *tasks.RPCError) {
	b := encodeReply(id, result, rpcErr)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.done = true
	if c.sse {
		_ = writeEvent(c.w, b)
		return
	}
	c.w.Header().Set("Content-Type", "application/json")
	c.w.WriteHeader(http.StatusOK)
	_, _ = c.w.Write(b)
}

// writeEvent writes one SSE message event and flushes it.
func writeEvent(w http.ResponseWriter, msg []byte) error {
	buf := make([]byte, 0, len(msg)+24)
	buf = append(buf, "event: message\ndata: "...)
	buf = append(buf, msg...)
	buf = append(buf, "\n\n"...)
	if _, err := w.Write(buf); err != nil {
		return err
	}
	return http.NewResponseController(w).Flush()
}

// serveGet passes a standalone stream to mcp-go, through a writer that lets
// the adapter add its own requests between mcp-go's events.
func (a *Adapter) serveGet(next http.Handler, w http.ResponseWriter, r *http.Request) {
	sess := a.session(r.Header.Get(headerSessionID))
	if sess == nil || sess.stdio {
		next.ServeHTTP(w, r)
		return
	}
	sw := &sseWriter{w: w}
	detach := sess.attach(sw)
	defer detach()
	// Input requests waiting for this owner go out once mcp-go opened the
	// stream (see sseWriter.Flush).
	sw.onOpen = func() { go a.core.StreamOpened(sess) }
	next.ServeHTTP(sw, r)
	sw.close()
}

// sseWriter is the GET stream's writer: mcp-go writes each event with one
// Write, so events of the adapter can go in between under the same lock.
// Before mcp-go has answered with an event stream, adapter events wait.
type sseWriter struct {
	w      http.ResponseWriter
	onOpen func()

	mu      sync.Mutex
	status  int
	open    bool
	closed  bool
	pending [][]byte
}

func (s *sseWriter) Header() http.Header { return s.w.Header() }

func (s *sseWriter) WriteHeader(code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status = code
	s.w.WriteHeader(code)
}

func (s *sseWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.w.Write(p)
}

// Flush flushes, and the first time the stream is an open event stream
// sends what the adapter queued.
func (s *sseWriter) Flush() {
	s.mu.Lock()
	first := false
	if !s.open && !s.closed && s.status == http.StatusOK && strings.HasPrefix(s.w.Header().Get("Content-Type"), "text/event-stream") {
		s.open, first = true, true
		for _, m := range s.pending {
			_ = writeEvent(s.w, m)
		}
		s.pending = nil
	}
	_ = http.NewResponseController(s.w).Flush()
	s.mu.Unlock()
	if first && s.onOpen != nil {
		s.onOpen()
	}
}

// Unwrap lets http.ResponseController reach the connection (deadlines).
func (s *sseWriter) Unwrap() http.ResponseWriter { return s.w }

// inject writes an adapter message on the stream, or queues it until the
// stream is open.
func (s *sseWriter) inject(msg []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
	case !s.open:
		s.pending = append(s.pending, msg)
	default:
		_ = writeEvent(s.w, msg)
	}
}

func (s *sseWriter) close() {
	s.mu.Lock()
	s.closed = true
	s.pending = nil
	s.mu.Unlock()
}
