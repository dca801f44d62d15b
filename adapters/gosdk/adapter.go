package gosdk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/protocol"
)

// The task methods the adapter serves as custom methods of the SDK.
var taskMethods = []string{"tasks/get", "tasks/result", "tasks/list", "tasks/cancel"}

// OwnerFunc decides which requestor a request acts for: the tasks it
// creates belong to that owner, and it sees no other owner's tasks.
// extra is the SDK's per-request data (nil when the SDK has none).
type OwnerFunc func(ss *mcp.ServerSession, extra *mcp.RequestExtra) (tasks.Owner, error)

// Options configures Install. The zero value is usable.
type Options struct {
	// Logger receives the adapter's and the core's logs; default
	// slog.Default().
	Logger *slog.Logger
	// Owner replaces the default owner rule: the bearer token's user
	// (TokenInfo.UserID) when the SDK's auth middleware verified one, else
	// the session.
	Owner OwnerFunc
	// Core are extra options for the protocol core (limits, a shared tool
	// registry, the server's name).
	Core []protocol.Option
}

// Adapter serves MCP tasks for one *mcp.Server of the official Go SDK on
// a tasks.Engine (and so on any tasks.Store). Create it with Install.
type Adapter struct {
	server *mcp.Server
	core   *protocol.Core
	log    *slog.Logger
	owner  OwnerFunc

	mu       sync.Mutex
	sessions map[*mcp.ServerSession]*sessionState
	byID     map[string]*sessionState
}

// Install adds tasks to server: the tasks/get, tasks/result, tasks/list
// and tasks/cancel methods, task-augmented tools/call for the tools added
// with AddTool, capabilities.tasks in the initialize result and
// execution.taskSupport in tools/list. Tasks live in engine's store.
//
// The SDK drops params.task from tools/call, so a server must also serve
// through the adapter's wrappers: Handler in front of the SDK's
// Streamable HTTP handler, Transport (or Run, Connect) for stdio and other
// transports. Install once per server, before it serves.
func Install(server *mcp.Server, engine *tasks.Engine, opts *Options) (*Adapter, error) {
	if server == nil || engine == nil {
		return nil, errors.New("gosdk: Install needs a server and an engine")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Owner == nil {
		o.Owner = DefaultOwner
	}
	core, err := protocol.New(engine, append([]protocol.Option{protocol.WithLogger(o.Logger)}, o.Core...)...)
	if err != nil {
		return nil, fmt.Errorf("gosdk: %w", err)
	}
	a := &Adapter{
		server:   server,
		core:     core,
		log:      o.Logger,
		owner:    o.Owner,
		sessions: make(map[*mcp.ServerSession]*sessionState),
		byID:     make(map[string]*sessionState),
	}
	for _, m := range taskMethods {
		method := m
		err := mcp.AddReceivingCustomMethod(server, method,
			func(ctx context.Context, ss *mcp.ServerSession, p *rawParams) (*rawResult, error) {
				// Reached only when the adapter's middleware was bypassed;
				// the owner is then decided without the request's extra.
				res, err := a.tasksMethod(ctx, ss, nil, method, p)
				if err != nil {
					return nil, err
				}
				return res.(*rawResult), nil
			})
		if err != nil {
			return nil, fmt.Errorf("gosdk: registering %s: %w", method, err)
		}
	}
	server.AddReceivingMiddleware(a.middleware)
	return a, nil
}

// Core returns the protocol core the adapter runs on.
func (a *Adapter) Core() *protocol.Core { return a.core }

// Engine returns the task engine.
func (a *Adapter) Engine() *tasks.Engine { return a.core.Engine() }

// Server returns the SDK server the adapter is installed in.
func (a *Adapter) Server() *mcp.Server { return a.server }

// DefaultOwner is the default owner rule: "sub:<UserID>" when the request
// carries verified token info with a user id, else "session:<id>" of the
// SDK session (a per-connection id for transports without session ids,
// such as stdio).
func DefaultOwner(ss *mcp.ServerSession, extra *mcp.RequestExtra) (tasks.Owner, error) {
	id := tasks.Identity{}
	if extra != nil && extra.TokenInfo != nil {
		id.Subject = extra.TokenInfo.UserID
	}
	if ss != nil {
		id.SessionID = ss.ID()
	}
	return tasks.ResolveOwner(id, false)
}

// OwnerOf returns the owner a request of session ss with extra acts for:
// the adapter's owner rule, with the adapter's own id of the session for
// transports without session ids. Packages built on the adapter (such as
// gosdkflow) use it so that what they create belongs to the same owner
// as the tasks the adapter serves.
func (a *Adapter) OwnerOf(ss *mcp.ServerSession, extra *mcp.RequestExtra) (tasks.Owner, error) {
	if ss == nil {
		return "", errors.New("gosdk: a request without a session has no owner")
	}
	return a.ownerOf(a.state(ss), extra)
}

// ownerOf applies the owner rule, falling back to the adapter's own id of
// the session when the transport has none.
func (a *Adapter) ownerOf(st *sessionState, extra *mcp.RequestExtra) (tasks.Owner, error) {
	o, err := a.owner(st.ss, extra)
	if errors.Is(err, tasks.ErrAnonymous) && st.ss.ID() == "" {
		return tasks.Owner("session:" + st.id), nil
	}
	return o, err
}

// middleware is the receiving middleware Install adds.
func (a *Adapter) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "initialize":
			res, err := next(ctx, method, req)
			if err != nil {
				return res, err
			}
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
				// Known from now on, e.g. to its GET stream and polls.
				st := a.state(ss)
				user := ""
				if e := req.GetExtra(); e != nil && e.TokenInfo != nil {
					user = e.TokenInfo.UserID
				}
				st.user.Store(&user)
				st.ready.Store(true)
			}
			return a.patch(res, a.core.PatchInitialize)
		case "tools/list":
			res, err := next(ctx, method, req)
			if err != nil {
				return res, err
			}
			return a.patch(res, a.core.PatchToolsList)
		case "tools/call":
			return a.toolsCall(ctx, next, req)
		case "tasks/get", "tasks/result", "tasks/list", "tasks/cancel":
			ss, _ := req.GetSession().(*mcp.ServerSession)
			p, _ := req.GetParams().(*rawParams)
			return a.tasksMethod(ctx, ss, req.GetExtra(), method, p)
		}
		return next(ctx, method, req)
	}
}

// patch marshals an SDK result and rewrites it with fn.
func (a *Adapter) patch(res mcp.Result, fn func(json.RawMessage) (json.RawMessage, error)) (mcp.Result, error) {
	b, err := marshal(res)
	if err != nil {
		return nil, err
	}
	out, err := fn(b)
	if err != nil {
		return nil, err
	}
	return &rawResult{raw: out}, nil
}

// tasksMethod serves tasks/get, tasks/result, tasks/list and tasks/cancel.
func (a *Adapter) tasksMethod(ctx context.Context, ss *mcp.ServerSession, extra *mcp.RequestExtra, method string, p *rawParams) (mcp.Result, error) {
	if ss == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error: request without a session"}
	}
	st := a.state(ss)
	owner, err := a.ownerOf(st, extra)
	if err != nil {
		return nil, toWire(a.core.WireError(method, err))
	}
	var params json.RawMessage
	if p != nil {
		params = p.raw
	}
	res, err := a.core.Handle(ctx, &caller{session: st.session(owner), ctx: ctx}, method, params)
	if err != nil {
		return nil, toWire(a.core.WireError(method, err))
	}
	return &rawResult{raw: res}, nil // the only result type: see the custom method handler
}

// toolsCall routes a tools/call: calls of tools the adapter knows (added
// with AddTool), and every task-augmented call, go through the protocol
// core; plain calls of other tools go straight to the SDK.
func (a *Adapter) toolsCall(ctx context.Context, next mcp.MethodHandler, req mcp.Request) (mcp.Result, error) {
	creq, ok := req.(*mcp.CallToolRequest)
	if !ok || creq.Params == nil {
		return next(ctx, "tools/call", req)
	}
	meta := map[string]any(creq.Params.Meta)
	task, asTask := takeCarriedTask(meta)
	_, known := a.core.Tools().Lookup(creq.Params.Name)
	if !known {
		if !asTask {
			return next(ctx, "tools/call", req)
		}
		if a.sdkHasTool(ctx, next, creq) {
			return nil, toWire(&tasks.RPCError{Code: jsonrpc.CodeMethodNotFound,
				Message: fmt.Sprintf("tool %q cannot run as a task (execution.taskSupport is not optional or required)", creq.Params.Name)})
		}
	}
	ss := creq.Session
	if ss == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error: request without a session"}
	}
	st := a.state(ss)
	owner, err := a.ownerOf(st, creq.Extra)
	if err != nil {
		return nil, toWire(a.core.WireError("tools/call", err))
	}
	raw, err := rebuildCall(creq.Params, meta, task, asTask)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid params: " + err.Error()}
	}
	// The core runs on a context that keeps none of the SDK's request
	// values, so that a task (which outlives the request) never writes to
	// the finished request's stream; it ends with the request all the same.
	pc := &pendingCall{next: next, req: creq, reqCtx: ctx}
	hctx, cancel := context.WithCancelCause(context.WithValue(context.Background(), pendingKey{}, pc))
	stop := context.AfterFunc(ctx, func() { cancel(context.Cause(ctx)) })
	defer func() { stop(); cancel(nil) }()
	res, err := a.core.Handle(hctx, &caller{session: st.session(owner), ctx: ctx}, "tools/call", raw)
	if err != nil {
		return nil, toWire(a.core.WireError("tools/call", err))
	}
	return &rawResult{raw: res}, nil
}

// rebuildCall builds the raw tools/call params the core reads.
func rebuildCall(p *mcp.CallToolParamsRaw, meta map[string]any, task json.RawMessage, asTask bool) (json.RawMessage, error) {
	type call struct {
		Meta      map[string]any  `json:"_meta,omitempty"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments,omitempty"`
		Task      json.RawMessage `json:"task,omitempty"`
	}
	c := call{Meta: meta, Name: p.Name, Arguments: p.Arguments}
	if asTask {
		c.Task = task
	}
	return json.Marshal(c)
}

// sdkHasTool reports whether the SDK server lists a tool by that name
// (only asked for task-augmented calls of tools the adapter does not
// know, to tell "cannot run as a task" from "unknown tool").
func (a *Adapter) sdkHasTool(ctx context.Context, next mcp.MethodHandler, creq *mcp.CallToolRequest) bool {
	params := &mcp.ListToolsParams{}
	for range 100 {
		res, err := next(ctx, "tools/list", &mcp.ListToolsRequest{Session: creq.Session, Params: params, Extra: creq.Extra})
		if err != nil {
			return false
		}
		list, ok := res.(*mcp.ListToolsResult)
		if !ok {
			return false
		}
		for _, t := range list.Tools {
			if t.Name == creq.Params.Name {
				return true
			}
		}
		if list.NextCursor == "" {
			return false
		}
		params = &mcp.ListToolsParams{Cursor: list.NextCursor}
	}
	return false
}

// pendingCall is what a tool run through the core needs from the SDK
// request it came with: the rest of the middleware chain, which runs the
// SDK's own tool handler, and the request itself.
type pendingCall struct {
	next   mcp.MethodHandler
	req    *mcp.CallToolRequest
	reqCtx context.Context
}

type pendingKey struct{}

// toWire turns the core's JSON-RPC error into the SDK's. The SDK rewrites
// the message of every -32601 it recognises to "method not found", which
// would hide why a tool cannot (or must) run as a task: such errors are
// wrapped so that the SDK keeps the code but not its own message.
func toWire(e *tasks.RPCError) error {
	if e.Code == jsonrpc.CodeMethodNotFound {
		return &methodNotFound{msg: e.Message}
	}
	return &jsonrpc.Error{Code: e.Code, Message: e.Message, Data: e.Data}
}

// methodNotFound is a -32601 whose message the SDK keeps: it converts to a
// *jsonrpc.Error with errors.As (which the SDK uses for the code) without
// matching the SDK's method-not-found sentinel in errors.Is.
type methodNotFound struct{ msg string }

func (e *methodNotFound) Error() string { return e.msg }

// As fills a **jsonrpc.Error with code -32601.
func (e *methodNotFound) As(target any) bool {
	if t, ok := target.(**jsonrpc.Error); ok {
		*t = &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: e.msg}
		return true
	}
	return false
}

// fromWire turns an error returned by an SDK handler into the error the
// core stores: a JSON-RPC error keeps its code, message and data.
func fromWire(err error) error {
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		return &tasks.RPCError{Code: we.Code, Message: we.Message, Data: we.Data}
	}
	return err
}

// marshal encodes v like the SDK does (no HTML escaping).
func marshal(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// rawParams captures the params of a custom method as raw JSON.
type rawParams struct {
	mcp.ParamsBase
	raw json.RawMessage
}

// UnmarshalJSON keeps the params as they came.
func (p *rawParams) UnmarshalJSON(b []byte) error {
	p.raw = append(p.raw[:0], b...)
	return nil
}

// rawResult is a result already encoded as JSON.
type rawResult struct {
	mcp.ResultBase
	raw json.RawMessage
}

// MarshalJSON returns the encoded result.
func (r *rawResult) MarshalJSON() ([]byte, error) { return r.raw, nil }
