package protocol

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mcptasks/mcptasks/internal/jsonvalid"
	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

func (c *Core) toolsList(_ context.Context, _ Caller, params json.RawMessage) (json.RawMessage, error) {
	var p schema.PaginatedRequestParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if p.Cursor != nil {
		return nil, badParam(`"cursor": tools/list has a single page, so no cursor is valid`)
	}
	return encodeResult(schema.ListToolsResult{Tools: c.tools.wireTools()})
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
	if JSONType(raw) != "a number" {
		return nil, badParam(`"task.ttl" must be an integer number of milliseconds, got %s`, JSONType(raw))
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

func (c *Core) toolsCall(ctx context.Context, caller Caller, params json.RawMessage, dst []byte) (json.RawMessage, error) {
	p, ok := plainCallParams(params)
	if !ok {
		// A variable of its own: decoding into it moves it to the
		// heap, which the plain path does not need.
		var q callParams
		if err := decodeParams(params, &q); err != nil {
			return nil, err
		}
		p = q
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
	token, hasToken, err := progressToken(p.Meta)
	if err != nil {
		return nil, err
	}
	tool, ok := c.tools.Lookup(p.Name)
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
		return nil, rpcErr(wire.CodeMethodNotFound, "tool "+strconv.Quote(p.Name)+" cannot run as a task (execution.taskSupport is not optional or required)")
	case !asTask && tool.TaskSupport == TaskRequired:
		return nil, rpcErr(wire.CodeMethodNotFound, "tool "+strconv.Quote(p.Name)+" must be called as a task (execution.taskSupport is required)")
	}
	if tool.Validate != nil {
		if err := tool.Validate(args); err != nil {
			return nil, badParam("arguments of %q: %v", p.Name, err)
		}
	}
	if !asTask {
		tc := &ToolCall{Name: p.Name, Arguments: args}
		if hasToken {
			sp := &streamProgress{ctx: ctx, out: caller, token: token}
			defer sp.end()
			tc.progress = sp.report
		}
		// A plain call has no way to ask for input in this profile; as a
		// task, Prepare runs in the task and asks through it.
		if tool.Prepare != nil {
			if err := safePrepare(tool.Prepare, ctx, tc); err != nil {
				if _, ok := errors.AsType[*InputRequired](err); ok {
					return nil, rpcErr(wire.CodeInvalidRequest, "tool "+strconv.Quote(p.Name)+" needs input before it can run, which "+ProtocolVersion+" offers only to a call made as a task")
				}
				return nil, err
			}
			tc.prepared = true
		}
		res, err := safeHandle(tool.Handler, ctx, tc)
		if err != nil {
			return nil, err
		}
		return appendResult(dst, res), nil
	}
	opts := []tasks.StartOption{tasks.WithInput(c.inputFor(sessionOf(caller)))}
	if hasToken {
		opts = append(opts, tasks.WithProgress(progressFor(sessionOf(caller), token)))
	}
	rec, err := c.startToolTask(ctx, caller.Owner(), ttl, tool, ToolCall{Name: p.Name, Arguments: args}, opts...)
	if err != nil {
		return nil, err
	}
	if tool.ImmediateResponse != nil {
		if msg := tool.ImmediateResponse(args); msg != "" {
			return appendResult(dst, createTaskResultImmediateJSON(rec, msg)), nil
		}
	}
	return appendCreateTaskResult(dst, rec), nil
}

// safeHandle runs a plain tool call, turning a panic into an error.
func safeHandle(h ToolHandler, ctx context.Context, tc *ToolCall) (res json.RawMessage, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, errors.New("tool handler panicked")
		}
	}()
	res, err = h(ctx, tc)
	if err == nil && (len(res) == 0 || !jsonvalid.Valid(res)) {
		err = errors.New("tool handler returned no valid result")
	}
	return res, err
}

// progressToken reads the progressToken of a request's _meta; has is false
// when there is none. A token that is neither a string nor an integer is
// refused.
func progressToken(meta schema.Meta) (token schema.ProgressToken, has bool, err error) {
	if _, ok := meta[wire.MetaProgressToken]; !ok {
		return token, false, nil
	}
	token, has, err = meta.ProgressToken()
	if err == nil && has && !token.IsZero() {
		if _, isInt := token.AsInt(); isInt || token.IsString() {
			return token, true, nil
		}
	}
	return schema.ProgressToken{}, false, badParam(`"_meta.progressToken" must be a string or an integer`)
}

// streamSender is what a plain call's progress is written to: the
// request's own stream (a Caller or a ModernCaller).
type streamSender interface {
	Send(msg []byte) error
}

// streamProgress sends the progress of a call answered on its own request
// (no task) on that request's stream, under the request's token: each
// value must be above the one before, and nothing goes out once the
// request has ended (cancelled, or the tool returned), so the token is
// never used after its request is over. Its methods are safe for
// concurrent use.
type streamProgress struct {
	ctx   context.Context
	out   streamSender
	token schema.ProgressToken

	mu    sync.Mutex
	last  float64
	sent  bool
	ended bool
}

// errProgressEnded is returned for progress reported after the call has
// been answered.
var errProgressEnded = errors.New("progress reported after the call ended")

// report sends p, or returns why it was not sent.
func (s *streamProgress) report(p tasks.Progress) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return errProgressEnded
	}
	if s.ctx.Err() != nil {
		return context.Cause(s.ctx)
	}
	if s.sent && p.Progress <= s.last {
		return badParam("progress must grow: %v after %v", p.Progress, s.last)
	}
	msg, err := EncodeRequest("", wire.NotificationProgress, progressParams(s.token, p, ""))
	if err != nil {
		return err
	}
	if err := s.out.Send(msg); err != nil {
		return err
	}
	s.sent, s.last = true, p.Progress
	return nil
}

// end stops further progress; it returns once no report is being sent.
func (s *streamProgress) end() {
	s.mu.Lock()
	s.ended = true
	s.mu.Unlock()
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
	if id, ok := plainTaskID(params); ok {
		return id, nil
	}
	var p schema.GetTaskRequestParams
	if err := decodeParams(params, &p); err != nil {
		return "", err
	}
	if p.TaskID == "" {
		return "", badParam(`"taskId" is required and must be a non-empty string`)
	}
	return p.TaskID, nil
}

// plainTaskID reads params of exactly the form {"taskId":"ID"}, the one
// polling clients send, without the reflection of encoding/json; ok is
// false for anything else (other members, spaces, escapes, control
// characters, invalid UTF-8), which then takes the general path.
func plainTaskID(params json.RawMessage) (string, bool) {
	const prefix, suffix = `{"taskId":"`, `"}`
	if len(params) <= len(prefix)+len(suffix) || string(params[:len(prefix)]) != prefix ||
		string(params[len(params)-len(suffix):]) != suffix {
		return "", false
	}
	id := params[len(prefix) : len(params)-len(suffix)]
	for _, b := range id {
		if b < 0x20 || b == '"' || b == '\\' || b >= utf8.RuneSelf {
			return "", false
		}
	}
	return string(id), true
}

func (c *Core) tasksGet(ctx context.Context, caller Caller, params json.RawMessage) (json.RawMessage, error) {
	id, err := taskID(params)
	if err != nil {
		return nil, err
	}
	rec, err := c.engine.Get(ctx, caller.Owner(), id)
	if err != nil {
		return nil, err
	}
	if rec.Status == tasks.StatusInputRequired {
		c.inputShown(rec.ID, rec.Owner)
	}
	return getTaskResultJSON(rec)
}

func (c *Core) tasksCancel(ctx context.Context, caller Caller, params json.RawMessage) (json.RawMessage, error) {
	id, err := taskID(params)
	if err != nil {
		return nil, err
	}
	rec, err := c.engine.Cancel(ctx, caller.Owner(), id, "")
	if err != nil {
		if errors.Is(err, tasks.ErrInvalidTransition) {
			var te *tasks.Error
			if errors.As(err, &te) && te.Status != "" {
				return nil, rpcErr(wire.CodeInvalidParams, "cannot cancel task "+id+": it is already in terminal status "+strconv.Quote(string(te.Status)))
			}
			return nil, rpcErr(wire.CodeInvalidParams, "cannot cancel task "+id+": it is already in a terminal status")
		}
		return nil, err
	}
	return encodeResult(schema.CancelTaskResult(WireGetResult(rec)))
}

func (c *Core) tasksList(ctx context.Context, caller Caller, params json.RawMessage) (json.RawMessage, error) {
	var p schema.PaginatedRequestParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	opts := tasks.ListOptions{}
	if p.Cursor != nil {
		if *p.Cursor == "" {
			return nil, badParam(`"cursor" must not be empty`)
		}
		opts.Cursor = *p.Cursor
	}
	page, err := c.engine.List(ctx, caller.Owner(), opts)
	if err != nil {
		return nil, err
	}
	res := schema.ListTasksResult{Tasks: make([]schema.Task, 0, len(page.Tasks))}
	for _, r := range page.Tasks {
		res.Tasks = append(res.Tasks, WireTask(r))
	}
	if page.NextCursor != "" {
		nc := page.NextCursor
		res.NextCursor = &nc
	}
	return encodeResult(res)
}

// tasksResult blocks until the task is terminal, meanwhile carrying the
// task's input requests (elicitations) on this request's stream, and then
// returns exactly the stored outcome, with related-task metadata on a
// successful result.
func (c *Core) tasksResult(ctx context.Context, caller Caller, params json.RawMessage) (json.RawMessage, error) {
	id, err := taskID(params)
	if err != nil {
		return nil, err
	}
	type outcome struct {
		rec tasks.Record
		err error
	}
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan outcome, 1)
	go func() {
		rec, err := c.engine.Result(rctx, caller.Owner(), id)
		done <- outcome{rec, err}
	}()
	stream := c.streamSeq.Add(1)
	c.watchInput(id, stream)
	defer c.unwatchInput(id, stream)
	var res outcome
wait:
	for {
		items, wake := c.takeInput(id, caller.Owner(), stream)
		for _, p := range items {
			if err := caller.Send(p.msg); err != nil {
				c.releaseInput(id, stream)
				break
			}
		}
		select {
		case res = <-done:
			break wait
		case <-wake:
		case <-ctx.Done():
			res = <-done
			break wait
		}
	}
	if res.err != nil {
		return nil, res.err
	}
	o := res.rec.Outcome
	if o == nil {
		return nil, rpcErr(wire.CodeInternalError, "internal error: task "+id+" has no stored outcome")
	}
	if o.Error != nil {
		return nil, o.Error
	}
	body, err := setMeta(o.Result, wire.MetaRelatedTask, schema.RelatedTaskMetadata{TaskID: id})
	if err != nil {
		// Not an object: return it unchanged rather than alter it.
		return o.Result, nil
	}
	return json.RawMessage(body), nil
}

// progressFor returns the ProgressFunc that sends a task's progress to the
// session that created it, under token.
func progressFor(sess Session, token schema.ProgressToken) tasks.ProgressFunc {
	return func(rec tasks.Record, p tasks.Progress) {
		msg, err := EncodeRequest("", wire.NotificationProgress, progressParams(token, p, rec.ID))
		if err != nil {
			return
		}
		sess.Notify(msg)
	}
}
