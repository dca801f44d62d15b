package faults_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/internal/testenv"
	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/stores/storeurl"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/client"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// The outage scenario: outageTasks tasks that each run taskMillis are
// started, the store becomes unreachable shortly after and stays so for
// outageLength, so every task finishes while it is.
const (
	outageTasks  = 15
	taskMillis   = 4000
	outageLength = 7 * time.Second
)

func testCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func startSleeps(t *testing.T, ctx context.Context, c *client.Client, n, ms int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		ct, err := c.CallToolAsTask(ctx, "fixture_sleep", map[string]any{"ms": ms}, nil)
		if err != nil {
			t.Fatalf("task %d of %d: fixture_sleep as a task: %v", i+1, n, err)
		}
		ids[i] = ct.Task.TaskID
	}
	return ids
}

// awaitTerminal polls tasks/get until the task is terminal, putting up
// with errors (the server may still be reconnecting to its store).
func awaitTerminal(t *testing.T, ctx context.Context, c *client.Client, id string, timeout time.Duration) *schema.GetTaskResult {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		task, err := c.GetTask(ctx, id)
		if err == nil && task.Terminal() {
			return task
		}
		last = err
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("task %s not terminal within %s (last error: %v)", id, timeout, last)
	return nil
}

// storeFault makes a store unreachable and brings it back.
type storeFault struct {
	down, up func(t *testing.T)
	// probe checks, in the test process, how every store method reports
	// the outage. Left off for Redis: go-redis waits out its own read
	// timeouts and retries, longer than the outage, whatever the context.
	probe bool
}

// runOutage checks that work finishing while the store is unreachable is
// not lost: once the store is back, every task is completed and
// tasks/result gives the tool's own result.
func runOutage(t *testing.T, spec string, f storeFault) {
	srv := startServer(t, "server", spec)
	ctx := testCtx(t, 3*time.Minute)
	c := srv.Connect(ctx, t, token)
	ids := startSleeps(t, ctx, c, outageTasks, taskMillis)
	created := time.Now()

	var pr probe
	if f.probe {
		pr = openProbe(t, ctx, spec)
	}
	f.down(t)
	down := time.Now()
	if f.probe {
		pr.check(t, ctx)
	}
	// The outage lasts outageLength and covers the moment every task's
	// work ends.
	for time.Since(down) < outageLength || time.Since(created) < taskMillis*time.Millisecond+time.Second {
		time.Sleep(50 * time.Millisecond)
	}
	f.up(t)
	back := time.Now()
	t.Logf("store unreachable for %s; tasks ended %s into it", back.Sub(down).Round(100*time.Millisecond),
		created.Add(taskMillis*time.Millisecond).Sub(down).Round(100*time.Millisecond))

	want := fmt.Sprintf("slept %d ms", taskMillis)
	for i, id := range ids {
		task := awaitTerminal(t, ctx, c, id, 60*time.Second)
		if task.Status != schema.TaskStatusCompleted {
			t.Errorf("task %d: %s %q after the outage, want completed", i+1, task.Status, task.Message())
			continue
		}
		res, err := c.Result(ctx, id)
		if err != nil {
			t.Errorf("task %d: tasks/result: %v, want the tool's result", i+1, err)
			continue
		}
		if !strings.Contains(string(res), want) {
			t.Errorf("task %d: tasks/result %s, want the tool's result (%q)", i+1, res, want)
		}
	}
	t.Logf("all %d outcomes available %s after the store came back", outageTasks, time.Since(back).Round(100*time.Millisecond))
	// The fault was real: the server saw the store fail.
	if n := srv.CountLog("failed; retrying"); n == 0 {
		t.Errorf("the server never saw the store fail; the fault did not happen")
	}
	if n := srv.CountLog("ended tasks whose worker was lost"); n != 0 {
		t.Errorf("the reaper ended live work as lost (%d log lines)", n)
	}
}

// probe is the store opened in the test process, with one running task,
// to check how each store method reports an outage.
type probe struct {
	store tasks.Store
	id    string
}

const probeOwner tasks.Owner = "probe"

func openProbe(t *testing.T, ctx context.Context, spec string) probe {
	t.Helper()
	st, err := storeurl.Open(ctx, spec, tasks.Config{})
	if err != nil {
		t.Fatalf("open %s in the test: %v", spec, err)
	}
	t.Cleanup(func() { _ = st.Close() })
	rec, err := st.Create(ctx, probeOwner, tasks.CreateParams{Method: "tools/call"})
	if err != nil {
		t.Fatal(err)
	}
	return probe{store: st, id: rec.ID}
}

// check calls every store method while the store is unreachable: each
// must fail with an error the engine retries (tasks.Transient), never
// with one that says the task is gone or already ended, which would make
// the engine drop the write.
func (p probe) check(t *testing.T, ctx context.Context) {
	t.Helper()
	st, id := p.store, p.id
	calls := map[string]func(context.Context) error{
		"Get": func(c context.Context) error { _, err := st.Get(c, probeOwner, id); return err },
		"Transition": func(c context.Context) error {
			_, err := st.Transition(c, probeOwner, id, tasks.StatusInputRequired, "")
			return err
		},
		"SetVariables": func(c context.Context) error {
			_, err := st.SetVariables(c, probeOwner, id, map[string]json.RawMessage{"k": json.RawMessage(`1`)})
			return err
		},
		"Complete": func(c context.Context) error {
			_, err := st.Complete(c, probeOwner, id, tasks.StatusCompleted, "", tasks.Outcome{Result: json.RawMessage(`{}`)})
			return err
		},
		"Result": func(c context.Context) error { _, err := st.Result(c, probeOwner, id); return err },
		"Wait":   func(c context.Context) error { _, err := st.Wait(c, probeOwner, id, 1<<40); return err },
	}
	if ls, ok := st.(tasks.LeaseStore); ok {
		calls["RenewLease"] = func(c context.Context) error { return ls.RenewLease(c, probeOwner, id, time.Now().Add(time.Minute)) }
		calls["ReapExpiredLeases"] = func(c context.Context) error { _, err := ls.ReapExpiredLeases(c); return err }
	}
	errs := make(map[string]error, len(calls))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for name, call := range calls {
		wg.Go(func() {
			c, cancel := context.WithTimeout(ctx, time.Second)
			defer cancel()
			err := call(c)
			mu.Lock()
			errs[name] = err
			mu.Unlock()
		})
	}
	wg.Wait()
	for name, err := range errs {
		switch {
		case err == nil:
			t.Errorf("%s succeeded on an unreachable store", name)
		case errors.Is(err, tasks.ErrNotFound), errors.Is(err, tasks.ErrInvalidTransition), !tasks.Transient(err):
			t.Errorf("%s on an unreachable store: %v, which is not a transient error", name, err)
		}
	}
}

func TestPostgresStopped(t *testing.T) {
	pg := testenv.PostgresCluster(t, testenv.PostgresOptions{Private: true})
	runOutage(t, pg.NewDatabase(t), storeFault{
		down:  func(t *testing.T) { pg.Stop(t) },
		up:    func(t *testing.T) { pg.Start(t) },
		probe: true,
	})
}

func TestRedisFrozen(t *testing.T) {
	rs := testenv.StartRedis(t, testenv.RedisOptions{})
	runOutage(t, rs.URL, storeFault{
		down: func(t *testing.T) { must(t, rs.Pause()) },
		up:   func(t *testing.T) { must(t, rs.Resume()) },
	})
}

func TestDynamoDBFrozen(t *testing.T) {
	d := testenv.StartDynamoDB(t)
	spec := "dynamodb://faults?endpoint=" + d.Endpoint + "&region=us-east-1&create=1"
	runOutage(t, spec, storeFault{
		down:  func(t *testing.T) { must(t, d.Pause()) },
		up:    func(t *testing.T) { must(t, d.Resume()) },
		probe: true,
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestSQLiteKilled: a SQLite server is killed with kill -9 while tasks
// run. Restarted on the same file, it ends them as failed within seconds,
// tasks/result answers them at once with an error saying what happened,
// and their slots under the per-requestor cap are free again.
func TestSQLiteKilled(t *testing.T) {
	const running = 20
	spec := "sqlite:" + filepath.Join(t.TempDir(), "tasks.db")
	lease := []string{"--lease", "1s"}
	first := startServer(t, "first", spec, lease...)
	ctx := testCtx(t, 3*time.Minute)
	c := first.Connect(ctx, t, token)
	ids := startSleeps(t, ctx, c, running, 600_000)
	for _, id := range ids {
		if task, err := c.GetTask(ctx, id); err != nil || task.Status != schema.TaskStatusWorking {
			t.Fatalf("task %s before the kill: %+v %v", id, task, err)
		}
	}
	first.Kill(t)

	second := startServer(t, "restarted", spec, lease...)
	restarted := time.Now()
	c2 := second.Connect(ctx, t, token)
	for i, id := range ids {
		task := awaitTerminal(t, ctx, c2, id, 15*time.Second)
		if task.Status != schema.TaskStatusFailed || !strings.Contains(task.Message(), "stopped before it finished") {
			t.Errorf("task %d after the restart: %s %q, want failed, saying the server stopped", i+1, task.Status, task.Message())
		}
	}
	t.Logf("%d tasks of the killed server failed %s after the restart", running, time.Since(restarted).Round(10*time.Millisecond))

	for i, id := range ids {
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		start := time.Now()
		_, err := c2.Result(rctx, id)
		cancel()
		var rpc *client.RPCError
		switch {
		case !errors.As(err, &rpc):
			t.Errorf("task %d: tasks/result: %v, want the JSON-RPC error outcome", i+1, err)
		case rpc.Code != wire.CodeInternalError || !strings.Contains(rpc.Message, "stopped before it finished"):
			t.Errorf("task %d: tasks/result error %d %q", i+1, rpc.Code, rpc.Message)
		case time.Since(start) > 2*time.Second:
			t.Errorf("task %d: tasks/result took %s", i+1, time.Since(start))
		}
	}

	// The default cap (100 active tasks per requestor) is whole again.
	startSleeps(t, ctx, c2, tasks.DefaultMaxTasksPerOwner, 600_000)
	if _, err := c2.CallToolAsTask(ctx, "fixture_sleep", map[string]any{"ms": 600_000}, nil); err == nil {
		t.Errorf("task %d accepted over the cap of %d", tasks.DefaultMaxTasksPerOwner+1, tasks.DefaultMaxTasksPerOwner)
	}
}

// TestRedisDownErrors: with redis-server killed (connections refused),
// every store method fails with a transient error.
func TestRedisDownErrors(t *testing.T) {
	rs := testenv.StartRedis(t, testenv.RedisOptions{AOF: true})
	ctx := testCtx(t, time.Minute)
	pr := openProbe(t, ctx, rs.URL)
	must(t, rs.Kill())
	pr.check(t, ctx)
	must(t, rs.Start())
	if _, err := pr.store.Get(ctx, probeOwner, pr.id); err != nil {
		t.Errorf("Get once redis-server is back: %v", err)
	}
}
