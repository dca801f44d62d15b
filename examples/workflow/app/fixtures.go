package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptasks/mcptasks/adapters/gosdk"
	"github.com/mcptasks/mcptasks/tasks"
)

// Tools that are not part of the workflow but let the conformance suite
// judge the server's tasks completely (conformance --fixture role=tool).
const (
	ToolBatch  = "batch_job" // required task: waits ms
	ToolEcho   = "echo"      // plain tool, never a task
	ToolFlaky  = "flaky"     // a tool result with isError after ms
	ToolBroken = "broken"    // a JSON-RPC error after ms
	ToolAsk    = "ask"       // required task asking the requestor a question
	ToolCount  = "count"     // reports progress over ms
)

// Fixtures maps the conformance suite's fixture roles to this server's
// tools.
var Fixtures = map[string]string{
	"sleep":          ToolWait,
	"sleep_required": ToolBatch,
	"forbidden":      ToolEcho,
	"tool_error":     ToolFlaky,
	"rpc_error":      ToolBroken,
	"input":          ToolAsk,
	"progress":       ToolCount,
}

const msSchema = `{"type":"object","properties":{"ms":{"type":"integer","minimum":0,"maximum":600000}}}`

type msArgs struct {
	MS int64 `json:"ms"`
}

type countArgs struct {
	MS    int64 `json:"ms"`
	Steps int64 `json:"steps"`
}

type askArgs struct {
	Question string `json:"question"`
}

// addFixtures adds the fixture tools to a.
func addFixtures(a *gosdk.Adapter) error {
	mcp.AddTool(a.Server(), &mcp.Tool{Name: ToolEcho, Description: "Returns its text. Never a task."},
		func(_ context.Context, _ *mcp.CallToolRequest, in struct {
			Text string `json:"text,omitempty"`
		}) (*mcp.CallToolResult, any, error) {
			return textResult("echo: " + in.Text), nil, nil
		})
	wait := func(ctx context.Context, _ *gosdk.Call, in msArgs) (*mcp.CallToolResult, msArgs, error) {
		if err := pause(ctx, in.MS); err != nil {
			return nil, msArgs{}, err
		}
		return textResult(fmt.Sprintf("slept %d ms", in.MS)), in, nil
	}
	return errors.Join(
		gosdk.AddTool(a, &mcp.Tool{Name: ToolWait, Description: "Waits ms milliseconds. May run as a task.", InputSchema: json.RawMessage(msSchema)},
			gosdk.TaskOptional, wait, gosdk.WithImmediateResponse(func(json.RawMessage) string { return "Waiting in the background." })),
		gosdk.AddTool(a, &mcp.Tool{Name: ToolBatch, Description: "Waits ms milliseconds. Only as a task.", InputSchema: json.RawMessage(msSchema)},
			gosdk.TaskRequired, wait),
		gosdk.AddTool(a, &mcp.Tool{Name: ToolFlaky, Description: "Reports a tool error after ms milliseconds.", InputSchema: json.RawMessage(msSchema)},
			gosdk.TaskOptional, func(ctx context.Context, _ *gosdk.Call, in msArgs) (*mcp.CallToolResult, any, error) {
				if err := pause(ctx, in.MS); err != nil {
					return nil, nil, err
				}
				res := textResult(fmt.Sprintf("flaky: a deliberate tool error after %d ms", in.MS))
				res.IsError = true
				return res, nil, nil
			}),
		gosdk.AddTool(a, &mcp.Tool{Name: ToolBroken, Description: "Fails with a JSON-RPC error after ms milliseconds.", InputSchema: json.RawMessage(msSchema)},
			gosdk.TaskOptional, func(ctx context.Context, _ *gosdk.Call, in msArgs) (*mcp.CallToolResult, any, error) {
				if err := pause(ctx, in.MS); err != nil {
					return nil, nil, err
				}
				return nil, nil, &jsonrpc.Error{Code: -32000, Message: fmt.Sprintf("broken: a deliberate JSON-RPC error after %d ms", in.MS)}
			}),
		gosdk.AddTool(a, &mcp.Tool{Name: ToolAsk, Description: "Asks the requestor a question. Only as a task.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"question":{"type":"string","minLength":1,"maxLength":4096}},"required":["question"]}`)},
			gosdk.TaskRequired, askUser),
		gosdk.AddTool(a, &mcp.Tool{Name: ToolCount, Description: "Counts steps over ms milliseconds, reporting progress.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"ms":{"type":"integer","minimum":0,"maximum":600000},"steps":{"type":"integer","minimum":1,"maximum":1000}}}`)},
			gosdk.TaskOptional, countSteps),
	)
}

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// pause waits ms milliseconds (at most ten minutes) or until ctx ends.
func pause(ctx context.Context, ms int64) error {
	if ms <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(time.Duration(min(ms, 600_000)) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func countSteps(ctx context.Context, call *gosdk.Call, in countArgs) (*mcp.CallToolResult, countArgs, error) {
	if in.Steps <= 0 {
		in.Steps = 3
	}
	total := float64(in.Steps)
	for i := int64(1); i <= in.Steps; i++ {
		if err := pause(ctx, in.MS/in.Steps); err != nil {
			return nil, countArgs{}, err
		}
		_ = call.Progress(tasks.Progress{Progress: float64(i), Total: &total, Message: fmt.Sprintf("step %d of %d", i, in.Steps)})
	}
	return textResult(fmt.Sprintf("counted %d steps in %d ms", in.Steps, in.MS)), in, nil
}

func askUser(ctx context.Context, call *gosdk.Call, in askArgs) (*mcp.CallToolResult, any, error) {
	if call.Task == nil {
		return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "ask runs only as a task"}
	}
	params, err := json.Marshal(map[string]any{"mode": "form", "message": in.Question,
		"requestedSchema": json.RawMessage(`{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"]}`)})
	if err != nil {
		return nil, nil, err
	}
	raw, err := call.Task.RequireInput(ctx, tasks.InputRequest{Method: "elicitation/create", Params: params})
	if err != nil {
		var rpc *tasks.RPCError
		if errors.As(err, &rpc) {
			return nil, nil, &jsonrpc.Error{Code: rpc.Code, Message: rpc.Message, Data: rpc.Data}
		}
		return nil, nil, err
	}
	var res struct {
		Action  string         `json:"action"`
		Content map[string]any `json:"content"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || (res.Action != "accept" && res.Action != "decline" && res.Action != "cancel") {
		return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "the elicitation answer is not a valid ElicitResult"}
	}
	if res.Action != "accept" {
		return textResult("no answer: the requestor chose " + res.Action), nil, nil
	}
	answer, _ := res.Content["answer"].(string)
	return textResult("answer: " + answer), nil, nil
}
