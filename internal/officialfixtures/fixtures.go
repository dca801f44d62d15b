// Package officialfixtures serves, on the reference server, the fixture
// tools the official MCP conformance suite
// (@modelcontextprotocol/conformance) calls by name in its tasks-extension
// scenarios: greet, slow_compute, failing_job, protocol_error_job,
// confirm_delete, multi_input and test_tool_with_task. It is test-only:
// the reference server's own fixtures keep their fixture_* names.
package officialfixtures

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/protocol"
	"github.com/mcptasks/mcptasks/tasks/server"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// Tools returns the official suite's fixture tools.
func Tools() []server.Tool {
	obj := func(props string) json.RawMessage {
		return json.RawMessage(`{"type":"object","properties":{` + props + `}}`)
	}
	return []server.Tool{
		{Name: "greet", Description: "Greets name at once; never a task.", TaskSupport: server.TaskForbidden,
			InputSchema: obj(`"name":{"type":"string"}`),
			Handler: func(_ context.Context, c *server.ToolCall) (json.RawMessage, error) {
				var a struct{ Name string }
				_ = json.Unmarshal(c.Arguments, &a)
				return text(fmt.Sprintf("Hello, %s!", a.Name), false), nil
			}},
		{Name: "slow_compute", Description: "Sleeps seconds, then returns label; ends cancelled when cancelled.", TaskSupport: server.TaskOptional,
			InputSchema: obj(`"seconds":{"type":"number","minimum":0,"maximum":600},"label":{"type":"string"}`),
			Handler: func(ctx context.Context, c *server.ToolCall) (json.RawMessage, error) {
				var a struct {
					Seconds float64
					Label   string
				}
				_ = json.Unmarshal(c.Arguments, &a)
				if err := sleep(ctx, time.Duration(min(a.Seconds, 600)*float64(time.Second))); err != nil {
					return nil, err
				}
				return text(fmt.Sprintf("computed %s after %g s", a.Label, a.Seconds), false), nil
			}},
		{Name: "failing_job", Description: "Returns a tool execution error (isError) after about a second. Runs only as a task.", TaskSupport: server.TaskRequired,
			InputSchema: obj(``),
			Handler: func(ctx context.Context, _ *server.ToolCall) (json.RawMessage, error) {
				if err := sleep(ctx, time.Second); err != nil {
					return nil, err
				}
				return text("failing_job: the job failed", true), nil
			}},
		{Name: "protocol_error_job", Description: "Fails with a JSON-RPC internal error.", TaskSupport: server.TaskOptional,
			InputSchema: obj(``),
			Handler: func(ctx context.Context, _ *server.ToolCall) (json.RawMessage, error) {
				if err := sleep(ctx, 200*time.Millisecond); err != nil {
					return nil, err
				}
				return nil, &tasks.RPCError{Code: wire.CodeInternalError, Message: "protocol_error_job: deliberate internal error"}
			}},
		{Name: "confirm_delete", Description: "Asks the requestor to confirm deleting filename, then reports the decision. Must run as a task.",
			TaskSupport: server.TaskRequired, InputSchema: obj(`"filename":{"type":"string"}`),
			Handler: func(ctx context.Context, c *server.ToolCall) (json.RawMessage, error) {
				if c.Task == nil {
					return nil, &tasks.RPCError{Code: wire.CodeMethodNotFound, Message: "confirm_delete must run as a task"}
				}
				var a struct{ Filename string }
				_ = json.Unmarshal(c.Arguments, &a)
				res, err := ask(ctx, c.Task, "Delete "+a.Filename+"?", `{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`)
				if err != nil {
					return nil, err
				}
				return text(fmt.Sprintf("confirm_delete %s: %s %s", a.Filename, res.Action, res.Content), false), nil
			}},
		{Name: "multi_input", Description: "Asks two questions at once and completes when both are answered. Must run as a task.",
			TaskSupport: server.TaskRequired, InputSchema: obj(``),
			Handler: func(ctx context.Context, c *server.ToolCall) (json.RawMessage, error) {
				if c.Task == nil {
					return nil, &tasks.RPCError{Code: wire.CodeMethodNotFound, Message: "multi_input must run as a task"}
				}
				var wg sync.WaitGroup
				answers := make([]elicitResult, 2)
				errs := make([]error, 2)
				for i, q := range []string{"First value?", "Second value?"} {
					wg.Add(1)
					go func() {
						defer wg.Done()
						answers[i], errs[i] = ask(ctx, c.Task, q, `{"type":"object","properties":{"value":{"type":"string"}},"required":["value"]}`)
					}()
				}
				wg.Wait()
				if err := errors.Join(errs...); err != nil {
					return nil, err
				}
				return text(fmt.Sprintf("multi_input: %s and %s", answers[0].Content, answers[1].Content), false), nil
			}},
		{Name: "test_tool_with_task", Description: "Asks for user_name before it becomes a task (a multi-round-trip tools/call), then greets that name from the task. Runs only as a task.",
			TaskSupport: server.TaskRequired, InputSchema: obj(``),
			Prepare: func(_ context.Context, c *server.ToolCall) error {
				if _, ok := userName(c); ok {
					return nil
				}
				params, err := json.Marshal(map[string]any{"mode": "form", "message": "What is your name?",
					"requestedSchema": json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)})
				if err != nil {
					return err
				}
				return &protocol.InputRequired{Requests: map[string]tasks.InputRequest{"user_name": {Method: wire.MethodElicitationCreate, Params: params}}}
			},
			Handler: func(ctx context.Context, c *server.ToolCall) (json.RawMessage, error) {
				name, _ := userName(c)
				if err := sleep(ctx, 500*time.Millisecond); err != nil {
					return nil, err
				}
				return text("test_tool_with_task: hello, "+name, false), nil
			}},
	}
}

// userName reads the accepted answer to test_tool_with_task's question.
func userName(c *server.ToolCall) (string, bool) {
	var a struct {
		Action  string `json:"action"`
		Content struct {
			Name string `json:"name"`
		} `json:"content"`
	}
	if json.Unmarshal(c.InputResponses["user_name"], &a) != nil || a.Action != "accept" || a.Content.Name == "" {
		return "", false
	}
	return a.Content.Name, true
}

// elicitResult is the part of an elicitation answer the fixtures read.
type elicitResult struct {
	Action  string          `json:"action"`
	Content json.RawMessage `json:"content"`
}

// ask puts the task in input_required with one form elicitation and
// returns the answer.
func ask(ctx context.Context, t tasks.TaskContext, message, requested string) (elicitResult, error) {
	params, err := json.Marshal(map[string]any{"mode": "form", "message": message, "requestedSchema": json.RawMessage(requested)})
	if err != nil {
		return elicitResult{}, err
	}
	raw, err := t.RequireInput(ctx, tasks.InputRequest{Method: wire.MethodElicitationCreate, Params: params})
	if err != nil {
		return elicitResult{}, err
	}
	var r elicitResult
	if err := json.Unmarshal(raw, &r); err != nil || r.Action == "" {
		return r, &tasks.RPCError{Code: wire.CodeInvalidParams, Message: "the elicitation answer is not a valid ElicitResult"}
	}
	return r, nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}

func text(s string, isError bool) json.RawMessage {
	m := map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}}
	if isError {
		m["isError"] = true
	}
	b, _ := json.Marshal(m)
	return b
}
