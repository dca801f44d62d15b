package postgres_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/internal/testenv"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/protocol"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

func resultOf(i int) json.RawMessage { return json.RawMessage(fmt.Sprintf(`{"n": %d}`, i)) }

// checkResults verifies every id in want is completed with its result.
func checkResults(t *testing.T, s tasks.Store, owner tasks.Owner, want map[string]int, stage string) {
	t.Helper()
	ctx := testCtx(t)
	for id, i := range want {
		r, err := s.Result(ctx, owner, id)
		if err != nil {
			t.Fatalf("%s: Result(%s): %v", stage, id, err)
		}
		if r.Status != tasks.StatusCompleted || string(r.Outcome.Result) != string(resultOf(i)) {
			t.Fatalf("%s: task %s is %s with %s, want completed with %s", stage, id, r.Status, r.Outcome.Result, resultOf(i))
		}
	}
}

// TestReopenKeepsCompletedResults: completed results survive closing the
// store and a clean stop of PostgreSQL, and an immediate (crash) stop with
// fsync on.
func TestReopenKeepsCompletedResults(t *testing.T) {
	c := testenv.PostgresCluster(t, testenv.PostgresOptions{Fsync: true, Private: true})
	dsn := c.NewDatabase(t)
	cfg, _ := fakeCfg()
	cfg.MaxTasksPerOwner = -1
	ctx := testCtx(t)
	s := open(t, dsn, cfg)
	done := map[string]int{}
	var working []string
	for i := range 60 {
		r := mustCreate(t, s, "durable")
		if i%6 == 5 {
			working = append(working, r.ID)
			continue
		}
		if _, err := s.Complete(ctx, "durable", r.ID, tasks.StatusCompleted, "ok", tasks.Outcome{Result: resultOf(i)}); err != nil {
			t.Fatal(err)
		}
		done[r.ID] = i
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	c.Stop(t)
	c.Start(t)
	s2 := open(t, dsn, cfg)
	checkResults(t, s2, "durable", done, "after a clean stop")
	for _, id := range working {
		if r, err := s2.Get(ctx, "durable", id); err != nil || r.Status != tasks.StatusWorking {
			t.Fatalf("working task %s after a clean stop: %+v, %v", id, r, err)
		}
	}
	// Complete the rest on the open store, then crash PostgreSQL under it.
	for i, id := range working {
		if _, err := s2.Complete(ctx, "durable", id, tasks.StatusCompleted, "ok", tasks.Outcome{Result: resultOf(1000 + i)}); err != nil {
			t.Fatal(err)
		}
		done[id] = 1000 + i
	}
	c.Crash(t)
	c.Start(t)
	s3 := open(t, dsn, cfg)
	checkResults(t, s3, "durable", done, "after pg_ctl -m immediate and a restart")
}

// TestEngineOutage stops PostgreSQL while 4 goroutines create and complete
// tasks: calls fail with internal errors (-32603), never with "not found"
// or a wrong answer; once PostgreSQL is back the same store works again
// and every acknowledged result is there.
func TestEngineOutage(t *testing.T) {
	c := testenv.PostgresCluster(t, testenv.PostgresOptions{Fsync: true, Private: true})
	dsn := c.NewDatabase(t)
	cfg, _ := fakeCfg()
	cfg.MaxTasksPerOwner = -1
	s := open(t, dsn, cfg)
	ctx := testCtx(t)

	var mu sync.Mutex
	acked := map[string]int{} // completed and acknowledged
	var outageErrs []error
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				n := g*1_000_000 + i
				r, err := s.Create(cctx, "busy", tasks.CreateParams{Method: "tools/call"})
				if err == nil {
					_, err = s.Complete(cctx, "busy", r.ID, tasks.StatusCompleted, "ok", tasks.Outcome{Result: resultOf(n)})
				}
				cancel()
				mu.Lock()
				if err == nil {
					acked[r.ID] = n
				} else {
					outageErrs = append(outageErrs, err)
				}
				mu.Unlock()
				if err != nil {
					time.Sleep(20 * time.Millisecond)
				}
			}
		})
	}
	time.Sleep(300 * time.Millisecond)
	c.Crash(t)

	// While it is down, every method reports an internal error.
	down := func(name string, err error) {
		t.Helper()
		if err == nil {
			t.Errorf("%s with PostgreSQL down: no error", name)
			return
		}
		if code := protocol.RPCCode(err); code != wire.CodeInternalError || errors.Is(err, tasks.ErrNotFound) {
			t.Errorf("%s with PostgreSQL down: %v (code %d), want an internal error (-32603)", name, err, code)
		}
	}
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	_, err := s.Get(dctx, "busy", "00000000-0000-4000-8000-000000000000")
	down("Get", err)
	_, err = s.Create(dctx, "busy", tasks.CreateParams{})
	down("Create", err)
	_, err = s.List(dctx, "busy", tasks.ListOptions{})
	down("List", err)
	_, err = s.DeleteExpired(dctx)
	down("DeleteExpired", err)
	_, err = s.ReapExpiredLeases(dctx)
	down("ReapExpiredLeases", err)
	cancel()
	time.Sleep(200 * time.Millisecond)
	close(stop)
	wg.Wait()
	mu.Lock()
	for _, err := range outageErrs {
		if code := protocol.RPCCode(err); code != wire.CodeInternalError {
			t.Errorf("a worker saw %v (code %d) during the outage, want -32603", err, code)
		}
	}
	t.Logf("before and during the outage: %d tasks completed and acknowledged, %d calls failed", len(acked), len(outageErrs))
	mu.Unlock()
	if len(outageErrs) == 0 {
		t.Error("no worker call failed while PostgreSQL was down")
	}

	c.Start(t)
	// The same store recovers: the pool replaces its dead connections.
	var recovered bool
	for range 50 {
		if _, err := s.List(ctx, "busy", tasks.ListOptions{Limit: 1}); err == nil {
			recovered = true
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !recovered {
		t.Fatal("the store did not recover within 5 s of PostgreSQL's restart")
	}
	checkResults(t, s, "busy", acked, "after the outage")
	// Nothing is half-written: every task is working, or terminal with a
	// readable outcome.
	cursor := ""
	for {
		p, err := s.List(ctx, "busy", tasks.ListOptions{Cursor: cursor, Limit: 200})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range p.Tasks {
			if r.Status.Terminal() {
				if _, err := s.Result(ctx, "busy", r.ID); err != nil {
					t.Errorf("terminal task %s has no readable outcome: %v", r.ID, err)
				}
			} else if _, err := s.Complete(ctx, "busy", r.ID, tasks.StatusCompleted, "late", tasks.Outcome{Result: json.RawMessage(`{}`)}); err != nil {
				t.Errorf("task %s left working by the outage cannot be completed: %v", r.ID, err)
			}
		}
		if cursor = p.NextCursor; cursor == "" {
			break
		}
	}
	if _, err := s.Create(ctx, "busy", tasks.CreateParams{}); err != nil {
		t.Errorf("Create after recovery: %v", err)
	}
}
