package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcptasks/mcptasks/tasks"
)

// ToolFunc runs a server step: it gets the step's resolved arguments (a
// JSON object) and returns the step's output (any JSON value). An error
// fails the step.
type ToolFunc func(ctx context.Context, args json.RawMessage) (json.RawMessage, error)

// MethodPromptsGet is the method recorded as a workflow task's request.
const MethodPromptsGet = "prompts/get"

// Pause reasons.
const (
	// ReasonClientStep: the next step is the client's.
	ReasonClientStep = "client step"
	// ReasonStepFailed: a step failed; the client may do it instead.
	ReasonStepFailed = "step failed"
	// ReasonUnresolvedDependency: a step's arguments need the output of a
	// step that failed or was skipped.
	ReasonUnresolvedDependency = "unresolved dependency"
	// ReasonInterrupted: the server running the workflow's steps stopped
	// (it crashed or was restarted mid-step) and nothing changed for
	// longer than the step timeout; the client may do the step itself.
	ReasonInterrupted = "interrupted"
)

// DefaultStepTimeout is how long a workflow may show a running server
// step without any change before a bound call takes it for interrupted.
const DefaultStepTimeout = 10 * time.Minute

// Step statuses, in server.workflow.steps.STEP.status.
const (
	StepRunning = "running"
	StepDone    = "done"
	StepFailed  = "failed"
	StepSkipped = "skipped"
)

// Workflow statuses, in server.workflow.status.
const (
	StatusRunning   = "running"
	StatusPaused    = "paused"
	StatusCompleted = "completed"
)

// Variable names (see the package documentation).
const (
	VarName   = tasks.ServerVariablePrefix + "workflow.name"
	VarArgs   = tasks.ServerVariablePrefix + "workflow.args"
	VarStatus = tasks.ServerVariablePrefix + "workflow.status"
	VarPause  = tasks.ServerVariablePrefix + "workflow.pause"
)

// StepVar is the server variable holding field (status, output, error) of
// step.
func StepVar(step, field string) string {
	return tasks.ServerVariablePrefix + "workflow.steps." + step + "." + field
}

// ClientOutputVar is the client variable holding a client step's output.
func ClientOutputVar(step string) string {
	return tasks.ClientVariablePrefix + "workflow.steps." + step + ".output"
}

// Option configures a Runner.
type Option func(*Runner)

// WithLogger sets the runner's logger; default slog.Default().
func WithLogger(l *slog.Logger) Option {
	return func(r *Runner) {
		if l != nil {
			r.log = l
		}
	}
}

// WithStepTimeout sets how long a workflow may run server steps without
// any change to its task before it counts as interrupted (default
// DefaultStepTimeout). It must exceed the longest server step: a step
// still running after it may be done a second time by the client.
func WithStepTimeout(d time.Duration) Option {
	return func(r *Runner) {
		if d > 0 {
			r.stepTimeout = d
		}
	}
}

// WithClock sets the clock the step timeout is measured with; it should
// be the store's (tasks.Config.Clock). Default tasks.SystemClock.
func WithClock(c tasks.Clock) Option {
	return func(r *Runner) {
		if c != nil {
			r.clock = c
		}
	}
}

// WithTTL sets the ttl asked for workflow tasks (the store's policy
// applies); default: the store's default ttl.
func WithTTL(d time.Duration) Option { return func(r *Runner) { r.ttl = &d } }

// Runner starts and continues workflows on a task store. It is safe for
// concurrent use. Calls on one task are serialised within a Runner;
// runners of several instances sharing a store should not continue the
// same task at the same moment (a client continues one step at a time).
type Runner struct {
	store       tasks.Store
	log         *slog.Logger
	ttl         *time.Duration
	stepTimeout time.Duration
	clock       tasks.Clock

	mu    sync.Mutex
	flows map[string]*Workflow
	tools map[string]ToolFunc
	locks map[string]*taskLock
}

type taskLock struct {
	mu   sync.Mutex
	refs int
}

// NewRunner returns a runner whose tasks live in store.
func NewRunner(store tasks.Store, opts ...Option) *Runner {
	r := &Runner{store: store, log: slog.Default(), stepTimeout: DefaultStepTimeout, clock: tasks.SystemClock{}, flows: map[string]*Workflow{}, tools: map[string]ToolFunc{}, locks: map[string]*taskLock{}}
	for _, o := range opts {
		o(r)
	}
	return r
}

// Add registers a workflow after validating it.
func (r *Runner) Add(w Workflow) error {
	if err := w.Validate(); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.flows[w.Name]; dup {
		return fmt.Errorf("workflow %q already added", w.Name)
	}
	cp := w
	cp.Steps = slices.Clone(w.Steps)
	cp.Arguments = slices.Clone(w.Arguments)
	r.flows[w.Name] = &cp
	return nil
}

// AddTool registers the function server steps naming tool call.
func (r *Runner) AddTool(tool string, fn ToolFunc) error {
	if tool == "" || fn == nil {
		return errors.New("workflow: AddTool needs a name and a function")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tools[tool] = fn
	return nil
}

// Workflow returns the workflow named name.
func (r *Runner) Workflow(name string) (Workflow, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	w, ok := r.flows[name]
	if !ok {
		return Workflow{}, false
	}
	return *w, true
}

// Workflows returns every workflow, sorted by name.
func (r *Runner) Workflows() []Workflow {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Workflow, 0, len(r.flows))
	for _, n := range slices.Sorted(maps.Keys(r.flows)) {
		out = append(out, *r.flows[n])
	}
	return out
}

func (r *Runner) tool(name string) (ToolFunc, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fn, ok := r.tools[name]
	return fn, ok
}

// lock serialises work on one task within the runner.
func (r *Runner) lock(id string) func() {
	r.mu.Lock()
	l := r.locks[id]
	if l == nil {
		l = &taskLock{}
		r.locks[id] = l
	}
	l.refs++
	r.mu.Unlock()
	l.mu.Lock()
	return func() {
		l.mu.Unlock()
		r.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(r.locks, id)
		}
		r.mu.Unlock()
	}
}

// Start checks args against the workflow's arguments, creates a task
// owned by owner and runs the workflow's server steps up to the first
// pause or the end. Bad input (ErrUnknownWorkflow, ErrMissingArgument)
// creates nothing. The returned State describes the task afterwards.
func (r *Runner) Start(ctx context.Context, owner tasks.Owner, name string, args map[string]string) (*State, error) {
	w, ok := r.Workflow(name)
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownWorkflow, name)
	}
	declared := map[string]bool{}
	for _, a := range w.Arguments {
		declared[a.Name] = true
		if _, ok := args[a.Name]; a.Required && !ok {
			return nil, fmt.Errorf("%w: workflow %q needs argument %q", ErrMissingArgument, name, a.Name)
		}
	}
	for k := range args {
		if !declared[k] {
			return nil, fmt.Errorf("%w: workflow %q has no argument %q", ErrMissingArgument, name, k)
		}
	}
	if args == nil {
		args = map[string]string{}
	}
	ab, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	rec, err := r.store.Create(ctx, owner, tasks.CreateParams{
		Method:        MethodPromptsGet,
		TTL:           r.ttl,
		StatusMessage: fmt.Sprintf("workflow %s started", name),
		Variables: map[string]json.RawMessage{
			VarName:   jsonString(name),
			VarArgs:   ab,
			VarStatus: jsonString(StatusRunning),
		},
	})
	if err != nil {
		return nil, err
	}
	r.log.Info("workflow started", "owner", owner, "task", rec.ID, "workflow", name)
	unlock := r.lock(rec.ID)
	defer unlock()
	return r.advance(ctx, &w, rec)
}

// State reads a workflow task's state without changing it.
func (r *Runner) State(ctx context.Context, owner tasks.Owner, id string) (*State, error) {
	rec, w, err := r.load(ctx, owner, id)
	if err != nil {
		return nil, err
	}
	return stateOf(w, rec), nil
}

// load reads a workflow task: ErrNotFound for unknown and foreign tasks.
func (r *Runner) load(ctx context.Context, owner tasks.Owner, id string) (tasks.Record, *Workflow, error) {
	rec, err := r.store.Get(ctx, owner, id)
	if err != nil {
		return tasks.Record{}, nil, err
	}
	var name string
	if raw, ok := rec.Variables[VarName]; !ok || json.Unmarshal(raw, &name) != nil || rec.Method != MethodPromptsGet {
		return tasks.Record{}, nil, fmt.Errorf("%w: task %s", ErrNotWorkflow, id)
	}
	w, ok := r.Workflow(name)
	if !ok {
		return tasks.Record{}, nil, fmt.Errorf("%w: task %s runs workflow %q, which this server does not have", ErrUnknownWorkflow, id, name)
	}
	return rec, &w, nil
}

// Binding is a tool call accepted for a paused workflow's step; pass it to
// Record with the call's outcome.
type Binding struct {
	// TaskID is the workflow's task.
	TaskID string
	// Step is the step the call does.
	Step  string
	owner tasks.Owner
}

// Bind checks that a tools/call of tool bound to task id (by its _meta)
// may continue the workflow: the task exists and belongs to owner (else
// the error is the store's ErrNotFound, as for any unknown task), is a
// workflow, is not finished (ErrFinished) and waits for a step calling
// tool (ErrWrongStep). It changes nothing; run the call only when it
// succeeds.
func (r *Runner) Bind(ctx context.Context, owner tasks.Owner, id, tool string) (*Binding, error) {
	rec, w, err := r.load(ctx, owner, id)
	if err != nil {
		return nil, err
	}
	if rec.Status.Terminal() {
		return nil, fmt.Errorf("%w: task %s is %s", ErrFinished, id, rec.Status)
	}
	st := stateOf(w, rec)
	if st.Pause == nil && r.interrupted(rec) {
		if st, err = r.interrupt(ctx, w, owner, id); err != nil {
			return nil, err
		}
	}
	if st.Pause == nil {
		return nil, fmt.Errorf("%w: task %s is running its server steps; wait until tasks/get shows it paused", ErrWrongStep, id)
	}
	step := w.step(st.Pause.Step)
	if step == nil || step.Tool != tool {
		want := ""
		if step != nil {
			want = step.Tool
		}
		return nil, fmt.Errorf("%w: task %s waits for step %q, which calls tool %q, not %q", ErrWrongStep, id, st.Pause.Step, want, tool)
	}
	return &Binding{TaskID: id, Step: step.Name, owner: owner}, nil
}

// interrupted reports whether rec shows a workflow running its server
// steps that has not changed for longer than the step timeout.
func (r *Runner) interrupted(rec tasks.Record) bool {
	return jsonText(rec.Variables[VarStatus]) == StatusRunning && !rec.Status.Terminal() &&
		!r.clock.Now().Before(rec.LastUpdatedAt.Add(r.stepTimeout))
}

// interrupt pauses a workflow whose server stopped while running it: a
// step left running is marked failed, and the workflow pauses at its
// first unfinished step with ReasonInterrupted.
func (r *Runner) interrupt(ctx context.Context, w *Workflow, owner tasks.Owner, id string) (*State, error) {
	unlock := r.lock(id)
	defer unlock()
	rec, err := r.store.Get(ctx, owner, id)
	if err != nil {
		return nil, err
	}
	st := stateOf(w, rec)
	if st.Pause != nil || !r.interrupted(rec) || st.next < 0 {
		return st, nil
	}
	step := w.Steps[st.next]
	msg := fmt.Sprintf("the server stopped while running the workflow (no change for %v); step %s was not finished", r.stepTimeout, step.Name)
	if jsonText(rec.Variables[StepVar(step.Name, "status")]) == StepRunning {
		if rec, err = r.store.SetVariables(ctx, owner, id, map[string]json.RawMessage{
			StepVar(step.Name, "status"): jsonString(StepFailed),
			StepVar(step.Name, "error"):  jsonString(msg),
		}); err != nil {
			return nil, err
		}
	}
	r.log.Warn("workflow interrupted", "owner", owner, "task", id, "step", step.Name)
	return r.pause(ctx, w, rec, step.Name, ReasonInterrupted, msg)
}

// Record stores the outcome of a bound call and continues the workflow.
// output is the step's output (for a tool result, its structured content
// when it has some); failure, when not empty, records the step as failed
// with that message and leaves the workflow paused on it, so the client
// may try again.
func (r *Runner) Record(ctx context.Context, b *Binding, output json.RawMessage, failure string) (*State, error) {
	unlock := r.lock(b.TaskID)
	defer unlock()
	rec, w, err := r.load(ctx, b.owner, b.TaskID)
	if err != nil {
		return nil, err
	}
	if rec.Status.Terminal() {
		return nil, fmt.Errorf("%w: task %s is %s", ErrFinished, b.TaskID, rec.Status)
	}
	if st := stateOf(w, rec); st.Pause == nil || st.Pause.Step != b.Step {
		return nil, fmt.Errorf("%w: task %s no longer waits for step %q", ErrWrongStep, b.TaskID, b.Step)
	}
	var patch map[string]json.RawMessage
	if failure != "" {
		patch = map[string]json.RawMessage{
			StepVar(b.Step, "status"): jsonString(StepFailed),
			StepVar(b.Step, "error"):  jsonString(failure),
			VarPause:                  pauseJSON(b.Step, ReasonStepFailed, fmt.Sprintf("the client's call for step %s failed: %s", b.Step, failure)),
		}
		rec, err = r.store.SetVariables(ctx, b.owner, b.TaskID, patch)
		if err != nil {
			return nil, err
		}
		return stateOf(w, rec), nil
	}
	if len(output) == 0 || !json.Valid(output) {
		output = json.RawMessage(`null`)
	}
	patch = map[string]json.RawMessage{
		ClientOutputVar(b.Step):   output,
		StepVar(b.Step, "status"): jsonString(StepDone),
		StepVar(b.Step, "error"):  json.RawMessage(`null`),
		VarPause:                  json.RawMessage(`null`),
		VarStatus:                 jsonString(StatusRunning),
	}
	if rec, err = r.store.SetVariables(ctx, b.owner, b.TaskID, patch); err != nil {
		return nil, err
	}
	r.log.Info("workflow step done by the client", "owner", b.owner, "task", b.TaskID, "step", b.Step)
	return r.advance(ctx, w, rec)
}

// advance runs server steps from the first unfinished one until a pause
// or the end.
func (r *Runner) advance(ctx context.Context, w *Workflow, rec tasks.Record) (*State, error) {
	owner, id := rec.Owner, rec.ID
	for {
		st := stateOf(w, rec)
		next := st.next
		if next < 0 {
			return r.complete(ctx, w, rec)
		}
		step := w.Steps[next]
		if step.mode() == ModeClient {
			return r.pause(ctx, w, rec, step.Name, ReasonClientStep,
				fmt.Sprintf("waiting for the client to call %s for step %s", step.Tool, step.Name))
		}
		args, unresolved, broken, err := resolveStep(w, rec, step)
		if err != nil {
			return nil, err
		}
		if len(broken) > 0 || len(unresolved) > 0 {
			why := append(broken, unresolved...)
			return r.pause(ctx, w, rec, step.Name, ReasonUnresolvedDependency,
				fmt.Sprintf("step %s needs %s, which is not available", step.Name, strings.Join(why, ", ")))
		}
		fn, ok := r.tool(step.Tool)
		var out json.RawMessage
		if !ok {
			err = fmt.Errorf("no server tool %q", step.Tool)
		} else {
			if rec, err = r.store.SetVariables(ctx, owner, id, map[string]json.RawMessage{StepVar(step.Name, "status"): jsonString(StepRunning)}); err != nil {
				return nil, err
			}
			out, err = safeCall(ctx, fn, args)
			if err == nil && (len(out) == 0 || !json.Valid(out)) {
				err = errors.New("the tool returned no valid JSON output")
			}
		}
		if err != nil {
			status := StepFailed
			if step.Optional {
				status = StepSkipped
			}
			patch := map[string]json.RawMessage{StepVar(step.Name, "status"): jsonString(status), StepVar(step.Name, "error"): jsonString(err.Error())}
			if rec, err = r.store.SetVariables(ctx, owner, id, patch); err != nil {
				return nil, err
			}
			r.log.Info("workflow step failed", "owner", owner, "task", id, "step", step.Name, "optional", step.Optional)
			if step.Optional {
				continue
			}
			return r.pause(ctx, w, rec, step.Name, ReasonStepFailed, fmt.Sprintf("step %s failed: %s", step.Name, jsonText(rec.Variables[StepVar(step.Name, "error")])))
		}
		// The output is stored before the next step starts.
		patch := map[string]json.RawMessage{StepVar(step.Name, "status"): jsonString(StepDone), StepVar(step.Name, "output"): out, StepVar(step.Name, "error"): json.RawMessage(`null`)}
		if rec, err = r.store.SetVariables(ctx, owner, id, patch); err != nil {
			return nil, err
		}
		r.log.Info("workflow step done", "owner", owner, "task", id, "step", step.Name)
	}
}

func safeCall(ctx context.Context, fn ToolFunc, args json.RawMessage) (out json.RawMessage, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("the tool panicked: %v", p)
		}
	}()
	return fn(ctx, args)
}

func (r *Runner) pause(ctx context.Context, w *Workflow, rec tasks.Record, step, reason, message string) (*State, error) {
	rec, err := r.store.SetVariables(ctx, rec.Owner, rec.ID, map[string]json.RawMessage{
		VarStatus: jsonString(StatusPaused),
		VarPause:  pauseJSON(step, reason, message),
	})
	if err != nil {
		return nil, err
	}
	// The status message stays as it was: a store moves a task only
	// between different statuses, and a paused workflow stays working.
	// The pause is in the variables.
	r.log.Info("workflow paused", "owner", rec.Owner, "task", rec.ID, "step", step, "reason", reason)
	return stateOf(w, rec), nil
}

func (r *Runner) complete(ctx context.Context, w *Workflow, rec tasks.Record) (*State, error) {
	rec, err := r.store.SetVariables(ctx, rec.Owner, rec.ID, map[string]json.RawMessage{VarStatus: jsonString(StatusCompleted), VarPause: json.RawMessage(`null`)})
	if err != nil {
		return nil, err
	}
	st := stateOf(w, rec)
	summary, err := st.Summary()
	if err != nil {
		return nil, err
	}
	done, err := r.store.Complete(ctx, rec.Owner, rec.ID, tasks.StatusCompleted, fmt.Sprintf("workflow %s completed", w.Name), tasks.Outcome{Result: summary})
	if err != nil {
		return nil, err
	}
	r.log.Info("workflow completed", "owner", rec.Owner, "task", rec.ID, "workflow", w.Name)
	return stateOf(w, done), nil
}

func (w *Workflow) step(name string) *Step {
	for i := range w.Steps {
		if w.Steps[i].Name == name {
			return &w.Steps[i]
		}
	}
	return nil
}

// resolveStep fills a step's arguments from the task's variables:
// unresolved lists references not available yet, broken those naming a
// failed or skipped step.
func resolveStep(w *Workflow, rec tasks.Record, step Step) (json.RawMessage, []string, []string, error) {
	vars := rec.Variables
	var args map[string]any
	if raw, ok := vars[VarArgs]; ok {
		_ = json.Unmarshal(raw, &args)
	}
	var broken []string
	look := func(rf ref) (any, bool) {
		if rf.arg != "" {
			v, ok := args[rf.arg]
			return v, ok
		}
		st := jsonText(vars[StepVar(rf.step, "status")])
		if st == StepFailed || st == StepSkipped {
			broken = append(broken, "{{"+rf.raw+"}} (step "+rf.step+" "+st+")")
			return nil, false
		}
		if st != StepDone {
			return nil, false
		}
		raw, ok := vars[StepVar(rf.step, "output")]
		if !ok {
			raw, ok = vars[ClientOutputVar(rf.step)]
		}
		if !ok {
			return nil, false
		}
		v, err := decode(raw)
		if err != nil {
			return nil, false
		}
		return member(v, rf.path)
	}
	out, unresolved, err := resolve(step.Args, look)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("workflow %q step %q: %w", w.Name, step.Name, err)
	}
	// A broken reference is also unresolved: report it once.
	unresolved = slices.DeleteFunc(unresolved, func(u string) bool {
		for _, b := range broken {
			if strings.HasPrefix(b, u+" ") {
				return true
			}
		}
		return false
	})
	return out, unresolved, broken, nil
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// jsonText is the string a JSON string holds, "" otherwise.
func jsonText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

func pauseJSON(step, reason, message string) json.RawMessage {
	b, _ := json.Marshal(Pause{Step: step, Reason: reason, Message: message})
	return b
}
