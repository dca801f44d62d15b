package mcpgo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/protocol"
)

// TaskSupport says whether a tool may (TaskOptional) or must
// (TaskRequired) run as a task.
type TaskSupport = protocol.TaskSupport

// The task support levels a task tool can have.
const (
	TaskOptional = protocol.TaskOptional
	TaskRequired = protocol.TaskRequired
)

// TokenVerifier checks a bearer token and returns the subject it was
// issued to; tasks then belong to that subject, whichever session asks.
type TokenVerifier func(ctx context.Context, token string) (subject string, err error)

// Option configures an Adapter.
type Option func(*Adapter)

// WithLogger sets the logger; default slog.Default().
func WithLogger(l *slog.Logger) Option {
	return func(a *Adapter) {
		if l != nil {
			a.log = l
		}
	}
}

// WithTokenVerifier makes the HTTP handler require a bearer token on every
// request (401 without a valid one) and bind tasks to its subject. Without
// a verifier, tasks belong to the mcp-go session that created them.
func WithTokenVerifier(v TokenVerifier) Option {
	return func(a *Adapter) {
		a.authSubject = nil
		a.verify = v
	}
}

// WithAuthSubject takes the owner from authentication the server already
// does in front of the adapter (a middleware that verified the caller and
// put it in the request's context): subject returns the verified subject,
// or false to refuse the request with 401. It replaces WithTokenVerifier.
func WithAuthSubject(subject func(r *http.Request) (string, bool)) Option {
	return func(a *Adapter) {
		a.verify = nil
		a.authSubject = subject
	}
}

// WithStdioOwner names the requestor of a stdio connection (default: the
// stdio session). Give every process sharing a store for one user the same
// owner, and different users different ones.
func WithStdioOwner(owner string) Option { return func(a *Adapter) { a.stdioOwner = owner } }

// WithAllowedOrigins accepts browser requests from these origins (for
// example "https://app.example.com") besides loopback ones; other Origin
// headers are refused with 403.
func WithAllowedOrigins(origins ...string) Option {
	return func(a *Adapter) { a.origins = append(a.origins, origins...) }
}

// WithCoreOptions passes options to the protocol core (limits, logger).
func WithCoreOptions(opts ...protocol.Option) Option {
	return func(a *Adapter) { a.coreOpts = append(a.coreOpts, opts...) }
}

// Adapter serves tasks for one mcp-go server. Create it with New before
// the server serves, register task tools with AddTaskTool, and serve
// through Handler (Streamable HTTP) or ServeStdio. It is safe for
// concurrent use.
type Adapter struct {
	srv         *server.MCPServer
	core        *protocol.Core
	log         *slog.Logger
	verify      TokenVerifier
	authSubject func(r *http.Request) (string, bool)
	stdioOwner  string
	coreOpts    []protocol.Option
	origins     []string

	mu       sync.Mutex
	sessions map[string]*session // by mcp-go session id
}

// New installs tasks into srv. hooks must be the *server.Hooks given to
// srv with server.WithHooks: the adapter adds the hooks that advertise the
// tasks capability, restore execution.taskSupport in tools/list and track
// sessions. Tasks run on engine, whatever its store.
func New(srv *server.MCPServer, hooks *server.Hooks, engine *tasks.Engine, opts ...Option) (*Adapter, error) {
	if srv == nil || hooks == nil || engine == nil {
		return nil, errors.New("mcpgo: New needs a server, its hooks and an engine")
	}
	a := &Adapter{srv: srv, log: slog.Default(), sessions: make(map[string]*session)}
	for _, o := range opts {
		o(a)
	}
	core, err := protocol.New(engine, append([]protocol.Option{protocol.WithLogger(a.log)}, a.coreOpts...)...)
	if err != nil {
		return nil, err
	}
	a.core = core
	hooks.AddAfterInitialize(a.afterInitialize)
	hooks.AddAfterListTools(a.afterListTools)
	hooks.AddOnUnregisterSession(func(_ context.Context, s server.ClientSession) { a.forget(s.SessionID()) })
	return a, nil
}

// Core returns the protocol core the adapter serves tasks with.
func (a *Adapter) Core() *protocol.Core { return a.core }

// AddTaskTool registers a tool that may or must run as a task: mcp-go gets
// it as a plain tool (so its own task path never sees it) and the adapter
// announces support in tools/list. A call with params.task becomes a task
// whose work is handler, run through mcp-go on a context no request owns.
// A tool added with srv.AddTool instead never runs as a task.
func (a *Adapter) AddTaskTool(tool mcp.Tool, support TaskSupport, handler server.ToolHandlerFunc) error {
	if support != TaskOptional && support != TaskRequired {
		return fmt.Errorf("mcpgo: tool %q: task support must be optional or required, got %q", tool.Name, support)
	}
	tool.Execution = nil
	if err := a.core.Tools().Add(protocol.Tool{Name: tool.Name, TaskSupport: support, Handler: a.runDetached(tool.Name)}); err != nil {
		return err
	}
	a.srv.AddTool(tool, handler)
	return nil
}

// tasksCapability is what the adapter adds to capabilities.tasks.
var tasksCapability = func() *mcp.TasksCapability {
	var c mcp.TasksCapability
	if err := json.Unmarshal([]byte(`{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`), &c); err != nil {
		panic(err) // a constant: cannot fail
	}
	return &c
}()

// afterInitialize advertises tasks and records the session: its owner (set
// by the transport in ctx) and whether the client takes form elicitation.
func (a *Adapter) afterInitialize(ctx context.Context, _ any, req *mcp.InitializeRequest, res *mcp.InitializeResult) {
	res.Capabilities.Tasks = tasksCapability
	cs := server.ClientSessionFromContext(ctx)
	if cs == nil {
		return
	}
	id := cs.SessionID()
	if id == "" {
		return // a stateless request: nothing to route notifications to
	}
	e := req.Params.Capabilities.Elicitation
	form := e != nil && (e.Form != nil || e.URL == nil)
	owner, err := ownerOf(ctx, id)
	if err != nil {
		a.log.Warn("initialize without an identity; the session gets no task notifications", "err", err)
		return
	}
	s := &session{a: a, id: id, cs: cs, owner: owner, elicitForm: form, stdio: isStdio(ctx)}
	if s.stdio {
		s.out = stdioOut(ctx)
	}
	a.mu.Lock()
	old := a.sessions[id]
	a.sessions[id] = s
	a.mu.Unlock()
	if old != nil {
		a.core.RemoveSession(old)
	}
	a.core.AddSession(s)
}

// afterListTools restores execution.taskSupport on the task tools.
func (a *Adapter) afterListTools(_ context.Context, _ any, _ *mcp.ListToolsRequest, res *mcp.ListToolsResult) {
	for i := range res.Tools {
		t, ok := a.core.Tools().Lookup(res.Tools[i].Name)
		if !ok || t.TaskSupport == "" {
			continue
		}
		res.Tools[i].Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskSupport(t.TaskSupport)}
	}
}

// session returns the adapter's record of an mcp-go session.
func (a *Adapter) session(id string) *session {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[id]
}

// forget drops a session mcp-go unregistered.
func (a *Adapter) forget(id string) {
	a.mu.Lock()
	s := a.sessions[id]
	delete(a.sessions, id)
	a.mu.Unlock()
	if s != nil {
		a.core.RemoveSession(s)
	}
}

type ctxKey int

const (
	subjectKey ctxKey = iota
	stdioKey
	taskKey
)

// ownerOf resolves the owner of a request: the verified bearer subject the
// transport put in ctx, else the session.
func ownerOf(ctx context.Context, sessionID string) (tasks.Owner, error) {
	sub, _ := ctx.Value(subjectKey).(string)
	return tasks.ResolveOwner(tasks.Identity{Subject: sub, SessionID: sessionID}, false)
}

// TaskFromContext returns the task a tool handler runs as, when it runs as
// one: its id, variables, progress and input. Plain calls get false.
func TaskFromContext(ctx context.Context) (tasks.TaskContext, bool) {
	t, ok := ctx.Value(taskKey).(tasks.TaskContext)
	return t, ok
}
