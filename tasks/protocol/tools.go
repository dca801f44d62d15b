package protocol

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/tasks"
)

// TaskSupport says whether a tool may, must or must not run as a task; it
// is announced as execution.taskSupport in tools/list.
type TaskSupport = schema.ToolExecutionTaskSupport

// The task support levels. An empty TaskSupport is announced as no
// execution member at all, which means forbidden.
const (
	TaskForbidden = schema.ToolExecutionTaskSupportForbidden
	TaskOptional  = schema.ToolExecutionTaskSupportOptional
	TaskRequired  = schema.ToolExecutionTaskSupportRequired
)

// ToolCall is one invocation of a tool.
type ToolCall struct {
	// Name is the tool's name.
	Name string
	// Arguments is the raw arguments object ({} when none was sent).
	Arguments json.RawMessage
	// Task is the task the call runs as; nil for a plain call.
	Task tasks.TaskContext
	// InputResponses are the client's answers, by key, to the input the
	// tool's Prepare asked for in the previous round (see InputRequired);
	// nil in the first round. Only keys that round asked are kept.
	InputResponses map[string]json.RawMessage
	// State is the State of the previous round's InputRequired, verified
	// by the core; nil in the first round.
	State []byte
	// prepared: the tool's Prepare already ran and is satisfied.
	prepared bool
	// progress reports progress for either kind of call; nil when the
	// requestor sent no progressToken.
	progress func(tasks.Progress) error
}

// Progress reports progress to the requestor: on a task it goes through
// the task (and stops when the task ends); on a plain call it goes on the
// request's own stream. Without a progressToken it does nothing.
func (c *ToolCall) Progress(p tasks.Progress) error {
	if c.Task != nil {
		return c.Task.Progress(p)
	}
	if c.progress != nil {
		return c.progress(p)
	}
	return nil
}

// ToolHandler runs a tool. ctx is the task's context for a task (detached
// from the HTTP request, cancelled by tasks/cancel) or the request's
// context for a plain call. It returns the CallToolResult as JSON; an
// error that is an *tasks.RPCError becomes that JSON-RPC error, any other
// error an internal error.
type ToolHandler func(ctx context.Context, call *ToolCall) (json.RawMessage, error)

// Tool is a tool the server offers.
type Tool struct {
	// Name identifies the tool in tools/call.
	Name string
	// Description is shown to users and models.
	Description string
	// InputSchema is the JSON Schema of the arguments; nil means an object
	// with no declared properties.
	InputSchema json.RawMessage
	// TaskSupport announces whether the tool runs as a task.
	TaskSupport TaskSupport
	// Validate, if set, checks the arguments before anything runs; its
	// error is answered as -32602 and no task is created.
	Validate func(args json.RawMessage) error
	// Handler runs the tool.
	Handler ToolHandler
	// Prepare, if set, runs before Handler and before any task is
	// created, with the call's arguments and, on a retry, the answers of
	// the previous round. Returning an *InputRequired asks the client for
	// input first: in the 2026-07-28 profile the tools/call is answered
	// with an InputRequiredResult and the client retries it with the
	// answers; when the call already runs as a task (2025-11-25) the
	// input is asked through the task. Any other error fails the call.
	// Handler then sees the InputResponses and State Prepare was last
	// given.
	Prepare func(ctx context.Context, call *ToolCall) error
	// ImmediateResponse, if set, is asked for a message when a call of the
	// tool starts a task; a non-empty answer is sent in the
	// CreateTaskResult's _meta as io.modelcontextprotocol/model-immediate-response,
	// a text the host may hand the model as the tool's immediate result
	// while the task runs. It gets the call's validated arguments and must
	// not block.
	ImmediateResponse func(args json.RawMessage) string
}

// Registry holds the tools of a server, in registration order. It is safe
// for concurrent use.
type Registry struct {
	mu    sync.RWMutex
	order []string
	tools map[string]*registered
}

type registered struct {
	Tool
	wire schema.Tool
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{tools: make(map[string]*registered)} }

// Add registers t. The name must be new and non-empty, the handler set and
// the input schema (if any) a JSON object with "type": "object".
func (r *Registry) Add(t Tool) error {
	if t.Name == "" || t.Handler == nil {
		return fmt.Errorf("protocol: tool %q needs a name and a handler", t.Name)
	}
	w := schema.Tool{Name: t.Name, InputSchema: schema.ToolInputSchema{Type: "object"}}
	if t.Description != "" {
		d := t.Description
		w.Description = &d
	}
	if len(t.InputSchema) > 0 {
		if err := json.Unmarshal(t.InputSchema, &w.InputSchema); err != nil || w.InputSchema.Type != "object" {
			return fmt.Errorf("protocol: tool %q: input schema must be a JSON object schema with type object", t.Name)
		}
	}
	if t.TaskSupport != "" {
		if !t.TaskSupport.Valid() {
			return fmt.Errorf("protocol: tool %q: unknown task support %q", t.Name, t.TaskSupport)
		}
		ts := t.TaskSupport
		w.Execution = &schema.ToolExecution{TaskSupport: &ts}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.tools[t.Name]; dup {
		return fmt.Errorf("protocol: tool %q registered twice", t.Name)
	}
	r.tools[t.Name] = &registered{Tool: t, wire: w}
	r.order = append(r.order, t.Name)
	return nil
}

// Lookup returns the tool named name.
func (r *Registry) Lookup(name string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.tools[name]
	if !ok {
		return Tool{}, false
	}
	return t.Tool, true
}

// wireTools lists the tools as tools/list shows them.
func (r *Registry) wireTools() []schema.Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]schema.Tool, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.tools[n].wire)
	}
	return out
}
