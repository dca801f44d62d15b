package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// ProtocolVersion is the MCP revision the core implements and prefers.
const ProtocolVersion = "2025-11-25"

// supportedVersions are the revisions accepted in initialize, newest
// first. Older revisions have no tasks; they are accepted so plain clients
// can still call tools.
var supportedVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

// SupportedVersions returns the protocol revisions the core accepts,
// newest first.
func SupportedVersions() []string { return slices.Clone(supportedVersions) }

// SupportedVersion reports whether v is a revision the core accepts.
func SupportedVersion(v string) bool { return slices.Contains(supportedVersions, v) }

// Session is one client connection as the transport knows it: an HTTP
// session, a stdio peer, or an SDK's server session. The core keeps the
// sessions it is told about (AddSession) to route status notifications
// and input requests to their owner only.
type Session interface {
	// SessionID identifies the session within its transport.
	SessionID() string
	// Owner is the requestor the session's tasks belong to.
	Owner() tasks.Owner
	// Notify queues a message (a notification or a server-to-client
	// request) for the session's standalone stream: the HTTP GET stream,
	// stdout on stdio. It must not block; a transport may drop messages
	// it cannot hold.
	Notify(msg []byte)
	// Listening reports whether a standalone stream is open now, so that
	// a message given to Notify reaches the client without waiting.
	Listening() bool
	// ElicitForm reports whether the client declared form-mode
	// elicitation when it initialized.
	ElicitForm() bool
}

// Caller is the requestor of one request: its session, plus the stream of
// that request, which carries related messages (progress of a plain tool
// call, input requests relayed by tasks/result) ahead of the response.
type Caller interface {
	Session
	// Send writes msg on the request's own stream before its response.
	// It returns an error when the request cannot carry extra messages
	// (a plain JSON answer, or the stream is finished).
	Send(msg []byte) error
}

// A Caller may also have a method Session() Session returning its session
// without the request: the core then keeps only that for what outlives
// the request (a task's progress and input requests), so the request's
// stream can be freed when it ends.

// Implementation names the server in the initialize result.
type Implementation struct {
	Name    string
	Version string
}

// Option configures a Core.
type Option func(*Core)

// WithLogger sets the logger; default slog.Default().
func WithLogger(l *slog.Logger) Option {
	return func(c *Core) {
		if l != nil {
			c.log = l
		}
	}
}

// WithImplementation sets the serverInfo of the initialize result.
func WithImplementation(info Implementation) Option { return func(c *Core) { c.info = info } }

// WithRegistry makes the core serve the tools of r (shared with the
// caller, which may keep adding tools) instead of a registry of its own.
func WithRegistry(r *Registry) Option {
	return func(c *Core) {
		if r != nil {
			c.tools = r
		}
	}
}

// WithTools registers tools (see Registry.Add).
func WithTools(tools ...Tool) Option {
	return func(c *Core) { c.pendingTools = append(c.pendingTools, tools...) }
}

// Core implements the tasks part of MCP 2025-11-25 independently of any
// transport: task-augmented tools/call with the taskSupport rules,
// tasks/get, tasks/result, tasks/list and tasks/cancel, the capabilities
// and tools/list augmentation, status notifications to the owner's
// sessions, progress, and input requests relayed to the requestor. It is
// safe for concurrent use.
type Core struct {
	engine       *tasks.Engine
	tools        *Registry
	pendingTools []Tool
	log          *slog.Logger
	info         Implementation

	maxActive int
	active    activeSlots
	retained  retainedTasks
	refusals  atomic.Int64

	smu     sync.RWMutex
	byOwner map[tasks.Owner][]Session

	streamSeq atomic.Uint64
	pmu       sync.Mutex
	pending   map[string]*pendingRequest // server-to-client requests by id
	inboxes   map[string]*inbox          // task id -> its input requests

	extWake broadcast  // see modernWake
	shown   shownMarks // see inputShown

	stateKey []byte // seals requestState (see WithRequestStateKey)
}

// New returns a core serving tasks on engine. It subscribes to the
// engine's status changes for notifications, so one engine should have
// one core. It fails when a tool given by WithTools is malformed.
func New(engine *tasks.Engine, opts ...Option) (*Core, error) {
	if engine == nil {
		return nil, errors.New("protocol: nil engine")
	}
	c := &Core{
		engine:    engine,
		tools:     NewRegistry(),
		log:       slog.Default(),
		info:      Implementation{Name: "mcptasks-reference", Version: "0.1.0"},
		maxActive: DefaultMaxActiveTasks,
		retained: retainedTasks{
			perOwner: DefaultMaxRetainedTasksPerOwner,
			total:    DefaultMaxRetainedTasks,
			owners:   make(map[tasks.Owner]int),
		},
		byOwner: make(map[tasks.Owner][]Session),
		pending: make(map[string]*pendingRequest),
		inboxes: make(map[string]*inbox),
	}
	for _, o := range opts {
		o(c)
	}
	if c.stateKey == nil {
		c.stateKey = newStateKey()
	}
	for _, t := range c.pendingTools {
		if err := c.tools.Add(t); err != nil {
			return nil, err
		}
	}
	c.pendingTools = nil
	engine.Observe(c.onStatus)
	engine.Observe(c.onModernStatus)
	return c, nil
}

// sessionOf returns the session of a caller, without the request's stream,
// for what outlives the request (a task's progress and input requests).
func sessionOf(caller Caller) Session {
	if u, ok := caller.(interface{ Session() Session }); ok {
		if s := u.Session(); s != nil {
			return s
		}
	}
	return caller
}

// Engine returns the engine the core runs tasks on.
func (c *Core) Engine() *tasks.Engine { return c.engine }

// Tools returns the core's tool registry.
func (c *Core) Tools() *Registry { return c.tools }

// AddSession makes sess a destination of its owner's status notifications
// and input requests. Call RemoveSession when it ends.
func (c *Core) AddSession(sess Session) {
	o := sess.Owner()
	c.smu.Lock()
	c.byOwner[o] = append(c.byOwner[o], sess)
	c.smu.Unlock()
}

// RemoveSession forgets a session given to AddSession. Input requests
// handed to its standalone stream and still unanswered become deliverable
// again, on another stream of the owner.
func (c *Core) RemoveSession(sess Session) {
	c.removeSession(sess)
	c.sessionGone(sess)
}

func (c *Core) removeSession(sess Session) {
	o := sess.Owner()
	c.smu.Lock()
	defer c.smu.Unlock()
	list := c.byOwner[o]
	if i := slices.Index(list, sess); i >= 0 {
		// A new array: sessionsOf hands out the old one without copying,
		// and AddSession only ever writes past the length readers hold.
		list = slices.Delete(slices.Clone(list), i, i+1)
	}
	if len(list) == 0 {
		delete(c.byOwner, o)
	} else {
		c.byOwner[o] = list
	}
}

// sessionsOf returns owner's registered sessions. The slice is shared
// and must not be modified: removeSession never changes an array it may
// have handed out, so no copy is needed per notification.
func (c *Core) sessionsOf(owner tasks.Owner) []Session {
	c.smu.RLock()
	defer c.smu.RUnlock()
	return c.byOwner[owner]
}

// onStatus sends notifications/tasks/status for a status change to every
// session of the task's owner; the owner index keeps this independent of
// how many other sessions are open.
func (c *Core) onStatus(rec tasks.Record) {
	if rec.Version <= 1 && rec.Status == tasks.StatusWorking {
		return // creation, not a change
	}
	targets := c.sessionsOf(rec.Owner)
	if len(targets) == 0 {
		return
	}
	msg := statusNotificationJSON(rec)
	for _, s := range targets {
		s.Notify(msg)
	}
}

// methodFunc serves one method. A result it writes by hand is appended to
// dst (nil: a buffer of its own); an error leaves dst's contents unknown.
type methodFunc func(c *Core, ctx context.Context, caller Caller, params json.RawMessage, dst []byte) (json.RawMessage, error)

// methods are the requests Handle serves; initialize and ping stay with
// the transport or SDK, which owns the session they set up.
var methods = map[string]methodFunc{
	wire.MethodToolsList:   appended((*Core).toolsList),
	wire.MethodToolsCall:   (*Core).toolsCall,
	wire.MethodTasksGet:    appended((*Core).tasksGet),
	wire.MethodTasksResult: appended((*Core).tasksResult),
	wire.MethodTasksList:   appended((*Core).tasksList),
	wire.MethodTasksCancel: appended((*Core).tasksCancel),
}

// appended adapts a method that makes its own result buffer: the result
// is copied to the end of dst when one is given.
func appended(m func(c *Core, ctx context.Context, caller Caller, params json.RawMessage) (json.RawMessage, error)) methodFunc {
	return func(c *Core, ctx context.Context, caller Caller, params json.RawMessage, dst []byte) (json.RawMessage, error) {
		res, err := m(c, ctx, caller, params)
		if err != nil {
			return nil, err
		}
		return appendResult(dst, res), nil
	}
}

// appendResult is res at the end of dst, or res itself without dst.
func appendResult(dst []byte, res json.RawMessage) json.RawMessage {
	if dst == nil {
		return res
	}
	return append(dst, res...)
}

// Handles reports whether Handle serves method.
func Handles(method string) bool { return methods[method] != nil }

// LongRunning reports whether method may block until a task or a tool
// ends (tools/call, tasks/result): a transport runs such requests
// concurrently and lets notifications/cancelled end them.
func LongRunning(method string) bool {
	return method == wire.MethodToolsCall || method == wire.MethodTasksResult
}

// Handle serves one request of caller: params is the raw params object
// (nil means {}), the result is the raw result object. An error is
// answered with WireError. ctx ends the request (client gone, cancelled);
// a task's work is not tied to it.
func (c *Core) Handle(ctx context.Context, caller Caller, method string, params json.RawMessage) (json.RawMessage, error) {
	return c.HandleAppend(ctx, caller, method, params, nil)
}

// HandleAppend is Handle with the result appended to dst (which may be
// nil), so a transport can have it written straight after the start of
// its response envelope; hand-written results (a created task) then need
// no buffer of their own. After an error the contents of dst are unknown.
func (c *Core) HandleAppend(ctx context.Context, caller Caller, method string, params json.RawMessage, dst []byte) (json.RawMessage, error) {
	m := methods[method]
	if m == nil {
		return nil, rpcErr(wire.CodeMethodNotFound, "method not found: "+strconv.Quote(method))
	}
	res, err := c.safe(m, ctx, caller, method, params, dst)
	if ee, ok := errors.AsType[*encodeError](err); ok {
		c.log.Error("encoding result", "method", method, "err", ee.err)
		return nil, rpcErr(wire.CodeInternalError, "internal error: result could not be encoded")
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// encodeError is a method's result that json.Marshal refused.
type encodeError struct{ err error }

func (e *encodeError) Error() string { return "encoding result: " + e.err.Error() }

// encodeResult is the JSON of a method's typed result. Methods return
// their results encoded (a raw message, not an interface holding one) so
// that the hot ones, which write their JSON by hand, box nothing.
func encodeResult(v any) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, &encodeError{err}
	}
	return b, nil
}

// safe runs a method handler, turning a panic into an internal error so
// one bad request never takes the server down.
func (c *Core) safe(m methodFunc, ctx context.Context, caller Caller, method string, params json.RawMessage, dst []byte) (res json.RawMessage, err error) {
	defer func() {
		if p := recover(); p != nil {
			c.log.Error("method handler panicked", "method", method, "panic", p)
			res, err = nil, rpcErr(wire.CodeInternalError, "internal error while handling "+method)
		}
	}()
	return m(c, ctx, caller, params, dst)
}

// Capabilities returns the server capabilities: tools, and tasks with
// list, cancel and task-augmented tools/call.
func (c *Core) Capabilities() schema.ServerCapabilities {
	return schema.ServerCapabilities{
		Tools: &schema.ServerCapabilitiesTools{},
		Tasks: tasksCapability(),
	}
}

func tasksCapability() *schema.ServerCapabilitiesTasks {
	// Every requestor is identified (bearer subject or session), so
	// listing only ever shows the caller's own tasks.
	return &schema.ServerCapabilitiesTasks{
		List:   &schema.ServerCapabilitiesTasksList{},
		Cancel: &schema.ServerCapabilitiesTasksCancel{},
		Requests: &schema.ServerCapabilitiesTasksRequests{
			Tools: &schema.ServerCapabilitiesTasksRequestsTools{Call: &schema.ServerCapabilitiesTasksRequestsToolsCall{}},
		},
	}
}

// Negotiated is what initialize settled for a session.
type Negotiated struct {
	// ProtocolVersion is the revision the session speaks.
	ProtocolVersion string
	// ElicitForm is true when the client declared form-mode elicitation.
	ElicitForm bool
}

// Initialize answers an initialize request for a transport that has no
// MCP layer of its own. The transport records the Negotiated values on its
// session (Session.ElicitForm must report ElicitForm).
func (c *Core) Initialize(params json.RawMessage) (json.RawMessage, Negotiated, error) {
	var p schema.InitializeRequestParams
	if err := decodeParams(params, &p); err != nil {
		return nil, Negotiated{}, err
	}
	if p.ProtocolVersion == "" {
		return nil, Negotiated{}, badParam(`"protocolVersion" is required`)
	}
	v := ProtocolVersion
	if SupportedVersion(p.ProtocolVersion) {
		v = p.ProtocolVersion
	}
	n := Negotiated{ProtocolVersion: v}
	// An empty elicitation object means form mode, as before modes existed.
	if e := p.Capabilities.Elicitation; e != nil && (e.Form != nil || e.URL == nil) {
		n.ElicitForm = true
	}
	body, err := json.Marshal(schema.InitializeResult{
		ProtocolVersion: v,
		Capabilities:    c.Capabilities(),
		ServerInfo:      schema.Implementation{Name: c.info.Name, Version: c.info.Version},
	})
	if err != nil {
		return nil, Negotiated{}, fmt.Errorf("encoding the initialize result: %w", err)
	}
	return body, n, nil
}

// PatchInitialize adds capabilities.tasks to an initialize result
// marshalled by another MCP layer (an SDK), keeping every other member as
// it was.
func (c *Core) PatchInitialize(result json.RawMessage) (json.RawMessage, error) {
	fields := map[string]json.RawMessage{}
	if err := json.Unmarshal(result, &fields); err != nil {
		return nil, fmt.Errorf("protocol: initialize result is not an object: %w", err)
	}
	caps := map[string]json.RawMessage{}
	if raw, ok := fields["capabilities"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &caps); err != nil {
			return nil, fmt.Errorf("protocol: capabilities is not an object: %w", err)
		}
	}
	tc, err := json.Marshal(tasksCapability())
	if err != nil {
		return nil, err
	}
	caps["tasks"] = tc
	if fields["capabilities"], err = json.Marshal(caps); err != nil {
		return nil, err
	}
	return json.Marshal(fields)
}

// PatchToolsList sets execution.taskSupport, from the registry, on the
// tools of a tools/list result marshalled by another MCP layer; tools the
// registry does not know, and every other member, are left as they were.
func (c *Core) PatchToolsList(result json.RawMessage) (json.RawMessage, error) {
	var res map[string]json.RawMessage
	if err := json.Unmarshal(result, &res); err != nil {
		return nil, fmt.Errorf("protocol: tools/list result is not an object: %w", err)
	}
	var list []map[string]json.RawMessage
	if err := json.Unmarshal(res["tools"], &list); err != nil {
		return nil, fmt.Errorf("protocol: tools/list result has no tools array: %w", err)
	}
	for _, t := range list {
		var name string
		if json.Unmarshal(t["name"], &name) != nil {
			continue
		}
		tool, ok := c.tools.Lookup(name)
		if !ok || tool.TaskSupport == "" {
			continue
		}
		exec := map[string]json.RawMessage{}
		if raw, ok := t["execution"]; ok && string(raw) != "null" {
			if err := json.Unmarshal(raw, &exec); err != nil {
				return nil, fmt.Errorf("protocol: tool %q: execution is not an object: %w", name, err)
			}
		}
		exec["taskSupport"], _ = json.Marshal(tool.TaskSupport)
		t["execution"], _ = json.Marshal(exec)
	}
	var err error
	if res["tools"], err = json.Marshal(list); err != nil {
		return nil, err
	}
	return json.Marshal(res)
}
