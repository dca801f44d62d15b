package gosdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/protocol"
)

// TaskSupport says whether a tool may, must or must not run as a task; it
// is announced as execution.taskSupport in tools/list.
type TaskSupport = protocol.TaskSupport

// The task support levels.
const (
	// TaskForbidden: the tool never runs as a task.
	TaskForbidden = protocol.TaskForbidden
	// TaskOptional: the requestor chooses.
	TaskOptional = protocol.TaskOptional
	// TaskRequired: a plain call is refused.
	TaskRequired = protocol.TaskRequired
)

// Call is what a tool handler added with AddTool learns about its call
// beyond the arguments.
type Call struct {
	// Task is the task the call runs as: its context is cancelled by
	// tasks/cancel, and it reads and writes the task's variables, reports
	// progress, asks the requestor for input (RequireInput) and can end the
	// task (Complete, Fail). It is nil for a plain call.
	Task tasks.TaskContext
	// Request is the SDK's request (session, params, extra). For a task
	// the request has already been answered: write to the client through
	// Task (progress, input) rather than through the request.
	Request *mcp.CallToolRequest

	tc *protocol.ToolCall
}

// Progress reports progress to the requestor: through the task for a
// task, on the request's stream for a plain call. It does nothing when
// the requestor sent no progressToken.
func (c *Call) Progress(p tasks.Progress) error {
	if c.tc != nil {
		return c.tc.Progress(p)
	}
	if c.Task != nil {
		return c.Task.Progress(p)
	}
	return nil
}

// ToolHandlerFor is a typed tool handler, like the SDK's
// mcp.ToolHandlerFor with a Call in place of the request. As in the SDK,
// an error that is a *jsonrpc.Error ends the call (or the task) with that
// JSON-RPC error; any other error becomes a tool result with isError.
type ToolHandlerFor[In, Out any] func(ctx context.Context, call *Call, in In) (*mcp.CallToolResult, Out, error)

type callKey struct{}

// ToolOption adjusts how AddTool serves a tool as a task.
type ToolOption func(*protocol.Tool)

// WithImmediateResponse makes a task-augmented call of the tool answer
// with f's message (when not empty) in its CreateTaskResult's _meta, as
// io.modelcontextprotocol/model-immediate-response: a text the host may
// give the model as the tool's immediate result while the task runs. f
// gets the call's arguments and must not block.
func WithImmediateResponse(f func(args json.RawMessage) string) ToolOption {
	return func(t *protocol.Tool) { t.ImmediateResponse = f }
}

// AddTool adds a tool to the adapter's server with the SDK's own
// mcp.AddTool (schemas inferred from In and Out, input validated, output
// marshalled) and announces its task support. Calls go through the
// tasks core: a task-augmented call of an optional or required tool
// answers with a task at once and runs h detached from the request; a
// plain call runs h on the request, and is refused for a required tool.
// Arguments are checked against the input schema before a task exists.
func AddTool[In, Out any](a *Adapter, t *mcp.Tool, support TaskSupport, h ToolHandlerFor[In, Out], opts ...ToolOption) error {
	if a == nil || t == nil || h == nil {
		return errors.New("gosdk: AddTool needs an adapter, a tool and a handler")
	}
	validate, err := validator[In](t)
	if err != nil {
		return fmt.Errorf("gosdk: tool %q: %w", t.Name, err)
	}
	pt := protocol.Tool{
		Name:        t.Name,
		Description: t.Description,
		TaskSupport: support,
		Validate:    validate,
		Handler:     a.runTool,
	}
	for _, o := range opts {
		o(&pt)
	}
	if err := a.core.Tools().Add(pt); err != nil {
		return fmt.Errorf("gosdk: %w", err)
	}
	mcp.AddTool(a.server, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		call, _ := ctx.Value(callKey{}).(*Call)
		if call == nil { // called without the adapter's middleware
			call = &Call{}
		}
		call.Request = req
		return h(ctx, call, in)
	})
	return nil
}

// validator returns a check of arguments against the tool's input schema
// (given, or inferred from In as the SDK does).
func validator[In any](t *mcp.Tool) (func(json.RawMessage) error, error) {
	var s *jsonschema.Schema
	switch v := t.InputSchema.(type) {
	case nil:
		var err error
		if s, err = jsonschema.For[In](nil); err != nil {
			// The SDK accepts an untyped input (any): no check.
			return nil, nil
		}
	case *jsonschema.Schema:
		s = v
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("input schema: %w", err)
		}
		s = new(jsonschema.Schema)
		if err := json.Unmarshal(b, s); err != nil {
			return nil, fmt.Errorf("input schema: %w", err)
		}
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	return func(args json.RawMessage) error {
		var v any
		if err := json.Unmarshal(args, &v); err != nil {
			return err
		}
		return resolved.Validate(v)
	}, nil
}

// runTool is the core's handler of every tool added with AddTool: it runs
// the SDK's tool handler through the rest of the middleware chain, with
// the Call in the context.
func (a *Adapter) runTool(ctx context.Context, tc *protocol.ToolCall) (json.RawMessage, error) {
	pc, _ := ctx.Value(pendingKey{}).(*pendingCall)
	if pc == nil {
		return nil, &tasks.RPCError{Code: jsonrpc.CodeInternalError, Message: "internal error: tool call without its SDK request"}
	}
	params := *pc.req.Params
	params.Arguments = tc.Arguments
	req := &mcp.CallToolRequest{Session: pc.req.Session, Params: &params, Extra: pc.req.Extra}
	runCtx := ctx // a task's context: detached from the request
	if tc.Task == nil {
		runCtx = pc.reqCtx // a plain call stays on its request's stream
	}
	call := &Call{Task: tc.Task, Request: req, tc: tc}
	res, err := pc.next(context.WithValue(runCtx, callKey{}, call), "tools/call", req)
	if err != nil {
		return nil, fromWire(err)
	}
	if res == nil {
		return nil, errors.New("the tool handler returned no result")
	}
	return marshal(res)
}
