package workflow

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcptasks/mcptasks/tasks"
)

// Mode says who runs a step.
type Mode string

// The step modes.
const (
	// ModeServer: the runner calls the step's tool itself, inside the task.
	ModeServer Mode = "server"
	// ModeClient: the step is handed to the client, which calls the tool
	// with the task named in the call's _meta.
	ModeClient Mode = "client"
)

// Argument is one argument of the workflow's prompt.
type Argument struct {
	Name        string
	Description string
	Required    bool
}

// Step is one step of a workflow.
type Step struct {
	// Name identifies the step in templates and variable names: letters,
	// digits, '-' and '_', starting and ending with a letter or digit.
	Name string
	// Tool is the tool the step calls.
	Tool string
	// Args is the template of the tool's arguments (a JSON object); see
	// the package's template rules. Empty means {}.
	Args json.RawMessage
	// Guidance tells the client what the step is for and how to do it.
	Guidance string
	// Mode is who runs the step; empty means ModeServer.
	Mode Mode
	// Optional marks a server step whose failure does not pause the
	// workflow: the step is recorded as skipped (with its error) and the
	// next step runs, unless it depends on this one.
	Optional bool
}

// Workflow is a named sequence of steps started by a prompt.
type Workflow struct {
	// Name is the prompt's name.
	Name string
	// Description describes the prompt.
	Description string
	// Arguments are the prompt's arguments.
	Arguments []Argument
	// Steps run in order.
	Steps []Step
}

// Errors of the workflow runner. Each wraps tasks.ErrInvalidParams, so the
// wire answers them with -32602 (invalid params).
var (
	// ErrUnknownWorkflow: no workflow has that name.
	ErrUnknownWorkflow = fmt.Errorf("%w: unknown workflow", tasks.ErrInvalidParams)
	// ErrMissingArgument: a required prompt argument is missing, or an
	// argument the workflow does not declare was given.
	ErrMissingArgument = fmt.Errorf("%w: bad workflow arguments", tasks.ErrInvalidParams)
	// ErrFinished: the workflow's task is already terminal; a bound call
	// changes nothing.
	ErrFinished = fmt.Errorf("%w: the workflow has already finished", tasks.ErrInvalidParams)
	// ErrNotWorkflow: the task exists but is not a workflow.
	ErrNotWorkflow = fmt.Errorf("%w: the task is not a workflow", tasks.ErrInvalidParams)
	// ErrWrongStep: the bound call is not the one the workflow waits for.
	ErrWrongStep = fmt.Errorf("%w: the workflow does not wait for this tool", tasks.ErrInvalidParams)
)

// Validate checks the definition: a valid name, unique well-formed step
// names, known modes, argument templates that are JSON objects and refer
// only to declared arguments and earlier steps.
func (w *Workflow) Validate() error {
	if w.Name == "" {
		return errors.New("workflow: a workflow needs a name")
	}
	if len(w.Steps) == 0 {
		return fmt.Errorf("workflow %q: no steps", w.Name)
	}
	args := map[string]bool{}
	for _, a := range w.Arguments {
		if a.Name == "" || args[a.Name] {
			return fmt.Errorf("workflow %q: argument names must be non-empty and unique (%q)", w.Name, a.Name)
		}
		args[a.Name] = true
	}
	seen := map[string]bool{}
	for i, s := range w.Steps {
		if !validStepName(s.Name) {
			return fmt.Errorf("workflow %q: step %d: name %q must be letters, digits, '-' or '_', starting and ending with a letter or digit", w.Name, i, s.Name)
		}
		if seen[s.Name] {
			return fmt.Errorf("workflow %q: step name %q used twice", w.Name, s.Name)
		}
		if s.Tool == "" {
			return fmt.Errorf("workflow %q: step %q names no tool", w.Name, s.Name)
		}
		switch s.Mode {
		case "", ModeServer, ModeClient:
		default:
			return fmt.Errorf("workflow %q: step %q: unknown mode %q", w.Name, s.Name, s.Mode)
		}
		if s.Optional && s.Mode == ModeClient {
			return fmt.Errorf("workflow %q: step %q: only server steps can be optional", w.Name, s.Name)
		}
		if len(s.Args) > 0 {
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(s.Args, &obj); err != nil {
				return fmt.Errorf("workflow %q: step %q: arguments must be a JSON object: %w", w.Name, s.Name, err)
			}
		}
		refs, err := templateRefs(s.Args)
		if err != nil {
			return fmt.Errorf("workflow %q: step %q: %w", w.Name, s.Name, err)
		}
		for _, r := range refs {
			if r.arg != "" && !args[r.arg] {
				return fmt.Errorf("workflow %q: step %q refers to undeclared argument {{%s}}", w.Name, s.Name, r.raw)
			}
			if r.step != "" && !seen[r.step] {
				return fmt.Errorf("workflow %q: step %q refers to {{%s}}, which is not an earlier step", w.Name, s.Name, r.raw)
			}
		}
		seen[s.Name] = true
	}
	return nil
}

func (s Step) mode() Mode {
	if s.Mode == "" {
		return ModeServer
	}
	return s.Mode
}

func validStepName(n string) bool {
	if n == "" || !alnum(n[0]) || !alnum(n[len(n)-1]) {
		return false
	}
	for i := 0; i < len(n); i++ {
		if !alnum(n[i]) && n[i] != '-' && n[i] != '_' {
			return false
		}
	}
	return true
}

func alnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
