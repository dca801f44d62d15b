// Package gosdkflow serves the workflows of package tasks/workflow as
// prompts of a server built on the official Go SDK, with tasks from the
// gosdk adapter.
//
// Each workflow becomes a prompt: prompts/get starts the workflow as a task
// owned by the caller (the adapter's owner rule), runs its server steps
// and answers with the handoff, whose last message is the assistant's
// account of the task with a JSON block of its state; the result's _meta
// names the task under io.modelcontextprotocol/related-task.
//
// A receiving middleware binds tools/call requests whose _meta names a
// workflow's task under io.modelcontextprotocol/related-task: the call is
// checked first (owner, status, the step the workflow waits for) and
// refused, changing nothing, when it may not continue the workflow; then
// the tool runs as usual, its result is recorded as the step's output,
// the workflow's next server steps run, and the tool result comes back
// with the workflow's new state in _meta under StateMetaKey.
package gosdkflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptasks/mcptasks/adapters/gosdk"
	"github.com/mcptasks/mcptasks/tasks/workflow"
)

// StateMetaKey is the _meta key under which a bound call's result carries
// the workflow's state after the call (the same JSON as the handoff's
// block).
const StateMetaKey = "dev.mcptasks/workflow"

// Flows serves a runner's workflows on an adapter's server.
type Flows struct {
	adapter *gosdk.Adapter
	runner  *workflow.Runner
}

// Install adds every workflow of runner as a prompt of the adapter's
// server and binds continuation calls. Add the workflows and their
// server tools to the runner first; call Install once, after
// gosdk.Install.
func Install(a *gosdk.Adapter, runner *workflow.Runner) (*Flows, error) {
	if a == nil || runner == nil {
		return nil, errors.New("gosdkflow: Install needs an adapter and a runner")
	}
	f := &Flows{adapter: a, runner: runner}
	for _, w := range runner.Workflows() {
		p := &mcp.Prompt{Name: w.Name, Description: w.Description}
		for _, arg := range w.Arguments {
			p.Arguments = append(p.Arguments, &mcp.PromptArgument{Name: arg.Name, Description: arg.Description, Required: arg.Required})
		}
		name := w.Name
		a.Server().AddPrompt(p, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return f.getPrompt(ctx, name, req)
		})
	}
	a.Server().AddReceivingMiddleware(f.middleware)
	return f, nil
}

// AddTool adds a tool that is both an SDK tool of the server (clients may
// call it, bound to a workflow or not) and a server-step tool of the
// runner. Its output is the step's output and the tool result's
// structured content.
func AddTool[In, Out any](f *Flows, t *mcp.Tool, fn func(ctx context.Context, in In) (Out, error)) error {
	if f == nil || t == nil || fn == nil {
		return errors.New("gosdkflow: AddTool needs flows, a tool and a function")
	}
	mcp.AddTool(f.adapter.Server(), t, func(ctx context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		out, err := fn(ctx, in)
		return nil, out, err
	})
	return f.runner.AddTool(t.Name, func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
		var in In
		if err := json.Unmarshal(args, &in); err != nil {
			return nil, fmt.Errorf("arguments of %s: %w", t.Name, err)
		}
		out, err := fn(ctx, in)
		if err != nil {
			return nil, err
		}
		return json.Marshal(out)
	})
}

// getPrompt starts a workflow and answers with its handoff.
func (f *Flows) getPrompt(ctx context.Context, name string, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	owner, err := f.adapter.OwnerOf(req.Session, req.Extra)
	if err != nil {
		return nil, f.wireError("prompts/get", err)
	}
	var args map[string]string
	if req.Params != nil {
		args = req.Params.Arguments
	}
	// The server steps run to their end even if the client goes away:
	// the task, not the request, holds the workflow.
	st, err := f.runner.Start(context.WithoutCancel(ctx), owner, name, args)
	if err != nil {
		return nil, f.wireError("prompts/get", err)
	}
	w, _ := f.runner.Workflow(name)
	intro := fmt.Sprintf("Run the workflow %s", name)
	if w.Description != "" {
		intro += ": " + w.Description
	}
	if len(args) > 0 {
		b, _ := json.Marshal(args)
		intro += fmt.Sprintf(" (arguments %s)", b)
	}
	return &mcp.GetPromptResult{
		Meta:        mcp.Meta{workflow.RelatedTaskMeta: map[string]string{"taskId": st.TaskID}},
		Description: fmt.Sprintf("workflow %s, task %s", name, st.TaskID),
		Messages: []*mcp.PromptMessage{
			{Role: "user", Content: &mcp.TextContent{Text: intro + "."}},
			{Role: "assistant", Content: &mcp.TextContent{Text: st.Handoff()}},
		},
	}, nil
}

// middleware binds tools/call requests that name a workflow's task.
func (f *Flows) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		creq, ok := req.(*mcp.CallToolRequest)
		if !ok || creq.Params == nil {
			return next(ctx, method, req)
		}
		id, bound, err := relatedTask(creq.Params.Meta)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid params: " + err.Error()}
		}
		if !bound {
			return next(ctx, method, req)
		}
		if _, asTask := creq.Params.Meta[carriedTaskKey]; asTask {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
				Message: "invalid params: a call bound to a workflow's task cannot itself be task-augmented (drop params.task)"}
		}
		owner, err := f.adapter.OwnerOf(creq.Session, creq.Extra)
		if err != nil {
			return nil, f.wireError(method, err)
		}
		b, err := f.runner.Bind(ctx, owner, id, creq.Params.Name)
		if err != nil {
			return nil, f.wireError(method, err)
		}
		res, callErr := next(ctx, method, req)
		output, failure := outcome(res, callErr)
		st, err := f.runner.Record(context.WithoutCancel(ctx), b, output, failure)
		if err != nil {
			if callErr != nil {
				return nil, callErr
			}
			return nil, f.wireError(method, err)
		}
		if callErr != nil {
			return nil, callErr
		}
		return withMeta(res, map[string]any{
			workflow.RelatedTaskMeta: map[string]string{"taskId": id},
			StateMetaKey:             st,
		})
	}
}

// carriedTaskKey is where the gosdk adapter carries a call's params.task
// through the SDK (see adapters/gosdk).
const carriedTaskKey = "dev.mcptasks/carried-task"

// relatedTask reads io.modelcontextprotocol/related-task from _meta.
func relatedTask(meta mcp.Meta) (string, bool, error) {
	v, ok := meta[workflow.RelatedTaskMeta]
	if !ok {
		return "", false, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", false, err
	}
	var rt struct {
		TaskID *string `json:"taskId"`
	}
	if err := json.Unmarshal(b, &rt); err != nil || rt.TaskID == nil || *rt.TaskID == "" {
		return "", false, fmt.Errorf("_meta[%q] must be an object with a non-empty string taskId", workflow.RelatedTaskMeta)
	}
	return *rt.TaskID, true, nil
}

// outcome turns a tool call's result into a step's output (the structured
// content when there is some, else the whole result) or a failure.
func outcome(res mcp.Result, err error) (json.RawMessage, string) {
	if err != nil {
		return nil, err.Error()
	}
	raw, merr := json.Marshal(res)
	if merr != nil {
		return nil, "the tool result could not be encoded: " + merr.Error()
	}
	var probe struct {
		IsError           bool            `json:"isError"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		Content           []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(raw, &probe) != nil {
		return raw, ""
	}
	if probe.IsError {
		msg := "the tool reported an error"
		for _, c := range probe.Content {
			if c.Type == "text" && c.Text != "" {
				msg = c.Text
				break
			}
		}
		return nil, msg
	}
	if len(probe.StructuredContent) > 0 && string(probe.StructuredContent) != "null" {
		return probe.StructuredContent, ""
	}
	return raw, ""
}

// withMeta adds entries to a tools/call result's _meta.
func withMeta(res mcp.Result, add map[string]any) (mcp.Result, error) {
	if r, ok := res.(*mcp.CallToolResult); ok {
		if r.Meta == nil {
			r.Meta = mcp.Meta{}
		}
		for k, v := range add {
			r.Meta[k] = v
		}
		return r, nil
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return res, nil
	}
	meta, _ := m["_meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	for k, v := range add {
		meta[k] = v
	}
	m["_meta"] = meta
	out, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return &rawResult{raw: out}, nil
}

// rawResult is a result already encoded as JSON.
type rawResult struct {
	mcp.ResultBase
	raw json.RawMessage
}

// MarshalJSON returns the encoded result.
func (r *rawResult) MarshalJSON() ([]byte, error) { return r.raw, nil }

// wireError turns a runner or store error into the JSON-RPC error the
// adapter's core gives for it: -32602 for what the requestor got wrong
// (an unknown and a foreign task read exactly alike), -32603 with a log
// reference otherwise.
func (f *Flows) wireError(method string, err error) error {
	e := f.adapter.Core().WireError(method, err)
	return &jsonrpc.Error{Code: e.Code, Message: e.Message, Data: e.Data}
}
