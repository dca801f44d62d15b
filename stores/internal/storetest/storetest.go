// Package storetest holds backend tests shared by the durable stores, on
// top of the conformance suite: a terminal-transition race across many
// tasks, and a long randomized run on several owners checked step by step
// against the memory store as the model.
package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/stores/memory"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// Opener returns a fresh, empty store honouring cfg; the test closes it.
type Opener func(tb testing.TB, cfg tasks.Config) tasks.Store

// RaceTerminal creates n tasks and lets goroutines race to end each of
// them with Complete (completed or failed) or Cancel. Exactly one attempt
// per task must win, every other must get ErrInvalidTransition, and the
// stored outcome must be the winner's.
func RaceTerminal(t *testing.T, open Opener, n, goroutines int) {
	t.Helper()
	ctx := context.Background()
	st := open(t, tasks.Config{MaxTasksPerOwner: -1})
	owner := tasks.Owner("race-owner")
	ids := make([]string, n)
	for i := range ids {
		r, err := st.Create(ctx, owner, tasks.CreateParams{Method: wire.MethodToolsCall})
		if err != nil {
			t.Fatalf("create %d: %v", i, err)
		}
		ids[i] = r.ID
	}
	wins := make([][]string, n) // per task: what each winner stored
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Go(func() {
			for i, id := range ids {
				var (
					rec  tasks.Record
					err  error
					kind string
				)
				switch g % 3 {
				case 0:
					kind = fmt.Sprintf("completed by %d", g)
					rec, err = st.Complete(ctx, owner, id, tasks.StatusCompleted, kind,
						tasks.Outcome{Result: json.RawMessage(fmt.Sprintf(`{"winner":%d}`, g))})
				case 1:
					kind = fmt.Sprintf("failed by %d", g)
					rec, err = st.Complete(ctx, owner, id, tasks.StatusFailed, kind,
						tasks.Outcome{Error: &tasks.RPCError{Code: -1, Message: kind}})
				default:
					kind = fmt.Sprintf("cancelled by %d", g)
					rec, err = st.Cancel(ctx, owner, id, kind)
				}
				switch {
				case err == nil:
					if rec.StatusMessage != kind {
						errs <- fmt.Errorf("task %d: winner %q got record with message %q", i, kind, rec.StatusMessage)
						return
					}
					mu.Lock()
					wins[i] = append(wins[i], kind)
					mu.Unlock()
				case errors.Is(err, tasks.ErrInvalidTransition):
				default:
					errs <- fmt.Errorf("task %d: goroutine %d: unexpected error %v", i, g, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for i, id := range ids {
		if len(wins[i]) != 1 {
			t.Errorf("task %d: %d winners %v, want exactly 1", i, len(wins[i]), wins[i])
			continue
		}
		r, err := st.Result(ctx, owner, id)
		if err != nil {
			t.Errorf("task %d: result: %v", i, err)
			continue
		}
		if r.StatusMessage != wins[i][0] || r.Outcome == nil || r.Version != 2 {
			t.Errorf("task %d: stored message %q version %d outcome %+v, winner was %q",
				i, r.StatusMessage, r.Version, r.Outcome, wins[i][0])
		}
	}
}

// errClass names the sentinel an error wraps, so two stores' errors can
// be compared. Expired and not found are one class: a store may forget an
// expired task earlier or later.
func errClass(err error) string {
	for _, c := range []struct {
		name string
		err  error
	}{
		{"gone", tasks.ErrNotFound},
		{"transition", tasks.ErrInvalidTransition},
		{"not-ready", tasks.ErrNotReady},
		{"limit", tasks.ErrLimit},
		{"too-large", tasks.ErrVariablesTooLarge},
		{"cursor", tasks.ErrInvalidCursor},
		{"params", tasks.ErrInvalidParams},
	} {
		if errors.Is(err, c.err) {
			return c.name
		}
	}
	if err == nil {
		return "ok"
	}
	return "other: " + err.Error()
}

// RandomOps runs ops random operations by several owners, each on the
// store under test and on a memory store sharing its fake clock, and
// checks after each step that both agree (statuses, versions, times,
// variables, outcomes, errors, list contents and order) and that no
// operation ever returns another owner's task.
func RandomOps(t *testing.T, open Opener, ops int, seed uint64) {
	t.Helper()
	ctx := context.Background()
	clock := tasks.NewFakeClock(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	cfg := tasks.Config{Clock: clock, MaxTasksPerOwner: 12, MaxVariablesBytes: 160,
		DefaultTTL: time.Minute, MaxTTL: time.Hour, PollInterval: 10 * time.Millisecond}
	st := open(t, cfg)
	model := memory.New(cfg)
	t.Cleanup(func() { model.Close() })
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	owners := []tasks.Owner{"sub:alice", "sub:bob", "client:carol", "session:dave"}

	type task struct {
		owner        tasks.Owner
		got, modelID string
	}
	var all []task
	byGot := map[string]int{}
	fail := func(step int, op string, format string, args ...any) {
		t.Fatalf("step %d (%s, seed %d): %s", step, op, seed, fmt.Sprintf(format, args...))
	}
	same := func(step int, op string, owner tasks.Owner, got, want tasks.Record, wantID string) {
		if got.Owner != owner {
			fail(step, op, "returned a task of owner %q to owner %q", got.Owner, owner)
		}
		if i, ok := byGot[got.ID]; ok && all[i].owner != owner {
			fail(step, op, "returned task %s of %q to %q", got.ID, all[i].owner, owner)
		}
		if want.ID != wantID && wantID != "" {
			fail(step, op, "model returned %s, expected %s", want.ID, wantID)
		}
		if got.Status != want.Status || got.StatusMessage != want.StatusMessage || got.Method != want.Method ||
			got.Version != want.Version || !got.CreatedAt.Equal(want.CreatedAt) ||
			!got.LastUpdatedAt.Equal(want.LastUpdatedAt) || !got.ExpiresAt.Equal(want.ExpiresAt) ||
			got.PollInterval != want.PollInterval || (got.TTL == nil) != (want.TTL == nil) ||
			(got.TTL != nil && *got.TTL != *want.TTL) {
			fail(step, op, "records differ:\n got  %+v\n want %+v", got, want)
		}
		if len(got.Variables) != len(want.Variables) {
			fail(step, op, "variables differ: got %v want %v", got.Variables, want.Variables)
		}
		for k, v := range want.Variables {
			if !bytes.Equal(got.Variables[k], v) {
				fail(step, op, "variable %q: got %s want %s", k, got.Variables[k], v)
			}
		}
	}
	tally := map[string]int{}
	check := func(step int, op string, gerr, werr error) {
		if errClass(gerr) != errClass(werr) {
			fail(step, op, "got %v, model %v", gerr, werr)
		}
		tally[op+" → "+errClass(gerr)]++
	}
	defer func() { t.Logf("outcomes of %d operations: %v", ops, tally) }()
	pick := func() (task, bool) {
		if len(all) == 0 {
			return task{}, false
		}
		// Mostly recent tasks, which are still alive; sometimes any.
		if rng.IntN(10) == 0 {
			return all[rng.IntN(len(all))], true
		}
		return all[len(all)-1-rng.IntN(min(len(all), 24))], true
	}
	statuses := []tasks.Status{tasks.StatusWorking, tasks.StatusInputRequired, tasks.StatusCompleted}
	for step := range ops {
		if rng.IntN(20) == 0 {
			clock.Advance(time.Duration(rng.IntN(20_000)) * time.Millisecond)
		} else if rng.IntN(3) == 0 {
			clock.Advance(time.Millisecond)
		}
		// Usually act as the task's owner; sometimes as anyone, who may
		// try someone else's task.
		owner := owners[rng.IntN(len(owners))]
		tk, have := pick()
		if have && rng.IntN(4) != 0 {
			owner = tk.owner
		}
		switch op := rng.IntN(11); {
		case op <= 2 || !have:
			p := tasks.CreateParams{Method: wire.MethodToolsCall, StatusMessage: fmt.Sprintf("m%d", step)}
			if rng.IntN(2) == 0 {
				d := time.Duration(rng.IntN(90_000)) * time.Millisecond
				p.TTL = &d
			}
			if rng.IntN(3) == 0 {
				p.Variables = map[string]json.RawMessage{"k": json.RawMessage(fmt.Sprintf(`{ "n" : %d }`, step))}
			}
			got, gerr := st.Create(ctx, owner, p)
			want, werr := model.Create(ctx, owner, p)
			check(step, "create", gerr, werr)
			if gerr == nil {
				same(step, "create", owner, got, want, "")
				byGot[got.ID] = len(all)
				all = append(all, task{owner: owner, got: got.ID, modelID: want.ID})
			}
		case op == 3:
			got, gerr := st.Get(ctx, owner, tk.got)
			want, werr := model.Get(ctx, owner, tk.modelID)
			check(step, "get", gerr, werr)
			if gerr == nil {
				same(step, "get", owner, got, want, tk.modelID)
			}
		case op == 4:
			to := statuses[rng.IntN(len(statuses))]
			msg := fmt.Sprintf("t%d", step)
			got, gerr := st.Transition(ctx, owner, tk.got, to, msg)
			want, werr := model.Transition(ctx, owner, tk.modelID, to, msg)
			check(step, "transition", gerr, werr)
			if gerr == nil {
				same(step, "transition", owner, got, want, tk.modelID)
			}
		case op == 5:
			patch := map[string]json.RawMessage{
				fmt.Sprintf("v%d", rng.IntN(6)): json.RawMessage(fmt.Sprintf(`[%d, "%s"]`, step, bytes.Repeat([]byte("x"), rng.IntN(70)))),
			}
			if rng.IntN(4) == 0 {
				patch[fmt.Sprintf("v%d", rng.IntN(6))] = json.RawMessage("null")
			}
			got, gerr := st.SetVariables(ctx, owner, tk.got, patch)
			want, werr := model.SetVariables(ctx, owner, tk.modelID, patch)
			check(step, "set variables", gerr, werr)
			if gerr == nil {
				same(step, "set variables", owner, got, want, tk.modelID)
			}
		case op == 6:
			o := tasks.Outcome{Result: json.RawMessage(fmt.Sprintf(`{"content": [ ], "step": %d}`, step))}
			status := tasks.StatusCompleted
			if rng.IntN(2) == 0 {
				status = tasks.StatusFailed
				o = tasks.Outcome{Error: &tasks.RPCError{Code: -32000, Message: "boom", Data: json.RawMessage(`{"a" : 1}`)}}
			}
			got, gerr := st.Complete(ctx, owner, tk.got, status, "done", o)
			want, werr := model.Complete(ctx, owner, tk.modelID, status, "done", o)
			check(step, "complete", gerr, werr)
			if gerr == nil {
				same(step, "complete", owner, got, want, tk.modelID)
			}
		case op == 7:
			got, gerr := st.Cancel(ctx, owner, tk.got, "")
			want, werr := model.Cancel(ctx, owner, tk.modelID, "")
			check(step, "cancel", gerr, werr)
			if gerr == nil {
				same(step, "cancel", owner, got, want, tk.modelID)
			}
		case op == 8:
			got, gerr := st.Result(ctx, owner, tk.got)
			want, werr := model.Result(ctx, owner, tk.modelID)
			check(step, "result", gerr, werr)
			if gerr == nil {
				same(step, "result", owner, got, want, tk.modelID)
				gj, _ := json.Marshal(got.Outcome)
				wj, _ := json.Marshal(want.Outcome)
				if !bytes.Equal(got.Outcome.Result, want.Outcome.Result) || !bytes.Equal(gj, wj) {
					fail(step, "result", "outcomes differ: got %s want %s", gj, wj)
				}
			}
		case op == 9:
			limit := 10 + rng.IntN(40)
			if rng.IntN(4) == 0 {
				limit = 1 + rng.IntN(4)
			}
			gotIDs := listAll(t, st, owner, limit)
			wantIDs := listAll(t, model, owner, limit)
			if len(gotIDs) != len(wantIDs) {
				fail(step, "list", "got %d tasks, model %d", len(gotIDs), len(wantIDs))
			}
			// Ids differ between the stores, so tasks created in the same
			// millisecond may be ordered differently: check the order on
			// its own, then compare the tasks one by one.
			wantByID := map[string]tasks.Record{}
			for _, r := range wantIDs {
				wantByID[r.ID] = r
			}
			for i, r := range gotIDs {
				if i > 0 && !storekit.CursorOf(gotIDs[i-1]).After(r) {
					fail(step, "list", "position %d is out of (createdAt, id) order", i)
				}
				j, ok := byGot[r.ID]
				if !ok || all[j].owner != owner {
					fail(step, "list", "listed task %s that is not %q's", r.ID, owner)
				}
				w, ok := wantByID[all[j].modelID]
				if !ok {
					fail(step, "list", "listed task #%d, which the model does not list", j)
				}
				same(step, "list", owner, r, w, "")
			}
		default:
			got, gerr := st.DeleteExpired(ctx)
			want, werr := model.DeleteExpired(ctx)
			if gerr != nil || werr != nil {
				fail(step, "delete expired", "got %v, model %v", gerr, werr)
			}
			_, _ = got, want // counts may differ: the model also forgets expired tasks when an owner is at its limit
		}
	}
}

// listAll pages through the owner's tasks.
func listAll(t *testing.T, st tasks.Store, owner tasks.Owner, limit int) []tasks.Record {
	t.Helper()
	var out []tasks.Record
	cursor := ""
	for range 10_000 {
		p, err := st.List(context.Background(), owner, tasks.ListOptions{Cursor: cursor, Limit: limit})
		if err != nil {
			t.Fatalf("list: %v", err)
		}
		out = append(out, p.Tasks...)
		if p.NextCursor == "" {
			return out
		}
		cursor = p.NextCursor
	}
	t.Fatal("list never ended")
	return nil
}
