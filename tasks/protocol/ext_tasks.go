package protocol

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/schema/exttasks"
	"github.com/mcptasks/mcptasks/schema/v20260728"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// The 2026-07-28 profile: a stateless core in which every request carries
// its protocol version and client capabilities in _meta, and tasks are the
// io.modelcontextprotocol/tasks extension. It runs on the same Engine,
// Store and records as the 2025-11-25 profile; only the wire differs, and
// it is decided here.

// ModernProtocolVersion is the revision served through per-request _meta.
const ModernProtocolVersion = "2026-07-28"

// ExtensionID names the tasks extension.
const ExtensionID = exttasks.ExtensionID

// CodeModernLimitExceeded is the code of a refusal for a limit in the
// 2026-07-28 profile: -32029 lies in the range that revision reserves for
// codes it defines, so implementation codes go outside -32768..-32000.
const CodeModernLimitExceeded = -31029

// Keys of the task variables that hold a task's outstanding input requests
// and their answers, so that any instance sharing the store can show and
// answer them. They are never shown on the wire as variables.
const (
	inputRequestVar  = "dev.mcptasks/input-request."
	inputResponseVar = "dev.mcptasks/input-response."
)

// ModernOwner is the owner a task created through the 2026-07-28 profile
// is stored under, for a requestor whose 2025-11-25 owner is o. The two
// profiles keep their tasks apart this way: a task made under one is "not
// found" under the other, for the same identity, in every store.
func ModernOwner(o tasks.Owner) tasks.Owner { return "ext:" + o }

// ModernCaller is the requestor of one 2026-07-28 request.
type ModernCaller interface {
	// Owner is the requestor's owner as ResolveOwner gives it (without the
	// profile mapping, which the core applies).
	Owner() tasks.Owner
	// Send writes msg on the request's own stream before its response; it
	// fails when the request cannot carry extra messages.
	Send(msg []byte) error
}

// IsModern reports whether a request selects the 2026-07-28 profile: it
// is server/discover, or its params carry a protocol version in _meta.
func IsModern(method string, params json.RawMessage) bool {
	if method == "server/discover" {
		return true
	}
	if !bytes.Contains(params, []byte(v20260728.ProtocolVersionMetaKey)) {
		return false
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	_, ok := p.Meta[v20260728.ProtocolVersionMetaKey]
	return ok
}

// ModernVersion returns the protocol version in a request's _meta, "" when
// there is none.
func ModernVersion(params json.RawMessage) string {
	var p struct {
		Meta struct {
			V string `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(params, &p)
	return p.Meta.V
}

// ModernLongRunning reports whether a 2026-07-28 method holds its request
// open (subscriptions/listen) or may run a tool for long (tools/call).
func ModernLongRunning(method string) bool {
	return method == "subscriptions/listen" || method == "tools/call"
}

// modernMeta is what the core reads from a request's _meta.
type modernMeta struct {
	caps      v20260728.ClientCapabilities
	extension bool
}

// UnsupportedVersionError is the -32022 answer for a request naming
// version.
func UnsupportedVersionError(version string) *tasks.RPCError {
	data, _ := json.Marshal(map[string]any{"supported": []string{ModernProtocolVersion}, "requested": version})
	return &tasks.RPCError{Code: v20260728.CodeUnsupportedProtocolVersion, Data: data,
		Message: "unsupported protocol version " + strconv.Quote(version) + ": a request that names its version in _meta is served in " + ModernProtocolVersion + " only"}
}

// missingExtension is the -32021 answer for a request that needs the tasks
// extension and did not declare it.
func missingExtension(what string) *tasks.RPCError {
	return &tasks.RPCError{Code: v20260728.CodeMissingRequiredClientCapability,
		Message: what + " needs the " + ExtensionID + " extension in the request's client capabilities",
		Data:    json.RawMessage(`{"requiredCapabilities":{"extensions":{"` + ExtensionID + `":{}}}}`)}
}

// readModernMeta checks the _meta every 2026-07-28 request carries.
func readModernMeta(params json.RawMessage) (modernMeta, error) {
	if len(bytes.TrimSpace(params)) == 0 || string(bytes.TrimSpace(params)) == "null" {
		return modernMeta{}, badParam(`"params._meta" is required in %s: it carries the protocol version and client capabilities`, ModernProtocolVersion)
	}
	if !IsObject(params) {
		return modernMeta{}, badParam(`"params" must be an object, got %s`, JSONType(params))
	}
	var p struct {
		Meta json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return modernMeta{}, badParam("%s", FieldError(err))
	}
	if !IsObject(p.Meta) {
		return modernMeta{}, badParam(`"params._meta" is required and must be an object`)
	}
	var meta map[string]json.RawMessage
	if err := json.Unmarshal(p.Meta, &meta); err != nil {
		return modernMeta{}, badParam(`"params._meta": %s`, FieldError(err))
	}
	rawV, ok := meta[v20260728.ProtocolVersionMetaKey]
	var version string
	if !ok || json.Unmarshal(rawV, &version) != nil || version == "" {
		return modernMeta{}, badParam(`"_meta[%q]" is required and must be a non-empty string`, v20260728.ProtocolVersionMetaKey)
	}
	if version != ModernProtocolVersion {
		return modernMeta{}, UnsupportedVersionError(version)
	}
	rawCaps, ok := meta[v20260728.ClientCapabilitiesMetaKey]
	if !ok || !IsObject(rawCaps) {
		return modernMeta{}, badParam(`"_meta[%q]" is required and must be an object`, v20260728.ClientCapabilitiesMetaKey)
	}
	var m modernMeta
	if err := json.Unmarshal(rawCaps, &m.caps); err != nil {
		return modernMeta{}, badParam(`"_meta[%q]": %s`, v20260728.ClientCapabilitiesMetaKey, FieldError(err))
	}
	// Only the extension key declares the extension: the 2025-11-25
	// capabilities.tasks does not count.
	var exts map[string]json.RawMessage
	if raw, ok := rawExtensions(rawCaps); ok && json.Unmarshal(raw, &exts) == nil {
		m.extension = IsObject(exts[ExtensionID])
	}
	return m, nil
}

func rawExtensions(caps json.RawMessage) (json.RawMessage, bool) {
	var c struct {
		Extensions json.RawMessage `json:"extensions"`
	}
	if json.Unmarshal(caps, &c) != nil || !IsObject(c.Extensions) {
		return nil, false
	}
	return c.Extensions, true
}

// elicitForm reports whether the capabilities declare form elicitation
// (an empty elicitation object means form).
func (m modernMeta) elicitForm() bool {
	e := m.caps.Elicitation
	return e != nil && (e.Form != nil || e.URL == nil)
}

type modernFunc func(c *Core, ctx context.Context, caller ModernCaller, m modernMeta, id json.RawMessage, params json.RawMessage) (any, error)

var modernMethods = map[string]modernFunc{
	"server/discover": (*Core).modernDiscover,
	"ping": func(*Core, context.Context, ModernCaller, modernMeta, json.RawMessage, json.RawMessage) (any, error) {
		return complete(), nil
	},
	"tools/list":           (*Core).modernToolsList,
	"tools/call":           (*Core).modernToolsCall,
	"tasks/get":            (*Core).modernGet,
	"tasks/update":         (*Core).modernUpdate,
	"tasks/cancel":         (*Core).modernCancel,
	"subscriptions/listen": (*Core).modernListen,
}

// HandleModern serves one 2026-07-28 request: it checks the _meta, routes
// the method and returns the raw result. id is the request's JSON-RPC id
// (it names a subscriptions/listen stream). An error is answered with
// ModernWireError. tasks/result and tasks/list do not exist in this
// profile and get -32601 like any unknown method.
func (c *Core) HandleModern(ctx context.Context, caller ModernCaller, id json.RawMessage, method string, params json.RawMessage) (json.RawMessage, error) {
	m := modernMethods[method]
	if m == nil {
		return nil, rpcErr(wire.CodeMethodNotFound, "method not found in "+ModernProtocolVersion+": "+strconv.Quote(method))
	}
	meta, err := readModernMeta(params)
	if err != nil {
		return nil, err
	}
	res, err := c.safeModern(m, ctx, caller, meta, id, method, params)
	if err != nil {
		return nil, err
	}
	body, ok := res.(json.RawMessage)
	if !ok {
		if body, err = json.Marshal(res); err != nil {
			c.log.Error("encoding result", "method", method, "err", err)
			return nil, rpcErr(wire.CodeInternalError, "internal error: result could not be encoded")
		}
	}
	if out, err := setMeta(body, v20260728.ServerInfoMetaKey, v20260728.Implementation{Name: c.info.Name, Version: c.info.Version}); err == nil {
		body = out
	}
	return body, nil
}

func (c *Core) safeModern(m modernFunc, ctx context.Context, caller ModernCaller, meta modernMeta, id json.RawMessage, method string, params json.RawMessage) (res any, err error) {
	defer func() {
		if p := recover(); p != nil {
			c.log.Error("method handler panicked", "method", method, "panic", p)
			res, err = nil, rpcErr(wire.CodeInternalError, "internal error while handling "+method)
		}
	}()
	return m(c, ctx, caller, meta, id, params)
}

// ModernWireError is WireError for the 2026-07-28 profile: limit refusals
// move out of the reserved range.
func (c *Core) ModernWireError(method string, err error) *tasks.RPCError {
	rpc := c.WireError(method, err)
	if rpc.Code == wire.CodeLimitExceeded {
		cp := *rpc
		cp.Code = CodeModernLimitExceeded
		return &cp
	}
	return rpc
}

// ModernHTTPStatus is the HTTP status a 2026-07-28 error is answered with
// over Streamable HTTP: 400 for malformed requests, header mismatches,
// missing capabilities and unknown versions; 404 for unknown methods; 200
// otherwise (the error is the answer to a well-formed request).
func ModernHTTPStatus(e *tasks.RPCError, malformedParams bool) int {
	switch e.Code {
	case v20260728.CodeHeaderMismatch, v20260728.CodeMissingRequiredClientCapability, v20260728.CodeUnsupportedProtocolVersion,
		wire.CodeParseError, wire.CodeInvalidRequest:
		return 400
	case wire.CodeMethodNotFound:
		return 404
	case wire.CodeInvalidParams:
		if malformedParams {
			return 400
		}
	}
	return 200
}

// IsMalformedMeta reports whether err is the refusal of a request whose
// _meta lacks what every 2026-07-28 request must carry.
func IsMalformedMeta(err error) bool {
	var pe *paramError
	return errors.As(err, &pe) && strings.Contains(pe.msg, "_meta")
}

func complete() map[string]string {
	return map[string]string{"resultType": exttasks.ResultTypeComplete}
}

func (c *Core) modernDiscover(context.Context, ModernCaller, modernMeta, json.RawMessage, json.RawMessage) (any, error) {
	return v20260728.DiscoverResult{
		ResultType:        exttasks.ResultTypeComplete,
		SupportedVersions: []string{ModernProtocolVersion},
		Capabilities: v20260728.ServerCapabilities{
			Tools:      &v20260728.ServerCapabilitiesTools{},
			Extensions: map[string]v20260728.JSONObject{ExtensionID: {}},
		},
		TTLMs:      60000,
		CacheScope: v20260728.DiscoverResultCacheScopePublic,
	}, nil
}

func (c *Core) modernToolsList(_ context.Context, _ ModernCaller, _ modernMeta, _ json.RawMessage, params json.RawMessage) (any, error) {
	var p struct {
		Cursor *string `json:"cursor"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if p.Cursor != nil {
		return nil, badParam(`"cursor": tools/list has a single page, so no cursor is valid`)
	}
	// Tools carry no execution.taskSupport in this revision.
	list := c.tools.wireTools()
	for i := range list {
		list[i].Execution = nil
	}
	// Tools can be added at run time, so the list is not cached (ttlMs 0);
	// it is the same for every requestor (public).
	body, err := json.Marshal(map[string]any{"tools": list, "resultType": exttasks.ResultTypeComplete,
		"ttlMs": 0, "cacheScope": v20260728.DiscoverResultCacheScopePublic})
	return json.RawMessage(body), err
}

func (c *Core) modernToolsCall(ctx context.Context, caller ModernCaller, m modernMeta, _ json.RawMessage, params json.RawMessage) (any, error) {
	// A legacy "task" member is an unknown field here: it is not read.
	var p struct {
		Name           string          `json:"name"`
		Arguments      json.RawMessage `json:"arguments"`
		InputResponses json.RawMessage `json:"inputResponses"`
		RequestState   *string         `json:"requestState"`
		Meta           schema.Meta     `json:"_meta"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	token, hasToken, err := progressToken(p.Meta)
	if err != nil {
		return nil, err
	}
	if p.Name == "" {
		return nil, badParam(`"name" is required`)
	}
	args := p.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	} else if !IsObject(args) {
		return nil, badParam(`"arguments" must be an object, got %s`, JSONType(args))
	}
	tool, ok := c.tools.Lookup(p.Name)
	if !ok {
		return nil, badParam("unknown tool %q", p.Name)
	}
	if tool.Validate != nil {
		if err := tool.Validate(args); err != nil {
			return nil, badParam("arguments of %q: %v", p.Name, err)
		}
	}
	tc := &ToolCall{Name: p.Name, Arguments: args}
	owner := ModernOwner(caller.Owner())
	// The server decides: a tool that may run as a task does so whenever
	// the request declared the extension.
	asTask := m.extension && (tool.TaskSupport == TaskOptional || tool.TaskSupport == TaskRequired)
	if !asTask && tool.TaskSupport == TaskRequired {
		return nil, missingExtension("tool " + strconv.Quote(p.Name) + " runs only as a task, so calling it")
	}
	// Multi-round-trip input comes before anything runs: no task exists
	// until Prepare is satisfied.
	if tool.Prepare != nil {
		if err := c.readRetry(owner, tc, p.InputResponses, p.RequestState); err != nil {
			return nil, err
		}
		if err := safePrepare(tool.Prepare, ctx, tc); err != nil {
			var ir *InputRequired
			if errors.As(err, &ir) {
				return c.inputRequiredResult(owner, m, tc, ir)
			}
			return nil, err
		}
		tc.prepared = true
	}
	if !asTask {
		// Answered on this request: its progress goes on this request's
		// stream before the result. A task gets no progress reporter,
		// since this revision carries no progress for tasks and the
		// token dies with the CreateTaskResult.
		if hasToken {
			sp := &streamProgress{ctx: ctx, out: caller, token: token}
			defer sp.end()
			tc.progress = sp.report
		}
		res, err := safeHandle(tool.Handler, ctx, tc)
		if err != nil {
			return nil, err
		}
		out, err := setTop(res, "resultType", exttasks.ResultTypeComplete)
		if err != nil {
			return nil, rpcErr(wire.CodeInternalError, "internal error: the tool's result is not an object")
		}
		return out, nil
	}
	rec, err := c.startToolTask(ctx, owner, nil, tool, *tc, tasks.WithInput(c.modernInput(m.elicitForm())))
	if err != nil {
		return nil, err
	}
	t := modernTask(rec)
	return exttasks.CreateTaskResult{
		ResultType:     exttasks.ResultTypeTask,
		TaskID:         t.TaskID,
		Status:         exttasks.CreateTaskResultStatus(t.Status),
		StatusMessage:  t.StatusMessage,
		CreatedAt:      t.CreatedAt,
		LastUpdatedAt:  t.LastUpdatedAt,
		TTLMs:          t.TTLMs,
		PollIntervalMs: t.PollIntervalMs,
	}, nil
}

// startToolTask starts tool as a task of owner, within the server's task
// limits; both profiles create tasks through it.
func (c *Core) startToolTask(ctx context.Context, owner tasks.Owner, ttl *time.Duration, tool Tool, tc ToolCall, opts ...tasks.StartOption) (tasks.Record, error) {
	if err := c.retained.check(owner, c.engine.Config().Now().UnixMilli()); err != nil {
		c.LogRefusal("task creation refused", "owner", owner, "reason", err.Error())
		return tasks.Record{}, err
	}
	if !c.active.acquire(c.maxActive) {
		c.LogRefusal("task creation refused", "owner", owner, "reason", "active task limit", "max_active_tasks", c.maxActive)
		return tasks.Record{}, LimitError("task limit reached: this server already runs " + strconv.Itoa(c.maxActive) + " tasks, its limit for all requestors; retry when some finish")
	}
	w := &toolWork{c: c, handler: tool.Handler, call: tc}
	if tool.Prepare != nil && !tc.prepared {
		w.prepare = tool.Prepare
	}
	rec, err := c.engine.Start(ctx, owner, tasks.CreateParams{Method: "tools/call", TTL: ttl}, w.run, opts...)
	if err != nil {
		if !w.started.Load() {
			c.active.release()
		}
		return tasks.Record{}, err
	}
	c.retained.add(rec)
	return rec, nil
}

// toolWork is the work of a tool called as a task, with the call it
// hands the tool (one allocation for both).
type toolWork struct {
	c       *Core
	handler ToolHandler
	call    ToolCall
	// prepare is the tool's Prepare when it has not run yet (a call of
	// the 2025-11-25 profile): it runs in the task, asking through it.
	prepare func(context.Context, *ToolCall) error
	// started: the work ran, and so releases its active-task slot itself.
	started atomic.Bool
}

func (w *toolWork) run(t tasks.TaskContext) (json.RawMessage, error) {
	defer w.c.active.release()
	w.started.Store(true)
	w.call.Task = t
	if w.prepare != nil {
		if err := prepareInTask(t, w.prepare, &w.call); err != nil {
			return nil, err
		}
	}
	return w.handler(t, &w.call)
}

// taskIDParam reads a non-empty taskId.
func taskIDParam(params json.RawMessage) (string, error) {
	var p struct {
		TaskID json.RawMessage `json:"taskId"`
	}
	if err := decodeParams(params, &p); err != nil {
		return "", err
	}
	var id string
	if len(p.TaskID) == 0 || json.Unmarshal(p.TaskID, &id) != nil || id == "" {
		return "", badParam(`"taskId" is required and must be a non-empty string`)
	}
	return id, nil
}

// modernRecord reads a task of the caller with its outcome when terminal.
func (c *Core) modernRecord(ctx context.Context, owner tasks.Owner, id string) (tasks.Record, error) {
	rec, err := c.engine.Get(ctx, owner, id)
	if err != nil {
		return tasks.Record{}, err
	}
	if rec.Status.Terminal() && rec.Outcome == nil {
		return c.engine.Result(ctx, owner, id)
	}
	return rec, nil
}

func (c *Core) modernGet(ctx context.Context, caller ModernCaller, m modernMeta, _ json.RawMessage, params json.RawMessage) (any, error) {
	if !m.extension {
		return nil, missingExtension("tasks/get")
	}
	id, err := taskIDParam(params)
	if err != nil {
		return nil, err
	}
	rec, err := c.modernRecord(ctx, ModernOwner(caller.Owner()), id)
	if err != nil {
		return nil, err
	}
	return exttasks.GetTaskResult{ResultType: exttasks.ResultTypeComplete, DetailedTaskFields: modernTask(rec)}, nil
}

func (c *Core) modernCancel(ctx context.Context, caller ModernCaller, m modernMeta, _ json.RawMessage, params json.RawMessage) (any, error) {
	if !m.extension {
		return nil, missingExtension("tasks/cancel")
	}
	id, err := taskIDParam(params)
	if err != nil {
		return nil, err
	}
	_, err = c.engine.Cancel(ctx, ModernOwner(caller.Owner()), id, "")
	// A task that is already terminal keeps its status and the cancel is
	// acknowledged all the same (catalog EXT-DISC-09).
	if err != nil && !errors.Is(err, tasks.ErrInvalidTransition) {
		return nil, err
	}
	return complete(), nil
}

func (c *Core) modernUpdate(ctx context.Context, caller ModernCaller, m modernMeta, _ json.RawMessage, params json.RawMessage) (any, error) {
	if !m.extension {
		return nil, missingExtension("tasks/update")
	}
	id, err := taskIDParam(params)
	if err != nil {
		return nil, err
	}
	var p struct {
		InputResponses json.RawMessage `json:"inputResponses"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if !IsObject(p.InputResponses) {
		return nil, badParam(`"inputResponses" is required and must be an object, got %s`, JSONType(p.InputResponses))
	}
	var answers map[string]json.RawMessage
	if err := json.Unmarshal(p.InputResponses, &answers); err != nil {
		return nil, badParam(`"inputResponses": %s`, FieldError(err))
	}
	for k, v := range answers {
		if !IsObject(v) {
			return nil, badParam(`"inputResponses[%q]" must be an object, got %s`, k, JSONType(v))
		}
	}
	owner := ModernOwner(caller.Owner())
	rec, err := c.engine.Get(ctx, owner, id)
	if err != nil {
		return nil, err
	}
	// Only keys outstanding now are taken; the rest are ignored, and a task
	// that waits for nothing is left as it is.
	patch := map[string]json.RawMessage{}
	for k, v := range answers {
		if _, asked := rec.Variables[inputRequestVar+k]; !asked {
			continue
		}
		if _, answered := rec.Variables[inputResponseVar+k]; answered {
			continue
		}
		body, _ := json.Marshal(map[string]json.RawMessage{"result": v})
		patch[inputResponseVar+k] = body
	}
	if len(patch) > 0 {
		if _, err := c.engine.Store().SetVariables(ctx, owner, id, patch); err != nil {
			// A task that ended meanwhile waits for nothing: acknowledged.
			var te *tasks.Error
			if !errors.As(err, &te) || !te.Status.Terminal() {
				return nil, err
			}
		}
		c.modernWake().signal()
	}
	return complete(), nil
}

// modernTask renders a record as the extension's detailed task. What the
// two profiles show differently is decided here: a tool result with
// isError (stored as failed with a result) is completed, an error outcome
// is failed with the error inlined, and input_required lists the
// outstanding input requests (shown as working while none is stored yet).
func modernTask(rec tasks.Record) exttasks.DetailedTaskFields {
	t := exttasks.DetailedTaskFields{
		TaskID:        rec.ID,
		Status:        exttasks.TaskStatus(rec.Status),
		CreatedAt:     FormatTime(rec.CreatedAt),
		LastUpdatedAt: FormatTime(rec.LastUpdatedAt),
	}
	if rec.StatusMessage != "" {
		msg := rec.StatusMessage
		t.StatusMessage = &msg
	}
	if rec.TTL != nil {
		ms := rec.TTL.Milliseconds()
		t.TTLMs = &ms
	}
	if rec.PollInterval > 0 {
		ms := max(rec.PollInterval.Milliseconds(), 1)
		t.PollIntervalMs = &ms
	}
	switch {
	case rec.Status == tasks.StatusInputRequired:
		t.InputRequests = outstandingInput(rec.Variables)
		if len(t.InputRequests) == 0 {
			t.Status = exttasks.TaskStatus(tasks.StatusWorking)
		}
	case (rec.Status == tasks.StatusCompleted || rec.Status == tasks.StatusFailed) && rec.Outcome != nil && rec.Outcome.Error == nil:
		t.Status = exttasks.TaskStatus(tasks.StatusCompleted)
		t.Result = inlinedResult(rec.Outcome.Result)
	case rec.Status == tasks.StatusFailed:
		e := exttasks.Error{Code: wire.CodeInternalError, Message: "the task failed without a stored error"}
		if rec.Outcome != nil && rec.Outcome.Error != nil {
			e = exttasks.Error{Code: rec.Outcome.Error.Code, Message: rec.Outcome.Error.Message, Data: rec.Outcome.Error.Data}
		}
		t.Error = &e
	case rec.Status == tasks.StatusCompleted:
		t.Result = inlinedResult(nil)
	}
	return t
}

// inlinedResult is a stored tool result as a completed task shows it: a
// 2026-07-28 CallToolResult, which carries resultType "complete". The
// extension leaves resultType optional inside a task (EXT-DISC-13), but
// the core's CallToolResult requires it and the official TypeScript
// client rejects an inlined result without it.
func inlinedResult(stored json.RawMessage) json.RawMessage {
	if len(stored) == 0 {
		stored = json.RawMessage(`{}`)
	}
	var probe struct {
		ResultType *string `json:"resultType"`
	}
	if json.Unmarshal(stored, &probe) != nil || probe.ResultType != nil {
		return stored
	}
	if out, err := setTop(stored, "resultType", exttasks.ResultTypeComplete); err == nil {
		return out
	}
	return stored
}

// outstandingInput are the input requests stored in a task's variables
// that have no answer yet, by key.
func outstandingInput(vars map[string]json.RawMessage) exttasks.InputRequests {
	var out exttasks.InputRequests
	for k, v := range vars {
		key, ok := strings.CutPrefix(k, inputRequestVar)
		if !ok {
			continue
		}
		if _, answered := vars[inputResponseVar+key]; answered {
			continue
		}
		var r exttasks.InputRequest
		if json.Unmarshal(v, &r) != nil {
			continue
		}
		if out == nil {
			out = exttasks.InputRequests{}
		}
		out[key] = r
	}
	return out
}

// broadcast wakes everyone waiting on it, once per signal.
type broadcast struct {
	mu sync.Mutex
	ch chan struct{}
}

func (b *broadcast) wait() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ch == nil {
		b.ch = make(chan struct{})
	}
	return b.ch
}

func (b *broadcast) signal() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ch != nil {
		close(b.ch)
		b.ch = nil
	}
}

// modernWake is signalled on every status change of a 2026-07-28 task
// and on every stored input answer: it wakes listen streams and waiting
// input requests at once instead of at their next poll. Instances that
// share a store see each other's changes at the next poll.
func (c *Core) modernWake() *broadcast { return &c.extWake }

// modernPoll is how often a waiting input request or listen stream reads
// the store for changes made by other instances.
const modernPoll = 200 * time.Millisecond

func (c *Core) onModernStatus(rec tasks.Record) {
	if strings.HasPrefix(string(rec.Owner), "ext:") {
		c.modernWake().signal()
	}
}

// modernInput is the InputFunc of a 2026-07-28 task: the request is
// stored in the task's variables under a key unique to the task, shown by
// tasks/get while the task is input_required, and answered by tasks/update
// on any instance; the work waits for the answer in the store.
func (c *Core) modernInput(elicitForm bool) tasks.InputFunc {
	return func(ctx context.Context, rec tasks.Record, req tasks.InputRequest) (json.RawMessage, error) {
		if req.Method == "elicitation/create" && !elicitForm {
			return nil, &tasks.RPCError{Code: v20260728.CodeMissingRequiredClientCapability,
				Message: "the request that created the task did not declare the elicitation capability (form mode), so the task cannot ask for input",
				Data:    json.RawMessage(`{"requiredCapabilities":{"elicitation":{"form":{}}}}`)}
		}
		// A key names one request for the task's whole life: answered keys
		// stay in the variables, and a new key is drawn until it is unused.
		cur, err := c.engine.Get(ctx, rec.Owner, rec.ID)
		if err != nil {
			return nil, err
		}
		key := newInputKey()
		for cur.Variables[inputRequestVar+key] != nil {
			key = newInputKey()
		}
		body, err := json.Marshal(map[string]json.RawMessage{"method": mustMarshal(req.Method), "params": req.Params})
		if err != nil {
			return nil, err
		}
		store := c.engine.Store()
		if _, err := store.SetVariables(ctx, rec.Owner, rec.ID, map[string]json.RawMessage{inputRequestVar + key: body}); err != nil {
			return nil, err
		}
		c.modernWake().signal()
		tick := time.NewTicker(modernPoll)
		defer tick.Stop()
		for {
			wake := c.modernWake().wait()
			cur, err := c.engine.Get(ctx, rec.Owner, rec.ID)
			if err != nil {
				return nil, err
			}
			if raw, ok := cur.Variables[inputResponseVar+key]; ok {
				var a struct {
					Result json.RawMessage `json:"result"`
				}
				_ = json.Unmarshal(raw, &a)
				// The key stays answered (never reused); the request leaves
				// the outstanding set because its answer is stored.
				return a.Result, nil
			}
			select {
			case <-ctx.Done():
				return nil, context.Cause(ctx)
			case <-wake:
			case <-tick.C:
			}
		}
	}
}

// newInputKey draws a random input request key.
func newInputKey() string {
	var b [9]byte
	_, _ = rand.Read(b[:])
	return "input-" + hex.EncodeToString(b[:])
}

func mustMarshal(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// setTop returns the JSON object obj with member key set to val.
func setTop(obj json.RawMessage, key string, val any) (json.RawMessage, error) {
	fields := map[string]json.RawMessage{}
	if err := json.Unmarshal(obj, &fields); err != nil {
		return nil, err
	}
	fields[key] = mustMarshal(val)
	return json.Marshal(fields)
}

// modernListen serves subscriptions/listen: it acknowledges the task ids
// the caller may watch (its own, of this profile) and then sends
// notifications/tasks with the detailed task whenever one of them
// changes, until the request ends. Other notification types are not
// offered, so they are left out of the acknowledgement.
func (c *Core) modernListen(ctx context.Context, caller ModernCaller, m modernMeta, id json.RawMessage, params json.RawMessage) (any, error) {
	var p struct {
		Notifications struct {
			TaskIDs []string `json:"taskIds"`
		} `json:"notifications"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if p.Notifications.TaskIDs != nil && !m.extension {
		return nil, missingExtension("subscriptions/listen for taskIds")
	}
	owner := ModernOwner(caller.Owner())
	versions := map[string]int64{}
	agreed := []string{}
	for _, tid := range p.Notifications.TaskIDs {
		if _, dup := versions[tid]; dup {
			continue
		}
		rec, err := c.engine.Get(ctx, owner, tid)
		if err != nil {
			continue // unknown or another requestor's: not acknowledged
		}
		versions[tid] = rec.Version
		agreed = append(agreed, tid)
	}
	subMeta := map[string]json.RawMessage{"io.modelcontextprotocol/subscriptionId": id}
	ack, err := EncodeRequest("", "notifications/subscriptions/acknowledged", map[string]any{
		"_meta": subMeta, "notifications": map[string]any{"taskIds": agreed}})
	if err != nil {
		return nil, err
	}
	if err := caller.Send(ack); err != nil {
		return nil, rpcErr(wire.CodeInvalidRequest, "subscriptions/listen needs a stream for its notifications (accept text/event-stream)")
	}
	tick := time.NewTicker(modernPoll)
	defer tick.Stop()
	for {
		wake := c.modernWake().wait()
		for _, tid := range agreed {
			last, watching := versions[tid]
			if !watching {
				continue
			}
			rec, err := c.modernRecord(ctx, owner, tid)
			if err != nil {
				if ctx.Err() != nil {
					return nil, context.Cause(ctx)
				}
				delete(versions, tid) // expired or gone
				continue
			}
			if rec.Version == last {
				continue
			}
			versions[tid] = rec.Version
			params := exttasks.TaskStatusNotificationParams{Meta: exttasks.Meta(subMeta), DetailedTaskFields: modernTask(rec)}
			msg, err := EncodeRequest("", exttasks.MethodNotification, params)
			if err == nil && caller.Send(msg) != nil {
				return nil, rpcErr(wire.CodeInternalError, "the listen stream is closed")
			}
			if rec.Status.Terminal() {
				delete(versions, tid)
			}
		}
		select {
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		case <-wake:
		case <-tick.C:
		}
	}
}
