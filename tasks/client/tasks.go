package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// MalformedError is a result the client could not read as the type its
// method returns: the server answered, but not with that shape.
type MalformedError struct {
	Method string
	Raw    json.RawMessage
	Err    error
}

// Error names the method, the problem and the start of the result.
func (e *MalformedError) Error() string {
	return fmt.Sprintf("%s: malformed result: %v: %s", e.Method, e.Err, truncate(string(e.Raw)))
}

// Unwrap returns the decoding problem.
func (e *MalformedError) Unwrap() error { return e.Err }

// ListTools pages through tools/list and returns every tool.
func (c *Client) ListTools(ctx context.Context) ([]schema.Tool, error) {
	var all []schema.Tool
	cursor := ""
	for page := 0; page < 1000; page++ {
		var params any
		if cursor != "" {
			params = map[string]string{"cursor": cursor}
		}
		raw, err := c.Call(ctx, wire.MethodToolsList, params)
		if err != nil {
			return nil, err
		}
		var res schema.ListToolsResult
		if err := DecodeResult(raw, &res); err != nil {
			return nil, &MalformedError{Method: wire.MethodToolsList, Raw: raw, Err: fmt.Errorf("decode: %w", err)}
		}
		all = append(all, res.Tools...)
		if res.NextCursor == nil || *res.NextCursor == "" {
			return all, nil
		}
		cursor = *res.NextCursor
	}
	return nil, fmt.Errorf("tools/list: more than 1000 pages")
}

// ToolCall describes a tools/call request.
type ToolCall struct {
	Name      string
	Arguments any
	// Meta is sent as params._meta (e.g. a progressToken).
	Meta map[string]any
	// Task, when non-nil, augments the call: it is sent as params.task.
	Task *TaskParams
}

// TaskParams is the `task` member of a task-augmented request.
type TaskParams struct {
	TTL *int64 `json:"ttl,omitempty"`
}

// Params returns the JSON params of the call.
func (tc ToolCall) Params() map[string]any {
	p := map[string]any{"name": tc.Name}
	if tc.Arguments != nil {
		p["arguments"] = tc.Arguments
	} else {
		p["arguments"] = map[string]any{}
	}
	if tc.Meta != nil {
		p["_meta"] = tc.Meta
	}
	if tc.Task != nil {
		p["task"] = tc.Task
	}
	return p
}

// CallTool calls a tool without task augmentation and returns the raw
// CallToolResult.
func (c *Client) CallTool(ctx context.Context, name string, args any, opts ...CallOption) (json.RawMessage, error) {
	return c.Call(ctx, wire.MethodToolsCall, ToolCall{Name: name, Arguments: args}.Params(), opts...)
}

// CallToolAsTask calls a tool with task augmentation (ttl nil: none
// requested) and returns the created task.
func (c *Client) CallToolAsTask(ctx context.Context, name string, args any, ttl *int64, opts ...CallOption) (*schema.CreateTaskResult, error) {
	return c.CreateTask(ctx, ToolCall{Name: name, Arguments: args, Task: &TaskParams{TTL: ttl}}, opts...)
}

// CreateTask sends tc (whose Task must be set) and decodes the
// CreateTaskResult.
func (c *Client) CreateTask(ctx context.Context, tc ToolCall, opts ...CallOption) (*schema.CreateTaskResult, error) {
	if tc.Task == nil {
		tc.Task = &TaskParams{}
	}
	raw, err := c.Call(ctx, wire.MethodToolsCall, tc.Params(), opts...)
	if err != nil {
		return nil, err
	}
	var res schema.CreateTaskResult
	if err := DecodeResult(raw, &res); err != nil {
		return nil, &MalformedError{Method: wire.MethodToolsCall, Raw: raw, Err: fmt.Errorf("decode CreateTaskResult: %w", err)}
	}
	if res.Task.TaskID == "" {
		return nil, &MalformedError{Method: wire.MethodToolsCall, Raw: raw, Err: errors.New("the reply has no task.taskId")}
	}
	return &res, nil
}

// GetTask sends tasks/get.
func (c *Client) GetTask(ctx context.Context, taskID string, opts ...CallOption) (*schema.GetTaskResult, error) {
	return c.taskCall(ctx, wire.MethodTasksGet, taskID, opts...)
}

// CancelTask sends tasks/cancel. Its result has the shape of a
// tasks/get result (the task, plus _meta), so it is returned as one.
func (c *Client) CancelTask(ctx context.Context, taskID string, opts ...CallOption) (*schema.GetTaskResult, error) {
	return c.taskCall(ctx, wire.MethodTasksCancel, taskID, opts...)
}

func (c *Client) taskCall(ctx context.Context, method, taskID string, opts ...CallOption) (*schema.GetTaskResult, error) {
	raw, err := c.Call(ctx, method, map[string]string{"taskId": taskID}, opts...)
	if err != nil {
		return nil, err
	}
	var t schema.GetTaskResult
	if err := DecodeResult(raw, &t); err != nil {
		return nil, &MalformedError{Method: method, Raw: raw, Err: fmt.Errorf("decode task: %w", err)}
	}
	return &t, nil
}

// Result sends tasks/result, which blocks until the task is terminal, and
// returns the raw payload. Server requests arriving on the response stream
// (elicitation/create) go to the RequestHandler and are answered; a JSON-RPC
// error outcome comes back as *RPCError.
func (c *Client) Result(ctx context.Context, taskID string, opts ...CallOption) (json.RawMessage, error) {
	return c.Call(ctx, wire.MethodTasksResult, map[string]string{"taskId": taskID}, opts...)
}

// ListTasks fetches one page of tasks/list ("" for the first page).
func (c *Client) ListTasks(ctx context.Context, cursor string) (*schema.ListTasksResult, error) {
	var params any
	if cursor != "" {
		params = map[string]string{"cursor": cursor}
	}
	raw, err := c.Call(ctx, wire.MethodTasksList, params)
	if err != nil {
		return nil, err
	}
	var res schema.ListTasksResult
	if err := DecodeResult(raw, &res); err != nil {
		return nil, &MalformedError{Method: wire.MethodTasksList, Raw: raw, Err: fmt.Errorf("decode: %w", err)}
	}
	return &res, nil
}

// ListAllTasks follows nextCursor until the end (at most maxPages pages).
func (c *Client) ListAllTasks(ctx context.Context, maxPages int) ([]schema.Task, error) {
	var all []schema.Task
	cursor := ""
	for page := 0; page < maxPages; page++ {
		res, err := c.ListTasks(ctx, cursor)
		if err != nil {
			return all, err
		}
		all = append(all, res.Tasks...)
		if res.NextCursor == nil || *res.NextCursor == "" {
			return all, nil
		}
		cursor = *res.NextCursor
	}
	return all, fmt.Errorf("tasks/list: still a nextCursor after %d pages", maxPages)
}

// WaitTerminal polls tasks/get, honouring the server's pollInterval (at
// least min, at most max), until the task is terminal or ctx ends. seen,
// if not nil, receives every status observed in order.
func (c *Client) WaitTerminal(ctx context.Context, taskID string, minPoll, maxPoll time.Duration, seen func(*schema.GetTaskResult)) (*schema.GetTaskResult, error) {
	for {
		t, err := c.GetTask(ctx, taskID)
		if err != nil {
			return nil, err
		}
		if seen != nil {
			seen(t)
		}
		if t.Terminal() {
			return t, nil
		}
		d := min(max(t.Poll(minPoll), minPoll), maxPoll)
		select {
		case <-ctx.Done():
			return t, fmt.Errorf("tasks/get %s: still %q: %w", taskID, t.Status, ctx.Err())
		case <-time.After(d):
		}
	}
}

// CancelRequest sends notifications/cancelled for a request id.
func (c *Client) CancelRequest(ctx context.Context, requestID json.RawMessage, reason string) error {
	return c.Notify(ctx, wire.NotificationCancelled, map[string]any{"requestId": requestID, "reason": reason})
}

// RelatedTaskID extracts _meta["io.modelcontextprotocol/related-task"].taskId
// from a result or params object; ok is false if the key is absent.
func RelatedTaskID(obj json.RawMessage) (id string, ok bool) {
	var v struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(obj, &v) != nil || v.Meta == nil {
		return "", false
	}
	raw, ok := v.Meta[wire.MetaRelatedTask]
	if !ok {
		return "", false
	}
	var rt struct {
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal(raw, &rt)
	return rt.TaskID, true
}

// DecodeResult decodes a server's result into v, one of the generated
// schema types. A result whose top-level _meta cannot be read into v is
// decoded again without it: an unreadable _meta then costs the caller that
// entry, and whatever check looks at _meta reports it, instead of the
// whole answer failing every check that reads the task.
func DecodeResult(raw json.RawMessage, v any) error {
	err := json.Unmarshal(raw, v)
	if err == nil {
		return nil
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return err
	}
	if _, ok := obj["_meta"]; !ok {
		return err
	}
	delete(obj, "_meta")
	// The failed attempt may have filled part of v; start again from zero.
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv.Elem().SetZero()
	}
	stripped, merr := json.Marshal(obj)
	if merr != nil {
		return err
	}
	if json.Unmarshal(stripped, v) != nil {
		return err
	}
	return nil
}
