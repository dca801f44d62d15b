package dynamodb_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
)

// TestRaceOneTerminalWinner: 16 goroutines race Complete, Cancel and
// Transition on each of 200 tasks; exactly one terminal move wins per
// task, the stored outcome is the winner's, and the losers get
// ErrInvalidTransition.
func TestRaceOneTerminalWinner(t *testing.T) {
	const nTasks, nWorkers = 200, 16
	s := newStore(t, tasks.Config{Clock: fakeClock(), MaxTasksPerOwner: -1})
	ctx := ctxT(t)
	ids := make([]string, nTasks)
	for i := range ids {
		r, err := s.Create(ctx, "racer", tasks.CreateParams{})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = r.ID
	}
	type win struct {
		worker int
		status tasks.Status
	}
	var (
		mu      sync.Mutex
		winners = make(map[string][]win)
		badErrs atomic.Int64
		wg      sync.WaitGroup
	)
	for w := range nWorkers {
		wg.Go(func() {
			for _, id := range ids {
				var err error
				var st tasks.Status
				switch w % 4 {
				case 0:
					st = tasks.StatusCancelled
					_, err = s.Cancel(ctx, "racer", id, fmt.Sprint(w))
				case 1:
					st = tasks.StatusFailed
					_, err = s.Complete(ctx, "racer", id, st, fmt.Sprint(w), tasks.Outcome{Error: &tasks.RPCError{Code: int64(w), Message: "w"}})
				case 2:
					_, _ = s.Transition(ctx, "racer", id, tasks.StatusInputRequired, "")
					st = tasks.StatusCompleted
					_, err = s.Complete(ctx, "racer", id, st, fmt.Sprint(w), tasks.Outcome{Result: json.RawMessage(fmt.Sprintf(`{"w":%d}`, w))})
				default:
					_, _ = s.Transition(ctx, "racer", id, tasks.StatusWorking, "")
					st = tasks.StatusCompleted
					_, err = s.Complete(ctx, "racer", id, st, fmt.Sprint(w), tasks.Outcome{Result: json.RawMessage(fmt.Sprintf(`{"w":%d}`, w))})
				}
				switch {
				case err == nil:
					mu.Lock()
					winners[id] = append(winners[id], win{w, st})
					mu.Unlock()
				case !errors.Is(err, tasks.ErrInvalidTransition):
					badErrs.Add(1)
					t.Errorf("worker %d on %s: %v", w, id, err)
				}
			}
		})
	}
	wg.Wait()
	if badErrs.Load() > 0 {
		t.Fatalf("%d unexpected errors", badErrs.Load())
	}
	for _, id := range ids {
		ws := winners[id]
		if len(ws) != 1 {
			t.Fatalf("task %s has %d terminal winners: %+v", id, len(ws), ws)
		}
		got, err := s.Result(ctx, "racer", id)
		if err != nil {
			t.Fatal(err)
		}
		w := ws[0]
		if got.Status != w.status || got.StatusMessage != fmt.Sprint(w.worker) {
			t.Fatalf("task %s: stored %s/%q, winner was worker %d with %s", id, got.Status, got.StatusMessage, w.worker, w.status)
		}
	}
}

// TestNoLostVariableUpdate: concurrent merges of distinct keys all land.
func TestNoLostVariableUpdate(t *testing.T) {
	const nWorkers, perWorker = 16, 5
	s := newStore(t, tasks.Config{Clock: fakeClock()})
	ctx := ctxT(t)
	r, _ := s.Create(ctx, "o", tasks.CreateParams{})
	var wg sync.WaitGroup
	for w := range nWorkers {
		wg.Go(func() {
			for i := range perWorker {
				k := fmt.Sprintf("w%d.%d", w, i)
				if _, err := s.SetVariables(ctx, "o", r.ID, map[string]json.RawMessage{k: json.RawMessage(`true`)}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	got, err := s.Get(ctx, "o", r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Variables) != nWorkers*perWorker || got.Version != 1+nWorkers*perWorker {
		t.Fatalf("%d variables, version %d; want %d and %d", len(got.Variables), got.Version, nWorkers*perWorker, 1+nWorkers*perWorker)
	}
}

// TestLimitUnderConcurrency: 16 goroutines create for one owner with a cap
// of 10; exactly 10 succeed (no expiry involved, so the counter is exact).
func TestLimitUnderConcurrency(t *testing.T) {
	const limit = 10
	s := newStore(t, tasks.Config{Clock: fakeClock(), MaxTasksPerOwner: limit})
	ctx := ctxT(t)
	var ok, limited atomic.Int64
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range 3 {
				_, err := s.Create(ctx, "o", tasks.CreateParams{})
				switch {
				case err == nil:
					ok.Add(1)
				case errors.Is(err, tasks.ErrLimit):
					limited.Add(1)
				default:
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if ok.Load() != limit || limited.Load() != 48-limit {
		t.Fatalf("%d created, %d limited; want %d and %d", ok.Load(), limited.Load(), limit, 48-limit)
	}
}

// TestMultiOwnerRandomized: random operations by 8 owners on their own and
// on others' task ids; no call ever returns another owner's task, and
// every foreign access is ErrNotFound.
func TestMultiOwnerRandomized(t *testing.T) {
	const nOwners, nOps = 8, 1500
	s := newStore(t, tasks.Config{Clock: fakeClock(), MaxTasksPerOwner: -1})
	ctx := ctxT(t)
	owners := make([]tasks.Owner, nOwners)
	for i := range owners {
		owners[i] = tasks.Owner(fmt.Sprintf("owner-%d", i))
	}
	var (
		mu    sync.Mutex
		ids   []string
		owned = map[string]tasks.Owner{}
		wg    sync.WaitGroup
	)
	pick := func(rng *rand.Rand) (string, tasks.Owner, bool) {
		mu.Lock()
		defer mu.Unlock()
		if len(ids) == 0 {
			return "", "", false
		}
		id := ids[rng.IntN(len(ids))]
		return id, owned[id], true
	}
	for g := range nOwners {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 7))
			me := owners[g]
			check := func(what string, r tasks.Record, err error, id string, realOwner tasks.Owner) {
				if err == nil && r.Owner != me {
					t.Errorf("%s by %s returned a task of %s", what, me, r.Owner)
				}
				if realOwner != me && !errors.Is(err, tasks.ErrNotFound) {
					t.Errorf("%s by %s on %s's task %s: %v, want not found", what, me, realOwner, id, err)
				}
			}
			for range nOps / nOwners {
				switch op := rng.IntN(8); {
				case op < 2:
					r, err := s.Create(ctx, me, tasks.CreateParams{})
					if err != nil {
						t.Error(err)
						continue
					}
					mu.Lock()
					ids = append(ids, r.ID)
					owned[r.ID] = me
					mu.Unlock()
				case op == 2:
					p, err := s.List(ctx, me, tasks.ListOptions{Limit: 20})
					if err != nil {
						t.Error(err)
					}
					for _, r := range p.Tasks {
						if r.Owner != me {
							t.Errorf("list by %s returned a task of %s", me, r.Owner)
						}
					}
				default:
					id, realOwner, ok := pick(rng)
					if !ok {
						continue
					}
					var r tasks.Record
					var err error
					switch op {
					case 3:
						r, err = s.Get(ctx, me, id)
					case 4:
						r, err = s.Cancel(ctx, me, id, "")
					case 5:
						r, err = s.SetVariables(ctx, me, id, map[string]json.RawMessage{"k": json.RawMessage(`1`)})
					case 6:
						r, err = s.Transition(ctx, me, id, tasks.StatusInputRequired, "")
					default:
						r, err = s.Result(ctx, me, id)
					}
					if errors.Is(err, tasks.ErrInvalidTransition) || errors.Is(err, tasks.ErrNotReady) {
						err = nil
						r.Owner = me
					}
					check(fmt.Sprintf("op %d", op), r, err, id, realOwner)
				}
			}
		})
	}
	wg.Wait()
	// Every owner's listing holds exactly its own tasks.
	for _, o := range owners {
		seen := 0
		cursor := ""
		for {
			p, err := s.List(ctx, o, tasks.ListOptions{Cursor: cursor, Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range p.Tasks {
				if owned[r.ID] != o {
					t.Fatalf("list of %s holds %s's task", o, owned[r.ID])
				}
				seen++
			}
			if cursor = p.NextCursor; cursor == "" {
				break
			}
		}
		want := 0
		for _, ow := range owned {
			if ow == o {
				want++
			}
		}
		if seen != want {
			t.Fatalf("%s lists %d tasks, owns %d", o, seen, want)
		}
	}
}

// TestPagination1000: 1 000 tasks, many in the same millisecond, listed in
// pages of varied size: each exactly once, in (CreatedAt, ID) order, with
// expired tasks skipped and a foreign cursor rejected.
func TestPagination1000(t *testing.T) {
	const n = 1000
	clk := fakeClock()
	s := newStore(t, tasks.Config{Clock: clk, MaxTasksPerOwner: -1})
	ctx := ctxT(t)
	want := map[string]bool{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range n / 8 {
				if i%25 == 0 && w == 0 {
					clk.Advance(1) // bump sub-ms time now and then: many ties remain
				}
				r, err := s.Create(ctx, "pager", tasks.CreateParams{})
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				want[r.ID] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	// Some expired tasks in between must not appear nor break paging.
	d := 1500 * time.Millisecond
	for range 5 {
		if _, err := s.Create(ctx, "pager", tasks.CreateParams{TTL: &d}); err != nil {
			t.Fatal(err)
		}
	}
	clk.Advance(2 * time.Second)
	sizes := []int{1, 7, 50, 333, 1000}
	for _, size := range sizes {
		seen := map[string]bool{}
		var last *tasks.Record
		cursor, pages := "", 0
		for {
			p, err := s.List(ctx, "pager", tasks.ListOptions{Cursor: cursor, Limit: size})
			if err != nil {
				t.Fatal(err)
			}
			pages++
			if len(p.Tasks) > size {
				t.Fatalf("page of %d for limit %d", len(p.Tasks), size)
			}
			for i := range p.Tasks {
				r := p.Tasks[i]
				if seen[r.ID] {
					t.Fatalf("limit %d: %s listed twice", size, r.ID)
				}
				if !want[r.ID] {
					t.Fatalf("limit %d: unexpected task %s (expired?)", size, r.ID)
				}
				if last != nil && !storekit.CursorOf(*last).After(r) {
					t.Fatalf("limit %d: out of order at %s", size, r.ID)
				}
				seen[r.ID] = true
				last = &p.Tasks[i]
			}
			if cursor = p.NextCursor; cursor == "" {
				break
			}
			if pages > n+2 {
				t.Fatal("paging does not end")
			}
		}
		if len(seen) != n {
			t.Fatalf("limit %d: saw %d of %d tasks", size, len(seen), n)
		}
	}
	if _, err := s.List(ctx, "pager", tasks.ListOptions{Cursor: "garbage"}); !errors.Is(err, tasks.ErrInvalidCursor) {
		t.Fatalf("bad cursor: %v", err)
	}
}
