package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptasks/mcptasks/adapters/gosdk"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/protocol"
)

// The example's tools. They double as the conformance suite's fixtures;
// Fixtures maps each fixture role to its tool here.
const (
	toolWait     = "wait"      // optional task: waits ms milliseconds
	toolBatch    = "batch_job" // required task: waits ms milliseconds
	toolEcho     = "echo"      // plain SDK tool, never a task
	toolFlaky    = "flaky"     // ends with a tool result with isError
	toolBroken   = "broken"    // ends with a JSON-RPC error
	toolAsk      = "ask"       // required task that asks the requestor a question
	toolCount    = "count"     // counts steps over ms, reporting progress
	rpcErrorCode = -32000      // the JSON-RPC error code "broken" ends with
	maxMillis    = 10 * 60 * 1000
)

// Fixtures maps the conformance suite's fixture roles to the tools of
// this server (conformance --fixture role=tool).
var Fixtures = map[string]string{
	"sleep":          toolWait,
	"sleep_required": toolBatch,
	"forbidden":      toolEcho,
	"tool_error":     toolFlaky,
	"rpc_error":      toolBroken,
	"input":          toolAsk,
	"progress":       toolCount,
}

// Server is the SDK server with tasks installed.
type Server struct {
	// MCP is the SDK server.
	MCP *mcp.Server
	// Adapter serves its tasks.
	Adapter *gosdk.Adapter
	log     *slog.Logger
}

const msSchema = `{"type":"object","properties":{"ms":{"type":"integer","minimum":0,"maximum":600000,"description":"how long to run, in milliseconds"}}}`

// waitArgs are the arguments of the waiting tools.
type waitArgs struct {
	MS int64 `json:"ms"`
}

// waited is the structured output of the waiting tools.
type waited struct {
	MS int64 `json:"ms"`
}

// New builds the example server on engine: a prompt, a resource, a plain
// tool and the task tools.
func New(engine *tasks.Engine, log *slog.Logger) (*Server, error) {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcptasks-gosdk-example", Version: "0.1.0"}, &mcp.ServerOptions{Logger: log})
	a, err := gosdk.Install(s, engine, &gosdk.Options{Logger: log,
		Core: []protocol.Option{protocol.WithImplementation(protocol.Implementation{Name: "mcptasks-gosdk-example", Version: "0.1.0"})}})
	if err != nil {
		return nil, err
	}

	// A prompt and a resource: the SDK serves them as usual.
	s.AddPrompt(&mcp.Prompt{Name: "summarize", Description: "Asks for a summary of a text.",
		Arguments: []*mcp.PromptArgument{{Name: "text", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user",
				Content: &mcp.TextContent{Text: "Summarize this: " + req.Params.Arguments["text"]}}}}, nil
		})
	s.AddResource(&mcp.Resource{URI: "info://server", Name: "server", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain",
				Text: "an MCP server on the Go SDK whose tools can run as durable tasks"}}}, nil
		})

	// A plain tool, added with the SDK alone: it never runs as a task.
	mcp.AddTool(s, &mcp.Tool{Name: toolEcho, Description: "Returns its text. Never runs as a task."},
		func(_ context.Context, _ *mcp.CallToolRequest, in struct {
			Text string `json:"text,omitempty"`
		}) (*mcp.CallToolResult, any, error) {
			return text("echo: " + in.Text), nil, nil
		})

	// Task tools.
	wait := func(ctx context.Context, _ *gosdk.Call, in waitArgs) (*mcp.CallToolResult, waited, error) {
		if err := sleep(ctx, in.MS); err != nil {
			return nil, waited{}, err
		}
		return text(fmt.Sprintf("slept %d ms", in.MS)), waited(in), nil
	}
	errs := []error{
		gosdk.AddTool(a, &mcp.Tool{Name: toolWait, Description: "Waits ms milliseconds. May run as a task.",
			InputSchema: json.RawMessage(msSchema)}, gosdk.TaskOptional, wait),
		gosdk.AddTool(a, &mcp.Tool{Name: toolBatch, Description: "Waits ms milliseconds. Runs only as a task.",
			InputSchema: json.RawMessage(msSchema)}, gosdk.TaskRequired, wait),
		gosdk.AddTool(a, &mcp.Tool{Name: toolFlaky, Description: "Waits ms milliseconds, then reports a tool error.",
			InputSchema: json.RawMessage(msSchema)}, gosdk.TaskOptional,
			func(ctx context.Context, _ *gosdk.Call, in waitArgs) (*mcp.CallToolResult, any, error) {
				if err := sleep(ctx, in.MS); err != nil {
					return nil, nil, err
				}
				res := text(fmt.Sprintf("flaky: deliberate tool failure after %d ms", in.MS))
				res.IsError = true
				return res, nil, nil
			}),
		gosdk.AddTool(a, &mcp.Tool{Name: toolBroken, Description: "Waits ms milliseconds, then fails with a JSON-RPC error.",
			InputSchema: json.RawMessage(msSchema)}, gosdk.TaskOptional,
			func(ctx context.Context, _ *gosdk.Call, in waitArgs) (*mcp.CallToolResult, any, error) {
				if err := sleep(ctx, in.MS); err != nil {
					return nil, nil, err
				}
				return nil, nil, &jsonrpc.Error{Code: rpcErrorCode,
					Message: fmt.Sprintf("broken: deliberate JSON-RPC error after %d ms", in.MS),
					Data:    json.RawMessage(fmt.Sprintf(`{"ms":%d}`, in.MS))}
			}),
		gosdk.AddTool(a, &mcp.Tool{Name: toolAsk, Description: "Asks the requestor a question, then returns the answer. Runs only as a task.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"question":{"type":"string","minLength":1,"maxLength":4096}},"required":["question"]}`)},
			gosdk.TaskRequired, ask),
		gosdk.AddTool(a, &mcp.Tool{Name: toolCount, Description: "Counts steps over ms milliseconds, reporting progress after each.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"ms":{"type":"integer","minimum":0,"maximum":600000},"steps":{"type":"integer","minimum":1,"maximum":1000}}}`)},
			gosdk.TaskOptional, count),
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &Server{MCP: s, Adapter: a, log: log}, nil
}

// text is a tool result with one text block.
func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// sleep waits ms milliseconds or until ctx ends (a cancelled task, a
// cancelled request).
func sleep(ctx context.Context, ms int64) error {
	if ms <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(time.Duration(min(ms, maxMillis)) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

type countArgs struct {
	MS    int64 `json:"ms"`
	Steps int64 `json:"steps"`
}

func count(ctx context.Context, call *gosdk.Call, in countArgs) (*mcp.CallToolResult, countArgs, error) {
	if in.Steps <= 0 {
		in.Steps = 3
	}
	total := float64(in.Steps)
	for i := int64(1); i <= in.Steps; i++ {
		if err := sleep(ctx, in.MS/in.Steps); err != nil {
			return nil, countArgs{}, err
		}
		_ = call.Progress(tasks.Progress{Progress: float64(i), Total: &total, Message: fmt.Sprintf("step %d of %d", i, in.Steps)})
	}
	return text(fmt.Sprintf("completed %d steps in %d ms", in.Steps, in.MS)), in, nil
}

// answerSchema is the form "ask" has the requestor fill.
const answerSchema = `{"type":"object","properties":{"answer":{"type":"string","description":"your answer"}},"required":["answer"]}`

type askArgs struct {
	Question string `json:"question"`
}

type asked struct {
	Action string `json:"action"`
	Answer string `json:"answer,omitempty"`
}

func ask(ctx context.Context, call *gosdk.Call, in askArgs) (*mcp.CallToolResult, asked, error) {
	if call.Task == nil {
		return nil, asked{}, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "ask runs only as a task"}
	}
	params, err := json.Marshal(map[string]any{"mode": "form", "message": in.Question, "requestedSchema": json.RawMessage(answerSchema)})
	if err != nil {
		return nil, asked{}, err
	}
	raw, err := call.Task.RequireInput(ctx, tasks.InputRequest{Method: "elicitation/create", Params: params})
	if err != nil {
		return nil, asked{}, rpcOf(err)
	}
	var res struct {
		Action  string         `json:"action"`
		Content map[string]any `json:"content"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || (res.Action != "accept" && res.Action != "decline" && res.Action != "cancel") {
		return nil, asked{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "the elicitation answer is not a valid ElicitResult"}
	}
	if res.Action != "accept" {
		return text("no answer: the requestor chose " + res.Action), asked{Action: res.Action}, nil
	}
	answer, _ := res.Content["answer"].(string)
	return text("answer: " + answer), asked{Action: res.Action, Answer: answer}, nil
}

// rpcOf keeps a JSON-RPC error from the engine (for example, a requestor
// without form elicitation) a JSON-RPC error of the task.
func rpcOf(err error) error {
	var rpc *tasks.RPCError
	if errors.As(err, &rpc) {
		return &jsonrpc.Error{Code: rpc.Code, Message: rpc.Message, Data: rpc.Data}
	}
	return err
}
