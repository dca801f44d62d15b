package workflow_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/internal/testenv"
	"github.com/mcptasks/mcptasks/stores/memory"
	"github.com/mcptasks/mcptasks/stores/storeurl"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/workflow"
)

const alice, bob = tasks.Owner("sub:alice"), tasks.Owner("sub:bob")

// trip is the workflow under test: two server steps, a client step, and a
// server step that needs the client's output.
var trip = workflow.Workflow{
	Name: "trip", Description: "plans a trip",
	Arguments: []workflow.Argument{{Name: "city", Required: true}, {Name: "days"}},
	Steps: []workflow.Step{
		{Name: "forecast", Tool: "forecast", Args: json.RawMessage(`{"city":"{{args.city}}"}`)},
		{Name: "hotels", Tool: "hotels", Args: json.RawMessage(`{"city":"{{args.city}}","sky":"{{steps.forecast.output.sky}}","note":"weather {{steps.forecast.output}}"}`)},
		{Name: "choose", Tool: "choose", Mode: workflow.ModeClient, Guidance: "ask the user which hotel",
			Args: json.RawMessage(`{"options":"{{steps.hotels.output.names}}","pick":"{{steps.choose.output.hotel}}"}`)},
		{Name: "book", Tool: "book", Args: json.RawMessage(`{"hotel":"{{steps.choose.output.hotel}}","city":"{{args.city}}"}`)},
	},
}

func tripFixed() workflow.Workflow {
	w := trip
	w.Steps = append([]workflow.Step(nil), trip.Steps...)
	w.Steps[2].Args = json.RawMessage(`{"options":"{{steps.hotels.output.names}}"}`)
	return w
}

type env struct {
	store  tasks.Store
	runner *workflow.Runner
	calls  []string
	fail   map[string]bool
}

func newEnv(t *testing.T, store tasks.Store, flows ...workflow.Workflow) *env {
	t.Helper()
	e := &env{store: store, fail: map[string]bool{}}
	e.runner = workflow.NewRunner(store, workflow.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	for _, w := range flows {
		if err := e.runner.Add(w); err != nil {
			t.Fatal(err)
		}
	}
	tool := func(name string, out func(args map[string]any) any) {
		_ = e.runner.AddTool(name, func(_ context.Context, raw json.RawMessage) (json.RawMessage, error) {
			e.calls = append(e.calls, name+" "+string(raw))
			if e.fail[name] {
				return nil, fmt.Errorf("%s is down", name)
			}
			var args map[string]any
			if err := json.Unmarshal(raw, &args); err != nil {
				return nil, err
			}
			return json.Marshal(out(args))
		})
	}
	tool("forecast", func(a map[string]any) any { return map[string]any{"sky": "sunny", "city": a["city"]} })
	tool("hotels", func(a map[string]any) any { return map[string]any{"names": []string{"Ritz", "Inn"}} })
	tool("book", func(a map[string]any) any { return map[string]any{"booked": a["hotel"], "city": a["city"]} })
	return e
}

func stores(t *testing.T) map[string]func(t *testing.T) tasks.Store {
	return map[string]func(t *testing.T) tasks.Store{
		"memory": func(t *testing.T) tasks.Store {
			s := memory.New(tasks.Config{})
			t.Cleanup(func() { s.Close() })
			return s
		},
		"postgres": func(t *testing.T) tasks.Store { return openURL(t, testenv.Postgres(t)) },
		"sqlite":   func(t *testing.T) tasks.Store { return openURL(t, "sqlite:"+filepath.Join(t.TempDir(), "tasks.db")) },
		"redis": func(t *testing.T) tasks.Store {
			u, prefix := testenv.Redis(t)
			return openURL(t, u+"?prefix="+prefix)
		},
		"dynamodb": func(t *testing.T) tasks.Store {
			b := make([]byte, 6)
			_, _ = rand.Read(b)
			return openURL(t, "dynamodb://wf_"+hex.EncodeToString(b)+"?endpoint="+testenv.DynamoDB(t)+"&region=us-east-1&create=1")
		},
	}
}

func openURL(t *testing.T, spec string) tasks.Store {
	t.Helper()
	s, err := storeurl.Open(t.Context(), spec, tasks.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func vars(t *testing.T, s tasks.Store, owner tasks.Owner, id string) map[string]string {
	t.Helper()
	rec, err := s.Get(t.Context(), owner, id)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for k, v := range rec.Variables {
		out[k] = string(v)
	}
	return out
}

func TestWorkflowEndToEnd(t *testing.T) {
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			store := open(t)
			e := newEnv(t, store, tripFixed())
			st, err := e.runner.Start(ctx, alice, "trip", map[string]string{"city": "Oslo"})
			if err != nil {
				t.Fatal(err)
			}
			if len(e.calls) != 2 || e.calls[0] != `forecast {"city":"Oslo"}` ||
				e.calls[1] != `hotels {"city":"Oslo","note":"weather {\"city\":\"Oslo\",\"sky\":\"sunny\"}","sky":"sunny"}` {
				t.Fatalf("server calls %q", e.calls)
			}
			if st.Pause == nil || st.Pause.Step != "choose" || st.Pause.Reason != workflow.ReasonClientStep || st.Status != workflow.StatusPaused {
				t.Fatalf("state %s", st.JSON())
			}
			if len(st.Completed) != 2 || len(st.Remaining) != 2 || string(st.Remaining[0].Arguments) != `{"options":["Ritz","Inn"]}` {
				t.Fatalf("state %s", st.JSON())
			}
			if got := st.Remaining[1]; len(got.Unresolved) != 1 || got.Unresolved[0] != "{{steps.choose.output.hotel}}" {
				t.Errorf("book's unresolved references %v", got.Unresolved)
			}
			h := st.Handoff()
			if !strings.Contains(h, "```json") || !strings.Contains(h, `"taskId": "`+st.TaskID+`"`) || !strings.Contains(h, "call the tool choose") {
				t.Errorf("handoff:\n%s", h)
			}
			v := vars(t, store, alice, st.TaskID)
			for k, want := range map[string]string{
				workflow.VarName: `"trip"`, workflow.VarStatus: `"paused"`, workflow.VarArgs: `{"city":"Oslo"}`,
				workflow.StepVar("forecast", "status"): `"done"`, workflow.StepVar("forecast", "output"): `{"city":"Oslo","sky":"sunny"}`,
				workflow.StepVar("hotels", "status"): `"done"`,
			} {
				if v[k] != want {
					t.Errorf("variable %s = %s, want %s", k, v[k], want)
				}
			}
			rec, _ := store.Get(ctx, alice, st.TaskID)
			if rec.Status != tasks.StatusWorking {
				t.Fatalf("paused task is %s", rec.Status)
			}

			// Bound calls that may not continue it change nothing.
			for _, bad := range []struct {
				owner tasks.Owner
				id    string
				tool  string
				want  error
			}{
				{bob, st.TaskID, "choose", tasks.ErrNotFound},
				{alice, "no-such-task", "choose", tasks.ErrNotFound},
				{alice, st.TaskID, "book", workflow.ErrWrongStep},
			} {
				if _, err := e.runner.Bind(ctx, bad.owner, bad.id, bad.tool); !errors.Is(err, bad.want) || !errors.Is(err, tasks.ErrInvalidParams) && !errors.Is(err, tasks.ErrNotFound) {
					t.Errorf("Bind(%s, %s, %s) = %v, want %v", bad.owner, bad.id, bad.tool, err, bad.want)
				}
			}
			if after := vars(t, store, alice, st.TaskID); len(after) != len(v) {
				t.Errorf("refused binds changed the variables: %v", after)
			}

			b, err := e.runner.Bind(ctx, alice, st.TaskID, "choose")
			if err != nil {
				t.Fatal(err)
			}
			st, err = e.runner.Record(ctx, b, json.RawMessage(`{"hotel":"Inn"}`), "")
			if err != nil {
				t.Fatal(err)
			}
			if !st.Done() || len(e.calls) != 3 || e.calls[2] != `book {"city":"Oslo","hotel":"Inn"}` {
				t.Fatalf("after the client step: calls %q, state %s", e.calls, st.JSON())
			}
			res, err := store.Result(ctx, alice, st.TaskID)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != tasks.StatusCompleted || !strings.Contains(string(res.Outcome.Result), `\"book\":{\"booked\":\"Inn\",\"city\":\"Oslo\"}`) {
				t.Errorf("result %s %s", res.Status, res.Outcome.Result)
			}
			v = vars(t, store, alice, st.TaskID)
			if v[workflow.ClientOutputVar("choose")] != `{"hotel":"Inn"}` || v[workflow.VarStatus] != `"completed"` {
				t.Errorf("final variables %v", v)
			}
			if _, err := e.runner.Bind(ctx, alice, st.TaskID, "choose"); !errors.Is(err, workflow.ErrFinished) {
				t.Errorf("bind to a finished workflow: %v", err)
			}
		})
	}
}

func TestWorkflowContinuesOnAnotherRunner(t *testing.T) {
	for name, open := range stores(t) {
		if name == "memory" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			store := open(t)
			st, err := newEnv(t, store, tripFixed()).runner.Start(ctx, alice, "trip", map[string]string{"city": "Rome"})
			if err != nil {
				t.Fatal(err)
			}
			// A second runner, as on another instance or after a restart.
			other := newEnv(t, store, tripFixed())
			b, err := other.runner.Bind(ctx, alice, st.TaskID, "choose")
			if err != nil {
				t.Fatal(err)
			}
			st, err = other.runner.Record(ctx, b, json.RawMessage(`{"hotel":"Ritz"}`), "")
			if err != nil {
				t.Fatal(err)
			}
			if !st.Done() || len(other.calls) != 1 || other.calls[0] != `book {"city":"Rome","hotel":"Ritz"}` {
				t.Fatalf("calls %q state %s", other.calls, st.JSON())
			}
		})
	}
}

func TestWorkflowPauses(t *testing.T) {
	opt := workflow.Workflow{Name: "opt", Arguments: []workflow.Argument{{Name: "city", Required: true}},
		Steps: []workflow.Step{
			{Name: "forecast", Tool: "forecast", Optional: true, Args: json.RawMessage(`{"city":"{{args.city}}"}`)},
			{Name: "hotels", Tool: "hotels", Args: json.RawMessage(`{"sky":"{{steps.forecast.output.sky}}"}`)},
		}}
	ctx := t.Context()
	store := memory.New(tasks.Config{})
	defer store.Close()

	t.Run("failed step", func(t *testing.T) {
		e := newEnv(t, store, tripFixed())
		e.fail["hotels"] = true
		st, err := e.runner.Start(ctx, alice, "trip", map[string]string{"city": "Oslo"})
		if err != nil {
			t.Fatal(err)
		}
		if st.Pause == nil || st.Pause.Step != "hotels" || st.Pause.Reason != workflow.ReasonStepFailed || st.TaskStatus != tasks.StatusWorking {
			t.Fatalf("state %s", st.JSON())
		}
		v := vars(t, store, alice, st.TaskID)
		if v[workflow.StepVar("hotels", "status")] != `"failed"` || v[workflow.StepVar("hotels", "error")] != `"hotels is down"` {
			t.Errorf("variables %v", v)
		}
		// The client may do the failed step itself.
		b, err := e.runner.Bind(ctx, alice, st.TaskID, "hotels")
		if err != nil {
			t.Fatal(err)
		}
		st, err = e.runner.Record(ctx, b, json.RawMessage(`{"names":["Hut"]}`), "")
		if err != nil {
			t.Fatal(err)
		}
		if st.Pause == nil || st.Pause.Step != "choose" || string(st.Remaining[0].Arguments) != `{"options":["Hut"]}` {
			t.Fatalf("state %s", st.JSON())
		}
	})
	t.Run("unresolved dependency", func(t *testing.T) {
		e := newEnv(t, store, opt)
		e.fail["forecast"] = true
		st, err := e.runner.Start(ctx, alice, "opt", map[string]string{"city": "Oslo"})
		if err != nil {
			t.Fatal(err)
		}
		if st.Pause == nil || st.Pause.Step != "hotels" || st.Pause.Reason != workflow.ReasonUnresolvedDependency {
			t.Fatalf("state %s", st.JSON())
		}
		v := vars(t, store, alice, st.TaskID)
		if v[workflow.StepVar("forecast", "status")] != `"skipped"` || v[workflow.StepVar("hotels", "status")] != "" {
			t.Errorf("variables %v", v)
		}
		if len(e.calls) != 1 {
			t.Errorf("calls %q: hotels must not run", e.calls)
		}
	})
	t.Run("client call failed", func(t *testing.T) {
		e := newEnv(t, store, tripFixed())
		st, err := e.runner.Start(ctx, alice, "trip", map[string]string{"city": "Oslo"})
		if err != nil {
			t.Fatal(err)
		}
		b, err := e.runner.Bind(ctx, alice, st.TaskID, "choose")
		if err != nil {
			t.Fatal(err)
		}
		st, err = e.runner.Record(ctx, b, nil, "no hotel fits")
		if err != nil {
			t.Fatal(err)
		}
		if st.Pause == nil || st.Pause.Step != "choose" || st.Pause.Reason != workflow.ReasonStepFailed || st.Done() {
			t.Fatalf("state %s", st.JSON())
		}
	})
}

func TestWorkflowBadInput(t *testing.T) {
	ctx := t.Context()
	store := memory.New(tasks.Config{})
	defer store.Close()
	e := newEnv(t, store, tripFixed())
	for _, tc := range []struct {
		name string
		flow string
		args map[string]string
		want error
	}{
		{"unknown workflow", "nope", map[string]string{"city": "Oslo"}, workflow.ErrUnknownWorkflow},
		{"missing argument", "trip", nil, workflow.ErrMissingArgument},
		{"undeclared argument", "trip", map[string]string{"city": "Oslo", "x": "1"}, workflow.ErrMissingArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.runner.Start(ctx, alice, tc.flow, tc.args)
			if !errors.Is(err, tc.want) || !errors.Is(err, tasks.ErrInvalidParams) {
				t.Errorf("Start = %v, want %v", err, tc.want)
			}
		})
	}
	page, err := store.List(ctx, alice, tasks.ListOptions{})
	if err != nil || len(page.Tasks) != 0 {
		t.Errorf("refused starts created tasks: %v %v", page.Tasks, err)
	}
	if len(e.calls) != 0 {
		t.Errorf("refused starts ran tools: %q", e.calls)
	}
	// A task that is not a workflow.
	rec, err := store.Create(ctx, alice, tasks.CreateParams{Method: "tools/call"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.runner.Bind(ctx, alice, rec.ID, "choose"); !errors.Is(err, workflow.ErrNotWorkflow) {
		t.Errorf("bind to a plain task: %v", err)
	}
}

func TestWorkflowValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		w    workflow.Workflow
		want string
	}{
		{"ok", tripFixed(), ""},
		{"self reference of a server step", workflow.Workflow{Name: "x", Steps: []workflow.Step{{Name: "a", Tool: "t", Args: json.RawMessage(`{"v":"{{steps.a.output}}"}`)}}}, "not an earlier step"},
		{"undeclared argument", workflow.Workflow{Name: "x", Steps: []workflow.Step{{Name: "a", Tool: "t", Args: json.RawMessage(`{"v":"{{args.q}}"}`)}}}, "undeclared argument"},
		{"bad reference", workflow.Workflow{Name: "x", Steps: []workflow.Step{{Name: "a", Tool: "t", Args: json.RawMessage(`{"v":"{{env.HOME}}"}`)}}}, "neither"},
		{"bad step name", workflow.Workflow{Name: "x", Steps: []workflow.Step{{Name: "a.b", Tool: "t"}}}, "name"},
		{"duplicate step", workflow.Workflow{Name: "x", Steps: []workflow.Step{{Name: "a", Tool: "t"}, {Name: "a", Tool: "t"}}}, "twice"},
		{"args not an object", workflow.Workflow{Name: "x", Steps: []workflow.Step{{Name: "a", Tool: "t", Args: json.RawMessage(`[1]`)}}}, "JSON object"},
		{"no steps", workflow.Workflow{Name: "x"}, "no steps"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.w.Validate()
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("Validate = %v, want %q", err, tc.want)
			}
		})
	}
}

// A workflow whose server stopped mid-step (here: the request ended while
// the step ran, so nothing after it was written) is refused while it may
// still be running, and taken for interrupted once nothing changed for the
// step timeout: the client may then do the step itself.
func TestWorkflowInterrupted(t *testing.T) {
	clock := tasks.NewFakeClock(time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC))
	store := memory.New(tasks.Config{Clock: clock})
	defer store.Close()
	runner := workflow.NewRunner(store, workflow.WithClock(clock), workflow.WithStepTimeout(time.Minute),
		workflow.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err := runner.Add(tripFixed()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	_ = runner.AddTool("forecast", func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`{"sky":"grey"}`), nil
	})
	_ = runner.AddTool("hotels", func(context.Context, json.RawMessage) (json.RawMessage, error) {
		cancel() // the server goes away mid-step
		return json.RawMessage(`{"names":["Lost"]}`), nil
	})
	if _, err := runner.Start(ctx, alice, "trip", map[string]string{"city": "Oslo"}); err == nil {
		t.Fatal("Start survived its own end")
	}
	page, err := store.List(t.Context(), alice, tasks.ListOptions{})
	if err != nil || len(page.Tasks) != 1 {
		t.Fatalf("tasks %v %v", page.Tasks, err)
	}
	id := page.Tasks[0].ID
	if v := vars(t, store, alice, id); v[workflow.StepVar("hotels", "status")] != `"running"` || v[workflow.VarStatus] != `"running"` {
		t.Fatalf("variables after the interruption %v", v)
	}
	clock.Advance(59 * time.Second)
	if _, err := runner.Bind(t.Context(), alice, id, "find_hotels"); !errors.Is(err, workflow.ErrWrongStep) {
		t.Fatalf("bind within the step timeout: %v", err)
	}
	clock.Advance(time.Second)
	if _, err := runner.Bind(t.Context(), alice, id, "choose"); !errors.Is(err, workflow.ErrWrongStep) {
		t.Fatalf("bind of another step's tool: %v", err)
	}
	st, err := runner.State(t.Context(), alice, id)
	if err != nil || st.Pause == nil || st.Pause.Reason != workflow.ReasonInterrupted || st.Pause.Step != "hotels" {
		t.Fatalf("state %+v %v", st, err)
	}
	if v := vars(t, store, alice, id); v[workflow.StepVar("hotels", "status")] != `"failed"` {
		t.Errorf("the lost step is not marked failed: %v", v)
	}
	b, err := runner.Bind(t.Context(), alice, id, "hotels")
	if err != nil {
		t.Fatal(err)
	}
	st, err = runner.Record(t.Context(), b, json.RawMessage(`{"names":["Found"]}`), "")
	if err != nil || st.Pause == nil || st.Pause.Step != "choose" || string(st.Remaining[0].Arguments) != `{"options":["Found"]}` {
		t.Fatalf("after the client redid the step: %+v %v", st, err)
	}
}
