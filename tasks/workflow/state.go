package workflow

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// RelatedTaskMeta is the _meta key naming the task a request or result
// belongs to; a tools/call carrying it with a workflow's task id is bound
// to that workflow.
const RelatedTaskMeta = wire.MetaRelatedTask

// Pause says where and why a workflow waits.
type Pause struct {
	Step    string `json:"step"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// Done is a finished step.
type Done struct {
	Step   string          `json:"step"`
	Tool   string          `json:"tool"`
	Mode   Mode            `json:"mode"`
	Output json.RawMessage `json:"output"`
}

// Remaining is a step still to do, with its arguments resolved as far as
// the outputs available allow.
type Remaining struct {
	Step      string          `json:"step"`
	Tool      string          `json:"tool"`
	Mode      Mode            `json:"mode"`
	Status    string          `json:"status,omitempty"`
	Error     string          `json:"error,omitempty"`
	Arguments json.RawMessage `json:"arguments"`
	// Unresolved lists the references still unresolved in Arguments.
	Unresolved []string `json:"unresolved,omitempty"`
	Guidance   string   `json:"guidance,omitempty"`
}

// State is a workflow task as its variables describe it.
type State struct {
	TaskID     string       `json:"taskId"`
	Workflow   string       `json:"workflow"`
	TaskStatus tasks.Status `json:"taskStatus"`
	// Status is running, paused or completed.
	Status    string      `json:"status"`
	Pause     *Pause      `json:"pause,omitempty"`
	Completed []Done      `json:"completed"`
	Remaining []Remaining `json:"remaining"`
	// Continue tells the client how to bind a call to the workflow.
	Continue *Continue `json:"continue,omitempty"`

	next int // index of the first unfinished step, -1 when none
}

// Continue is the _meta a client puts on the tools/call that continues the
// workflow.
type Continue struct {
	Meta map[string]any `json:"_meta"`
}

// stateOf reads the state of w's task from rec's variables.
func stateOf(w *Workflow, rec tasks.Record) *State {
	vars := rec.Variables
	st := &State{TaskID: rec.ID, Workflow: w.Name, TaskStatus: rec.Status, Status: jsonText(vars[VarStatus]),
		Completed: []Done{}, Remaining: []Remaining{}, next: -1}
	if raw, ok := vars[VarPause]; ok {
		var p Pause
		if json.Unmarshal(raw, &p) == nil && p.Step != "" {
			st.Pause = &p
		}
	}
	for i, s := range w.Steps {
		status := jsonText(vars[StepVar(s.Name, "status")])
		if status == StepDone {
			out, ok := vars[StepVar(s.Name, "output")]
			if !ok {
				out = vars[ClientOutputVar(s.Name)]
			}
			st.Completed = append(st.Completed, Done{Step: s.Name, Tool: s.Tool, Mode: s.mode(), Output: out})
			continue
		}
		if status == StepSkipped {
			st.Completed = append(st.Completed, Done{Step: s.Name, Tool: s.Tool, Mode: s.mode(), Output: json.RawMessage(`null`)})
			continue
		}
		if st.next < 0 {
			st.next = i
		}
		args, unresolved, broken, err := resolveStep(w, rec, s)
		if err != nil {
			args = s.Args
		}
		st.Remaining = append(st.Remaining, Remaining{Step: s.Name, Tool: s.Tool, Mode: s.mode(), Status: status,
			Error: jsonText(vars[StepVar(s.Name, "error")]), Arguments: args,
			Unresolved: append(broken, unresolved...), Guidance: s.Guidance})
	}
	if !rec.Status.Terminal() && st.Pause != nil {
		st.Continue = &Continue{Meta: map[string]any{RelatedTaskMeta: map[string]string{"taskId": rec.ID}}}
	}
	return st
}

// Done reports whether the workflow's task is terminal.
func (s *State) Done() bool { return s.TaskStatus.Terminal() }

// JSON is the state as indented JSON: the block of the handoff.
func (s *State) JSON() string {
	b, _ := json.MarshalIndent(s, "", "  ")
	return string(b)
}

// Text is a short natural-language account of the state for a model.
func (s *State) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Workflow %s runs as task %s. ", s.Workflow, s.TaskID)
	if len(s.Completed) > 0 {
		names := make([]string, len(s.Completed))
		for i, d := range s.Completed {
			names[i] = d.Step
		}
		fmt.Fprintf(&b, "Done: %s. ", strings.Join(names, ", "))
	}
	if s.Done() {
		fmt.Fprintf(&b, "Every step is done; the task is %s and tasks/result returns its summary.", s.TaskStatus)
		return b.String()
	}
	if p := s.Pause; p != nil {
		fmt.Fprintf(&b, "It is paused at step %s (%s): %s. ", p.Step, p.Reason, p.Message)
		for _, r := range s.Remaining {
			if r.Step != p.Step {
				continue
			}
			fmt.Fprintf(&b, "To continue, call the tool %s with the arguments given in the JSON block", r.Tool)
			if len(r.Unresolved) > 0 {
				fmt.Fprintf(&b, " (fill in %s yourself)", strings.Join(r.Unresolved, ", "))
			}
			fmt.Fprintf(&b, " and put {\"%s\": {\"taskId\": \"%s\"}} in the call's _meta.", RelatedTaskMeta, s.TaskID)
			if r.Guidance != "" {
				fmt.Fprintf(&b, " Guidance: %s", r.Guidance)
			}
		}
	}
	return strings.TrimSpace(b.String())
}

// Handoff is the text of the assistant message ending a workflow
// prompt's reply: the natural-language account, then the state as a JSON
// block.
func (s *State) Handoff() string {
	return s.Text() + "\n\n```json\n" + s.JSON() + "\n```"
}

// Summary is the result a completed workflow's task stores (what
// tasks/result returns): a prompts/get result whose one assistant message
// holds the steps' outputs as JSON.
func (s *State) Summary() (json.RawMessage, error) {
	outputs := map[string]json.RawMessage{}
	for _, d := range s.Completed {
		outputs[d.Step] = d.Output
	}
	body, err := json.Marshal(map[string]any{"taskId": s.TaskID, "workflow": s.Workflow, "outputs": outputs})
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]any{
		"description": fmt.Sprintf("summary of workflow %s", s.Workflow),
		"messages": []any{map[string]any{"role": "assistant",
			"content": map[string]string{"type": "text", "text": string(body)}}},
	})
}
