package postgres_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/stores/memory"
	"github.com/mcptasks/mcptasks/stores/postgres"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/protocol"
)

func TestMigrationsRerunSafely(t *testing.T) {
	cfg, _ := fakeCfg()
	s, dsn := fresh(t, cfg)
	ctx := testCtx(t)
	r := mustCreate(t, s, "alice")
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 4 {
		wg.Go(func() { errs <- postgres.Migrate(ctx, s.Pool()) })
		wg.Go(func() {
			s2, err := postgres.Open(ctx, dsn, cfg)
			if err == nil {
				err = s2.Close()
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("re-running migrations: %v", err)
		}
	}
	var applied int
	if err := s.Pool().QueryRow(ctx, "SELECT count(*) FROM mcptasks_schema_migrations").Scan(&applied); err != nil {
		t.Fatal(err)
	}
	if applied != 1 {
		t.Errorf("mcptasks_schema_migrations has %d rows, want 1 (one per embedded migration)", applied)
	}
	if got, err := s.Get(ctx, "alice", r.ID); err != nil || got.Version != r.Version {
		t.Errorf("task created before the re-runs: %+v, %v", got, err)
	}
}

// TestTerminalRace: 16 goroutines race to end each of 500 tasks with
// Complete(completed), Complete(failed) or Cancel; exactly one wins per
// task and the stored outcome is the winner's.
func TestTerminalRace(t *testing.T) {
	cfg, _ := fakeCfg()
	cfg.MaxTasksPerOwner = -1
	s, _ := fresh(t, cfg)
	ctx := testCtx(t)
	const nTasks, nWorkers = 500, 16
	ids := make([]string, nTasks)
	for i := range ids {
		ids[i] = mustCreate(t, s, "racer").ID
	}
	type win struct {
		worker int
		status tasks.Status
	}
	var mu sync.Mutex
	wins := make(map[string][]win)
	var wg sync.WaitGroup
	for w := range nWorkers {
		wg.Go(func() {
			for _, id := range ids {
				var err error
				var st tasks.Status
				switch w % 3 {
				case 0:
					st = tasks.StatusCompleted
					_, err = s.Complete(ctx, "racer", id, st, "done", tasks.Outcome{Result: json.RawMessage(fmt.Sprintf(`{"worker":%d}`, w))})
				case 1:
					st = tasks.StatusFailed
					_, err = s.Complete(ctx, "racer", id, st, "broke", tasks.Outcome{Error: &tasks.RPCError{Code: int64(-32000 - w), Message: "boom"}})
				default:
					st = tasks.StatusCancelled
					_, err = s.Cancel(ctx, "racer", id, fmt.Sprintf("worker %d", w))
				}
				switch {
				case err == nil:
					mu.Lock()
					wins[id] = append(wins[id], win{w, st})
					mu.Unlock()
				case !errors.Is(err, tasks.ErrInvalidTransition):
					t.Errorf("worker %d, task %s: %v (want success or ErrInvalidTransition)", w, id, err)
				}
			}
		})
	}
	wg.Wait()
	for _, id := range ids {
		ws := wins[id]
		if len(ws) != 1 {
			t.Errorf("task %s: %d winners %v, want exactly 1", id, len(ws), ws)
			continue
		}
		r, err := s.Result(ctx, "racer", id)
		if err != nil {
			t.Fatalf("Result: %v", err)
		}
		w := ws[0]
		if r.Status != w.status || r.Version != 2 {
			t.Errorf("task %s: status %s version %d, winner %+v", id, r.Status, r.Version, w)
		}
		switch w.status {
		case tasks.StatusCompleted:
			if string(r.Outcome.Result) != fmt.Sprintf(`{"worker":%d}`, w.worker) {
				t.Errorf("task %s: result %s is not the winner's (%d)", id, r.Outcome.Result, w.worker)
			}
		case tasks.StatusFailed:
			if r.Outcome.Error == nil || r.Outcome.Error.Code != int64(-32000-w.worker) {
				t.Errorf("task %s: error %+v is not the winner's (%d)", id, r.Outcome.Error, w.worker)
			}
		case tasks.StatusCancelled:
			if r.StatusMessage != fmt.Sprintf("worker %d", w.worker) {
				t.Errorf("task %s: message %q is not the winner's (%d)", id, r.StatusMessage, w.worker)
			}
		}
	}
}

// TestRandomizedMultiOwner runs 10 000 random operations from 8 owners at
// once, each also probing the others' task ids, and checks that no call
// ever returns another owner's task, that probes look exactly like
// missing tasks, and that the per-owner limit is applied exactly.
func TestRandomizedMultiOwner(t *testing.T) {
	cfg, _ := fakeCfg()
	cfg.MaxTasksPerOwner = 40
	s, _ := fresh(t, cfg)
	ctx := testCtx(t)
	const nOwners, opsPerOwner = 8, 1250
	var idsMu sync.Mutex
	var allIDs []string // every task id of every owner, for probing
	var wg sync.WaitGroup
	for o := range nOwners {
		owner := tasks.Owner(fmt.Sprintf("owner-%d", o))
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(o), 42))
			mine := map[string]tasks.Status{}
			var order []string
			active := 0
			pick := func() string {
				if len(order) == 0 {
					return "00000000-0000-4000-8000-000000000000"
				}
				return order[rng.IntN(len(order))]
			}
			fail := func(format string, args ...any) {
				t.Errorf("%s: "+format, append([]any{owner}, args...)...)
			}
			checkOwn := func(op string, r tasks.Record) {
				if r.Owner != owner {
					fail("%s returned a task of %s", op, r.Owner)
				}
				if _, ok := mine[r.ID]; !ok {
					fail("%s returned task %s, which is not ours", op, r.ID)
				}
			}
			for range opsPerOwner {
				switch op := rng.IntN(8); op {
				case 0, 1: // create
					r, err := s.Create(ctx, owner, tasks.CreateParams{Method: "tools/call"})
					if active >= cfg.MaxTasksPerOwner {
						if !errors.Is(err, tasks.ErrLimit) {
							fail("create at the limit: %v, want ErrLimit", err)
						}
						continue
					}
					if err != nil {
						fail("create: %v", err)
						continue
					}
					mine[r.ID] = r.Status
					order = append(order, r.ID)
					active++
					idsMu.Lock()
					allIDs = append(allIDs, r.ID)
					idsMu.Unlock()
					checkOwn("create", r)
				case 2: // get own
					id := pick()
					r, err := s.Get(ctx, owner, id)
					if _, ok := mine[id]; !ok {
						continue
					}
					if err != nil {
						fail("get own %s: %v", id, err)
						continue
					}
					checkOwn("get", r)
				case 3: // probe someone else's task with every read/write
					idsMu.Lock()
					var id string
					if len(allIDs) > 0 {
						id = allIDs[rng.IntN(len(allIDs))]
					}
					idsMu.Unlock()
					if _, ok := mine[id]; ok || id == "" {
						continue
					}
					probes := map[string]error{}
					_, probes["get"] = s.Get(ctx, owner, id)
					_, probes["result"] = s.Result(ctx, owner, id)
					_, probes["cancel"] = s.Cancel(ctx, owner, id, "x")
					_, probes["transition"] = s.Transition(ctx, owner, id, tasks.StatusInputRequired, "x")
					_, probes["set variables"] = s.SetVariables(ctx, owner, id, map[string]json.RawMessage{"k": json.RawMessage(`1`)})
					_, probes["complete"] = s.Complete(ctx, owner, id, tasks.StatusCompleted, "x", tasks.Outcome{Result: json.RawMessage(`{}`)})
					probes["renew lease"] = s.RenewLease(ctx, owner, id, epoch.Add(time.Hour))
					for name, err := range probes {
						if !errors.Is(err, tasks.ErrNotFound) {
							fail("%s of another owner's task %s: %v, want ErrNotFound", name, id, err)
						}
					}
				case 4: // list all pages
					cursor, seen := "", 0
					for {
						p, err := s.List(ctx, owner, tasks.ListOptions{Cursor: cursor, Limit: 7})
						if err != nil {
							fail("list: %v", err)
							break
						}
						for _, r := range p.Tasks {
							checkOwn("list", r)
						}
						seen += len(p.Tasks)
						if cursor = p.NextCursor; cursor == "" {
							break
						}
					}
					if seen != len(mine) {
						fail("list saw %d tasks, we have %d", seen, len(mine))
					}
				case 5: // transition
					id := pick()
					st, ok := mine[id]
					to := tasks.StatusInputRequired
					if st == tasks.StatusInputRequired {
						to = tasks.StatusWorking
					}
					r, err := s.Transition(ctx, owner, id, to, "t")
					switch {
					case !ok:
					case st.Terminal() && !errors.Is(err, tasks.ErrInvalidTransition):
						fail("transition of a %s task: %v", st, err)
					case !st.Terminal() && err != nil:
						fail("transition %s -> %s: %v", st, to, err)
					case err == nil:
						checkOwn("transition", r)
						mine[id] = to
					}
				case 6: // end
					id := pick()
					st, ok := mine[id]
					var r tasks.Record
					var err error
					to := tasks.StatusCancelled
					if rng.IntN(2) == 0 {
						r, err = s.Cancel(ctx, owner, id, "c")
					} else {
						to = tasks.StatusCompleted
						r, err = s.Complete(ctx, owner, id, to, "ok", tasks.Outcome{Result: json.RawMessage(`{"owner":"` + string(owner) + `"}`)})
					}
					switch {
					case !ok:
					case st.Terminal() && !errors.Is(err, tasks.ErrInvalidTransition):
						fail("ending a %s task: %v", st, err)
					case !st.Terminal() && err != nil:
						fail("ending: %v", err)
					case err == nil:
						checkOwn("end", r)
						mine[id] = to
						active--
					}
				case 7: // result
					id := pick()
					st, ok := mine[id]
					r, err := s.Result(ctx, owner, id)
					switch {
					case !ok:
					case !st.Terminal() && !errors.Is(err, tasks.ErrNotReady):
						fail("result of a %s task: %v", st, err)
					case st.Terminal() && err != nil:
						fail("result: %v", err)
					case err == nil:
						checkOwn("result", r)
						if r.Status == tasks.StatusCompleted && string(r.Outcome.Result) != `{"owner":"`+string(owner)+`"}` {
							fail("result %s carries someone else's outcome", r.Outcome.Result)
						}
					}
				}
			}
		})
	}
	wg.Wait()
}

// TestVariablesMatchMemoryStore applies the same random patches to the
// memory store and to PostgreSQL and expects identical variables (byte
// for byte) and identical refusals.
func TestVariablesMatchMemoryStore(t *testing.T) {
	cfg, _ := fakeCfg()
	cfg.MaxVariablesBytes = 200
	pg, _ := fresh(t, cfg)
	mem := memory.New(cfg)
	defer mem.Close()
	ctx := testCtx(t)
	values := []string{`1`, `"x"`, `null`, `{"a": [1, 2,  3]}`, ` true `, `"` + string(make([]byte, 0)) + `"`,
		`"long-ish value that eats the budget quickly......"`, `not json`, `{"nested":{"deep":null}}`, `-0.5e10`}
	keys := []string{"a", "b", "server.x", "client.y", "ünï", `q"uote`, ""}
	rng := rand.New(rand.NewPCG(7, 7))
	rp, _ := pg.Create(ctx, "v", tasks.CreateParams{})
	rm, _ := mem.Create(ctx, "v", tasks.CreateParams{})
	for i := range 400 {
		patch := map[string]json.RawMessage{}
		for range 1 + rng.IntN(3) {
			patch[keys[rng.IntN(len(keys))]] = json.RawMessage(values[rng.IntN(len(values))])
		}
		gp, errP := pg.SetVariables(ctx, "v", rp.ID, patch)
		gm, errM := mem.SetVariables(ctx, "v", rm.ID, patch)
		if (errP == nil) != (errM == nil) || (errP != nil && protocol.RPCCode(errP) != protocol.RPCCode(errM)) {
			t.Fatalf("step %d patch %v: postgres %v, memory %v", i, patch, errP, errM)
		}
		if errP != nil {
			for _, sentinel := range []error{tasks.ErrVariablesTooLarge, tasks.ErrInvalidParams} {
				if errors.Is(errP, sentinel) != errors.Is(errM, sentinel) {
					t.Fatalf("step %d: postgres %v, memory %v", i, errP, errM)
				}
			}
			continue
		}
		if !reflect.DeepEqual(gp.Variables, gm.Variables) || gp.Version != gm.Version {
			t.Fatalf("step %d patch %v:\npostgres %v (v%d)\nmemory   %v (v%d)", i, patch, gp.Variables, gp.Version, gm.Variables, gm.Version)
		}
		again, err := pg.Get(ctx, "v", rp.ID)
		if err != nil || !reflect.DeepEqual(again.Variables, gm.Variables) {
			t.Fatalf("step %d: re-read %v, %v; want %v", i, again.Variables, err, gm.Variables)
		}
	}
}

// TestConcurrentVariableMergesLoseNothing: 16 goroutines each set their
// own key 20 times; every last write survives.
func TestConcurrentVariableMergesLoseNothing(t *testing.T) {
	cfg, _ := fakeCfg()
	s, _ := fresh(t, cfg)
	ctx := testCtx(t)
	r := mustCreate(t, s, "v")
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 20 {
				if _, err := s.SetVariables(ctx, "v", r.ID, map[string]json.RawMessage{fmt.Sprintf("k%d", g): json.RawMessage(fmt.Sprint(i))}); err != nil {
					t.Errorf("SetVariables: %v", err)
				}
			}
		})
	}
	wg.Wait()
	got, err := s.Get(ctx, "v", r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Variables) != 16 || got.Version != 1+16*20 {
		t.Fatalf("after 320 merges: %d keys, version %d; want 16 keys, version 321", len(got.Variables), got.Version)
	}
	for g := range 16 {
		if v := string(got.Variables[fmt.Sprintf("k%d", g)]); v != "19" {
			t.Errorf("k%d = %s, want 19", g, v)
		}
	}
}

// TestLimitHoldsAcrossInstances: 16 goroutines on two stores (two pools,
// as two server instances would have) create 160 tasks for one owner with
// a limit of 50: exactly 50 succeed, the rest get ErrLimit.
func TestLimitHoldsAcrossInstances(t *testing.T) {
	cfg, _ := fakeCfg()
	cfg.MaxTasksPerOwner = 50
	a, dsn := fresh(t, cfg)
	b := open(t, dsn, cfg)
	ctx := testCtx(t)
	var mu sync.Mutex
	ok, limited := 0, 0
	var wg sync.WaitGroup
	for g := range 16 {
		s := a
		if g%2 == 1 {
			s = b
		}
		wg.Go(func() {
			for range 10 {
				_, err := s.Create(ctx, "capped", tasks.CreateParams{})
				mu.Lock()
				switch {
				case err == nil:
					ok++
				case errors.Is(err, tasks.ErrLimit):
					limited++
				default:
					t.Errorf("Create: %v", err)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if ok != 50 || limited != 110 {
		t.Fatalf("%d created, %d refused; want 50 and 110", ok, limited)
	}
	p, err := a.List(ctx, "capped", tasks.ListOptions{Limit: 100})
	if err != nil || len(p.Tasks) != 50 {
		t.Fatalf("List: %d tasks, %v; want 50", len(p.Tasks), err)
	}
}

// TestStringsPostgresCannotStore: ids and owners a text column refuses
// name no task (ErrNotFound, never an internal error), and messages with
// NUL bytes or invalid UTF-8 are stored with U+FFFD in their place.
func TestStringsPostgresCannotStore(t *testing.T) {
	cfg, _ := fakeCfg()
	s, _ := fresh(t, cfg)
	ctx := testCtx(t)
	r := mustCreate(t, s, "o")
	for _, id := range []string{"\x00", "a\x00b", "\xff\xfe", r.ID + "\x00"} {
		if _, err := s.Get(ctx, "o", id); !errors.Is(err, tasks.ErrNotFound) {
			t.Errorf("Get(%q): %v, want ErrNotFound", id, err)
		}
		if _, err := s.Cancel(ctx, "o", id, ""); !errors.Is(err, tasks.ErrNotFound) {
			t.Errorf("Cancel(%q): %v, want ErrNotFound", id, err)
		}
	}
	if _, err := s.Get(ctx, "o\x00", r.ID); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("Get by owner with a NUL: %v, want ErrNotFound", err)
	}
	if p, err := s.List(ctx, "\xff", tasks.ListOptions{}); err != nil || len(p.Tasks) != 0 {
		t.Errorf("List of an unstorable owner: %v, %v", p, err)
	}
	if _, err := s.Create(ctx, "bad\x00owner", tasks.CreateParams{}); !errors.Is(err, tasks.ErrInvalidParams) {
		t.Errorf("Create for an owner with a NUL: %v, want ErrInvalidParams", err)
	}
	got, err := s.Transition(ctx, "o", r.ID, tasks.StatusInputRequired, "nul\x00here")
	if err != nil || got.StatusMessage != "nul\uFFFDhere" {
		t.Errorf("Transition with a NUL in the message: %q, %v", got.StatusMessage, err)
	}
	if _, err := s.Complete(ctx, "o", r.ID, tasks.StatusFailed, "bad \xff utf8",
		tasks.Outcome{Error: &tasks.RPCError{Code: -1, Message: "x\x00y"}}); err != nil {
		t.Fatalf("Complete with unstorable messages: %v", err)
	}
	res, err := s.Result(ctx, "o", r.ID)
	if err != nil || res.StatusMessage != "bad \uFFFD utf8" || res.Outcome.Error.Message != "x\uFFFDy" {
		t.Errorf("Result: %q / %+v, %v", res.StatusMessage, res.Outcome, err)
	}
}
