package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/tasks"
)

// sender carries messages related to one request (progress, elicitation)
// to the requestor before the response: on HTTP it turns the POST answer
// into an SSE stream, on stdio it writes to the output.
type sender interface {
	send(msg []byte) error
}

// pinger is a sender that can keep an idle stream alive.
type pinger interface {
	ping() error
}

// errNoStream: the request's answer cannot carry extra messages (the
// client did not accept an SSE stream).
var errNoStream = errors.New("the request cannot carry server messages: the client did not accept text/event-stream")

// call is one request being served.
type call struct {
	ctx    context.Context
	sess   *session
	owner  tasks.Owner
	id     json.RawMessage
	method string
	params json.RawMessage
	out    sender
}

type methodFunc func(s *Server, c *call) (any, error)

var methods map[string]methodFunc

func init() {
	methods = map[string]methodFunc{
		"initialize":   (*Server).initialize,
		"ping":         func(*Server, *call) (any, error) { return json.RawMessage(`{}`), nil },
		"tools/list":   (*Server).toolsList,
		"tools/call":   (*Server).toolsCall,
		"tasks/get":    (*Server).tasksGet,
		"tasks/result": (*Server).tasksResult,
		"tasks/list":   (*Server).tasksList,
		"tasks/cancel": (*Server).tasksCancel,
	}
}

// longRunning methods may block; they can be ended by notifications/cancelled.
func longRunning(method string) bool { return method == "tools/call" || method == "tasks/result" }

// dispatch runs one request and returns the encoded response, or nil when
// no response must be sent (the request was cancelled by the client).
func (s *Server) dispatch(c *call) []byte {
	m := methods[c.method]
	if m == nil {
		return appendError(nil, c.id, rpcErr(tasks.CodeMethodNotFound, "method not found: "+strconv.Quote(c.method)))
	}
	if c.method != "initialize" && c.method != "ping" && c.sess.protocolVersion() == "" {
		return appendError(nil, c.id, rpcErr(tasks.CodeInvalidRequest, "the session is not initialized: send initialize first"))
	}
	if longRunning(c.method) {
		release, ok := s.waiting.acquire(c.sess.ident)
		if !ok {
			s.logRefusal("request refused", "identity", c.sess.ident, "method", c.method, "max_waiting_per_identity", s.waiting.max)
			return appendError(nil, c.id, waitingLimitErr(s.waiting.max))
		}
		defer release()
		ctx, cancel := context.WithCancelCause(c.ctx)
		defer cancel(nil)
		untrack := c.sess.track(c.id, cancel)
		defer untrack()
		c.ctx = ctx
	}
	res, err := safeMethod(m, s, c)
	if cause := context.Cause(c.ctx); cause != nil {
		var rc *requestCancelled
		if errors.As(cause, &rc) || errors.Is(cause, errSessionClosed) {
			return nil
		}
	}
	if err != nil {
		rpc := toRPCError(err)
		var explicit *tasks.RPCError
		if rpc.Code == tasks.CodeInternalError && !errors.As(err, &explicit) {
			// The cause may carry store internals (SQL states, hosts):
			// it goes to the log, the requestor gets a reference to it.
			ref := internalRef()
			s.log.Error("request failed", "method", c.method, "ref", ref, "err", err)
			rpc = rpcErr(tasks.CodeInternalError, "internal error (reference "+ref+"): the server could not complete "+strconv.Quote(c.method)+"; its log has the cause")
		}
		return appendError(nil, c.id, rpc)
	}
	var body []byte
	switch r := res.(type) {
	case json.RawMessage:
		body = r
	default:
		body, err = json.Marshal(res)
		if err != nil {
			s.log.Error("encoding result", "method", c.method, "err", err)
			return appendError(nil, c.id, rpcErr(tasks.CodeInternalError, "internal error: result could not be encoded"))
		}
	}
	return appendResponse(make([]byte, 0, len(body)+48), c.id, body)
}

// safeMethod runs a method handler, turning a panic into an internal error
// so one bad request never takes the server down.
func safeMethod(m methodFunc, s *Server, c *call) (res any, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("method handler panicked", "method", c.method, "panic", p)
			res, err = nil, rpcErr(tasks.CodeInternalError, "internal error while handling "+c.method)
		}
	}()
	return m(s, c)
}

// decodeParams decodes params (absent means {}) into v, naming the field
// in the error.
func decodeParams(params json.RawMessage, v any) error {
	if len(params) == 0 || string(params) == "null" {
		params = json.RawMessage(`{}`)
	}
	if err := json.Unmarshal(params, v); err != nil {
		return badParam("%s", fieldError(err))
	}
	return nil
}

// negotiate picks the protocol version to answer a client proposing v.
func negotiate(v string) string {
	if slices.Contains(supportedVersions, v) {
		return v
	}
	return ProtocolVersion
}

func supportedVersion(v string) bool { return slices.Contains(supportedVersions, v) }

func (s *Server) capabilities() schema.ServerCapabilities {
	return schema.ServerCapabilities{
		Tools: &schema.ServerCapabilitiesTools{},
		Tasks: &schema.ServerCapabilitiesTasks{
			// Every requestor is identified (bearer subject or session), so
			// listing only ever shows the caller's own tasks.
			List:   &schema.ServerCapabilitiesTasksList{},
			Cancel: &schema.ServerCapabilitiesTasksCancel{},
			Requests: &schema.ServerCapabilitiesTasksRequests{
				Tools: &schema.ServerCapabilitiesTasksRequestsTools{Call: &schema.ServerCapabilitiesTasksRequestsToolsCall{}},
			},
		},
	}
}

func (s *Server) initialize(c *call) (any, error) {
	var p schema.InitializeRequestParams
	if err := decodeParams(c.params, &p); err != nil {
		return nil, err
	}
	if p.ProtocolVersion == "" {
		return nil, badParam(`"protocolVersion" is required`)
	}
	v := negotiate(p.ProtocolVersion)
	c.sess.setVersion(v)
	// An empty elicitation object means form mode, as before modes existed.
	if e := p.Capabilities.Elicitation; e != nil && (e.Form != nil || e.URL == nil) {
		c.sess.elicitForm.Store(true)
	}
	return schema.InitializeResult{
		ProtocolVersion: v,
		Capabilities:    s.capabilities(),
		ServerInfo:      schema.Implementation{Name: s.info.Name, Version: s.info.Version},
	}, nil
}

func (s *Server) toolsList(c *call) (any, error) {
	var p schema.PaginatedRequestParams
	if err := decodeParams(c.params, &p); err != nil {
		return nil, err
	}
	if p.Cursor != nil {
		return nil, badParam(`"cursor": tools/list has a single page, so no cursor is valid`)
	}
	return schema.ListToolsResult{Tools: s.tools.wireTools()}, nil
}

// callParams decodes tools/call params; the task member is read by hand so
// that ttl can be checked precisely (negative, fractional, huge).
type callParams struct {
	schema.CallToolRequestParams
	Task *struct {
		TTL json.RawMessage `json:"ttl"`
	} `json:"task"`
}

// parseTTL reads a requested ttl in milliseconds. Values too large for a
// time.Duration are clamped to the largest one (the Config's maximum then
// applies).
func parseTTL(raw json.RawMessage) (*time.Duration, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if jsonType(raw) != "a number" {
		return nil, badParam(`"task.ttl" must be an integer number of milliseconds, got %s`, jsonType(raw))
	}
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		if n < 0 {
			return nil, badParam(`"task.ttl" must not be negative, got %d`, n)
		}
		d := time.Duration(math.MaxInt64)
		if n <= math.MaxInt64/int64(time.Millisecond) {
			d = time.Duration(n) * time.Millisecond
		}
		return &d, nil
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, badParam(`"task.ttl" is not a valid number: %s`, raw)
	}
	switch {
	case f < 0:
		return nil, badParam(`"task.ttl" must not be negative, got %s`, raw)
	case f != math.Trunc(f):
		return nil, badParam(`"task.ttl" must be an integer number of milliseconds, got %s`, raw)
	}
	d := time.Duration(math.MaxInt64)
	if f < float64(math.MaxInt64/int64(time.Millisecond)) {
		d = time.Duration(f) * time.Millisecond
	}
	return &d, nil
}

func (s *Server) toolsCall(c *call) (any, error) {
	var p callParams
	if err := decodeParams(c.params, &p); err != nil {
		return nil, err
	}
	if p.Name == "" {
		return nil, badParam(`"name" is required`)
	}
	args := p.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	} else if !isObject(args) {
		return nil, badParam(`"arguments" must be an object, got %s`, jsonType(args))
	}
	token, hasToken, err := p.Meta.ProgressToken()
	if err != nil || (hasToken && token.IsZero()) {
		return nil, badParam(`"_meta.progressToken" must be a string or an integer`)
	}
	if hasToken {
		if _, isInt := token.AsInt(); !isInt && !token.IsString() {
			return nil, badParam(`"_meta.progressToken" must be a string or an integer`)
		}
	}
	tool, ok := s.tools.Lookup(p.Name)
	if !ok {
		return nil, badParam("unknown tool %q", p.Name)
	}
	asTask := p.Task != nil
	var ttl *time.Duration
	if asTask {
		if ttl, err = parseTTL(p.Task.TTL); err != nil {
			return nil, err
		}
	}
	switch {
	case asTask && tool.TaskSupport != TaskOptional && tool.TaskSupport != TaskRequired:
		return nil, rpcErr(tasks.CodeMethodNotFound, "tool "+strconv.Quote(p.Name)+" cannot run as a task (execution.taskSupport is not optional or required)")
	case !asTask && tool.TaskSupport == TaskRequired:
		return nil, rpcErr(tasks.CodeMethodNotFound, "tool "+strconv.Quote(p.Name)+" must be called as a task (execution.taskSupport is required)")
	}
	if tool.Validate != nil {
		if err := tool.Validate(args); err != nil {
			return nil, badParam("arguments of %q: %v", p.Name, err)
		}
	}
	tc := &ToolCall{Name: p.Name, Arguments: args}
	if !asTask {
		if hasToken {
			tc.progress = s.plainProgress(c, token)
		}
		res, err := safeHandle(tool.Handler, c.ctx, tc)
		if err != nil {
			return nil, err
		}
		return res, nil
	}
	opts := []tasks.StartOption{tasks.WithInput(s.inputFor(c.sess))}
	if hasToken {
		opts = append(opts, tasks.WithProgress(s.progressFor(c.sess, token)))
	}
	if err := s.retained.check(c.owner, s.engine.Config().Now().UnixMilli()); err != nil {
		s.logRefusal("task creation refused", "owner", c.owner, "reason", err.Error())
		return nil, err
	}
	if !s.active.acquire(s.maxActive) {
		s.logRefusal("task creation refused", "owner", c.owner, "reason", "active task limit", "max_active_tasks", s.maxActive)
		return nil, limitErr(fmt.Sprintf("task limit reached: this server already runs %d tasks, its limit for all requestors; retry when some finish", s.maxActive))
	}
	var started atomic.Bool
	rec, err := s.engine.Start(c.ctx, c.owner, tasks.CreateParams{Method: "tools/call", TTL: ttl},
		func(t tasks.TaskContext) (json.RawMessage, error) {
			// The slot is held while the work runs, even past a
			// cancellation, since the work still uses the server.
			defer s.active.release()
			started.Store(true)
			call := *tc
			call.Task = t
			return tool.Handler(t, &call)
		}, opts...)
	if err != nil {
		if !started.Load() {
			s.active.release()
		}
		return nil, err
	}
	s.retained.add(rec)
	return schema.CreateTaskResult{Task: tasks.WireTask(rec)}, nil
}

// safeHandle runs a plain tool call, turning a panic into an error.
func safeHandle(h ToolHandler, ctx context.Context, tc *ToolCall) (res json.RawMessage, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, errors.New("tool handler panicked")
		}
	}()
	res, err = h(ctx, tc)
	if err == nil && (len(res) == 0 || !json.Valid(res)) {
		err = errors.New("tool handler returned no valid result")
	}
	return res, err
}

// plainProgress sends a plain call's progress on its own response stream,
// keeping progress strictly increasing.
func (s *Server) plainProgress(c *call, token schema.ProgressToken) func(tasks.Progress) error {
	var last float64
	first := true
	return func(p tasks.Progress) error {
		if !first && p.Progress <= last {
			return badParam("progress must grow: %v after %v", p.Progress, last)
		}
		first, last = false, p.Progress
		msg, err := encodeRequest("", "notifications/progress", progressParams(token, p, ""))
		if err != nil {
			return err
		}
		return c.out.send(msg)
	}
}

func progressParams(token schema.ProgressToken, p tasks.Progress, taskID string) schema.ProgressNotificationParams {
	n := schema.ProgressNotificationParams{ProgressToken: token, Progress: p.Progress, Total: p.Total}
	if p.Message != "" {
		m := p.Message
		n.Message = &m
	}
	if taskID != "" {
		n.Meta = schema.WithRelatedTask(taskID)
	}
	return n
}

// taskID decodes the params of tasks/get, tasks/result and tasks/cancel.
// Only the taskId parameter selects the task; related-task metadata in the
// request is ignored.
func taskID(params json.RawMessage) (string, error) {
	var p schema.GetTaskRequestParams
	if err := decodeParams(params, &p); err != nil {
		return "", err
	}
	if p.TaskID == "" {
		return "", badParam(`"taskId" is required and must be a non-empty string`)
	}
	return p.TaskID, nil
}

func (s *Server) tasksGet(c *call) (any, error) {
	id, err := taskID(c.params)
	if err != nil {
		return nil, err
	}
	rec, err := s.engine.Get(c.ctx, c.owner, id)
	if err != nil {
		return nil, err
	}
	return tasks.WireGetResult(rec), nil
}

func (s *Server) tasksCancel(c *call) (any, error) {
	id, err := taskID(c.params)
	if err != nil {
		return nil, err
	}
	rec, err := s.engine.Cancel(c.ctx, c.owner, id, "")
	if err != nil {
		if errors.Is(err, tasks.ErrInvalidTransition) {
			var te *tasks.Error
			if errors.As(err, &te) && te.Status != "" {
				return nil, rpcErr(tasks.CodeInvalidParams, "cannot cancel task "+id+": it is already in terminal status "+strconv.Quote(string(te.Status)))
			}
			return nil, rpcErr(tasks.CodeInvalidParams, "cannot cancel task "+id+": it is already in a terminal status")
		}
		return nil, err
	}
	return schema.CancelTaskResult(tasks.WireGetResult(rec)), nil
}

func (s *Server) tasksList(c *call) (any, error) {
	var p schema.PaginatedRequestParams
	if err := decodeParams(c.params, &p); err != nil {
		return nil, err
	}
	opts := tasks.ListOptions{}
	if p.Cursor != nil {
		if *p.Cursor == "" {
			return nil, badParam(`"cursor" must not be empty`)
		}
		opts.Cursor = *p.Cursor
	}
	page, err := s.engine.List(c.ctx, c.owner, opts)
	if err != nil {
		return nil, err
	}
	res := schema.ListTasksResult{Tasks: make([]schema.Task, 0, len(page.Tasks))}
	for _, r := range page.Tasks {
		res.Tasks = append(res.Tasks, tasks.WireTask(r))
	}
	if page.NextCursor != "" {
		nc := page.NextCursor
		res.NextCursor = &nc
	}
	return res, nil
}

// tasksResult blocks until the task is terminal, meanwhile carrying the
// task's input requests (elicitations) on this request's stream, and then
// returns exactly the stored outcome, with related-task metadata on a
// successful result.
func (s *Server) tasksResult(c *call) (any, error) {
	id, err := taskID(c.params)
	if err != nil {
		return nil, err
	}
	type outcome struct {
		rec tasks.Record
		err error
	}
	ctx, stop := context.WithCancel(c.ctx)
	defer stop()
	done := make(chan outcome, 1)
	go func() {
		rec, err := s.engine.Result(ctx, c.owner, id)
		done <- outcome{rec, err}
	}()
	stream := s.streamSeq.Add(1)
	defer s.releaseInput(id, stream)
	var res outcome
	keepAlive := time.NewTicker(s.keepAlive)
	defer keepAlive.Stop()
wait:
	for {
		items, wake := s.takeInput(id, c.owner, stream)
		for _, p := range items {
			if err := c.out.send(p.msg); err != nil {
				s.releaseInput(id, stream)
				break
			}
		}
		select {
		case res = <-done:
			break wait
		case <-wake:
		case <-keepAlive.C:
			// A long wait moves to an SSE stream with keep-alive comments,
			// so idle-connection timeouts do not cut it.
			if p, ok := c.out.(pinger); ok {
				_ = p.ping()
			}
		case <-c.ctx.Done():
			res = <-done
			break wait
		}
	}
	if res.err != nil {
		return nil, res.err
	}
	o := res.rec.Outcome
	if o == nil {
		return nil, rpcErr(tasks.CodeInternalError, "internal error: task "+id+" has no stored outcome")
	}
	if o.Error != nil {
		return nil, o.Error
	}
	body, err := setMeta(o.Result, schema.RelatedTaskMetaKey, schema.RelatedTaskMetadata{TaskID: id})
	if err != nil {
		// Not an object: return it unchanged rather than alter it.
		return o.Result, nil
	}
	return json.RawMessage(body), nil
}
