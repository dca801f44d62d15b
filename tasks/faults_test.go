package tasks_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/internal/testenv"
	"github.com/mcptasks/mcptasks/stores/memory"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
)

// errUnreachable is the error every call of a faultyStore gets while it is
// down, as a network store reports a refused connection.
var errUnreachable = errors.New("dial tcp 127.0.0.1:5432: connect: connection refused")

// faultyStore is the real memory store behind a switch that makes every
// call fail while the store is "down" (fault injection, not a mock: the
// data lives in the real store). It adds leases kept in a map, with a
// reaper that ends lapsed tasks exactly as the shared stores do.
type faultyStore struct {
	*memory.Store
	cfg    tasks.Config
	down   atomic.Bool
	failed atomic.Int64
	// loseComplete makes the next Complete apply but report a failure, as
	// when a connection drops after the commit.
	loseComplete atomic.Bool
	reaps        atomic.Int64 // ReapExpiredLeases calls that ran

	mu     sync.Mutex
	leases map[string]lease
}

type lease struct {
	owner tasks.Owner
	until time.Time
}

func newFaulty(cfg tasks.Config) *faultyStore {
	cfg = cfg.WithDefaults()
	return &faultyStore{Store: memory.New(cfg), cfg: cfg, leases: map[string]lease{}}
}

func (f *faultyStore) check(op string) error {
	if f.down.Load() {
		f.failed.Add(1)
		return &tasks.Error{Op: op, Err: fmt.Errorf("store is unreachable: %w", errUnreachable)}
	}
	return nil
}

func (f *faultyStore) Create(ctx context.Context, o tasks.Owner, p tasks.CreateParams) (tasks.Record, error) {
	if err := f.check("create"); err != nil {
		return tasks.Record{}, err
	}
	return f.Store.Create(ctx, o, p)
}

func (f *faultyStore) Get(ctx context.Context, o tasks.Owner, id string) (tasks.Record, error) {
	if err := f.check("get"); err != nil {
		return tasks.Record{}, err
	}
	return f.Store.Get(ctx, o, id)
}

func (f *faultyStore) Transition(ctx context.Context, o tasks.Owner, id string, to tasks.Status, msg string) (tasks.Record, error) {
	if err := f.check("transition"); err != nil {
		return tasks.Record{}, err
	}
	return f.Store.Transition(ctx, o, id, to, msg)
}

func (f *faultyStore) SetVariables(ctx context.Context, o tasks.Owner, id string, p map[string]json.RawMessage) (tasks.Record, error) {
	if err := f.check("set variables"); err != nil {
		return tasks.Record{}, err
	}
	return f.Store.SetVariables(ctx, o, id, p)
}

func (f *faultyStore) Complete(ctx context.Context, o tasks.Owner, id string, st tasks.Status, msg string, out tasks.Outcome) (tasks.Record, error) {
	if err := f.check("complete"); err != nil {
		return tasks.Record{}, err
	}
	rec, err := f.Store.Complete(ctx, o, id, st, msg, out)
	if err == nil && f.loseComplete.CompareAndSwap(true, false) {
		return tasks.Record{}, &tasks.Error{Op: "complete", TaskID: id, Err: errors.New("connection reset by peer")}
	}
	return rec, err
}

func (f *faultyStore) Result(ctx context.Context, o tasks.Owner, id string) (tasks.Record, error) {
	if err := f.check("result"); err != nil {
		return tasks.Record{}, err
	}
	return f.Store.Result(ctx, o, id)
}

func (f *faultyStore) Wait(ctx context.Context, o tasks.Owner, id string, after int64) (tasks.Record, error) {
	if err := f.check("wait"); err != nil {
		return tasks.Record{}, err
	}
	return f.Store.Wait(ctx, o, id, after)
}

func (f *faultyStore) DeleteExpired(ctx context.Context) (int, error) {
	if err := f.check("delete expired"); err != nil {
		return 0, err
	}
	return f.Store.DeleteExpired(ctx)
}

func (f *faultyStore) RenewLease(ctx context.Context, o tasks.Owner, id string, until time.Time) error {
	if err := f.check("renew lease"); err != nil {
		return err
	}
	if _, err := f.Store.Get(ctx, o, id); err != nil {
		return err
	}
	f.mu.Lock()
	f.leases[id] = lease{owner: o, until: until}
	f.mu.Unlock()
	return nil
}

func (f *faultyStore) ReapExpiredLeases(ctx context.Context) (int, error) {
	if err := f.check("reap"); err != nil {
		return 0, err
	}
	f.reaps.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for id, l := range f.leases {
		if f.cfg.Now().Before(l.until) {
			continue
		}
		delete(f.leases, id)
		lost := storekit.LostWorkerOutcome()
		if _, err := f.Store.Complete(ctx, l.owner, id, tasks.StatusFailed, lost.Error.Message, lost); err == nil {
			n++
		}
	}
	return n, nil
}

// Fast settings: a 150 ms lease checked by a reaper every 50 ms.
const testLease = 150 * time.Millisecond

func faultyEngine(t *testing.T, st *faultyStore, opts ...tasks.EngineOption) *tasks.Engine {
	t.Helper()
	base := []tasks.EngineOption{quiet, tasks.WithLeaseDuration(testLease), tasks.WithReapInterval(50 * time.Millisecond),
		tasks.WithRetryBackoff(5*time.Millisecond, 40*time.Millisecond), tasks.WithAttemptTimeout(time.Second)}
	e := tasks.NewEngine(st, st.cfg, append(base, opts...)...)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		st.down.Store(false)
		_ = e.Close(ctx)
		_ = st.Close()
	})
	return e
}

// outage keeps st down until it has refused at least minFailures calls
// and at least d has passed, then brings it back.
func outage(t *testing.T, st *faultyStore, d time.Duration, minFailures int64) {
	t.Helper()
	start, f0 := time.Now(), st.failed.Load()
	st.down.Store(true)
	for deadline := start.Add(30 * time.Second); time.Since(start) < d || st.failed.Load()-f0 < minFailures; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("only %d calls refused during a 30 s outage", st.failed.Load()-f0)
		}
	}
	st.down.Store(false)
}

func toolResult(i int) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"content":[{"type":"text","text":"done %d"}]}`, i))
}

// TestOutcomeSurvivesOutage: work finishes while the store is down for
// several leases; every outcome is recorded once it is back, none is
// reaped as lost.
func TestOutcomeSurvivesOutage(t *testing.T) {
	st := newFaulty(tasks.Config{PollInterval: 20 * time.Millisecond})
	e := faultyEngine(t, st)
	ctx := ctxT(t)
	release := make(chan struct{})
	const n = 5
	ids := make([]string, n)
	for i := range n {
		rec, err := e.Start(ctx, owner, tasks.CreateParams{Method: "tools/call"}, func(tc tasks.TaskContext) (json.RawMessage, error) {
			<-release
			return toolResult(i), nil
		})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = rec.ID
	}
	st.down.Store(true)
	close(release)
	outage(t, st, 4*testLease, 20)
	for i, id := range ids {
		rec, err := e.Result(ctx, owner, id)
		if err != nil {
			t.Fatalf("task %d: %v", i, err)
		}
		if rec.Status != tasks.StatusCompleted || string(rec.Outcome.Result) != string(toolResult(i)) {
			t.Errorf("task %d after the outage: %s %q outcome %+v, want completed with the work's result", i, rec.Status, rec.StatusMessage, rec.Outcome)
		}
	}
}

// TestLeaseOutlivesOutage: work still running through an outage longer
// than its lease is not reaped afterwards, and its result is kept.
func TestLeaseOutlivesOutage(t *testing.T) {
	st := newFaulty(tasks.Config{PollInterval: 20 * time.Millisecond})
	e := faultyEngine(t, st)
	ctx := ctxT(t)
	release := make(chan struct{})
	rec, err := e.Start(ctx, owner, tasks.CreateParams{Method: "tools/call"}, func(tc tasks.TaskContext) (json.RawMessage, error) {
		select {
		case <-release:
		case <-tc.Done():
			return nil, tc.Err()
		}
		return toolResult(1), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	outage(t, st, 4*testLease, 20)
	// Let the reaper run several times with the store healthy again.
	for r0, deadline := st.reaps.Load(), time.Now().Add(10*time.Second); st.reaps.Load() < r0+3; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the reaper did not run after the outage")
		}
	}
	got, err := e.Get(ctx, owner, rec.ID)
	if err != nil || got.Status != tasks.StatusWorking {
		t.Fatalf("running task after the outage: %s %q %v, want still working", got.Status, got.StatusMessage, err)
	}
	close(release)
	got, err = e.Result(ctx, owner, rec.ID)
	if err != nil || got.Status != tasks.StatusCompleted {
		t.Fatalf("result: %s %v", got.Status, err)
	}
}

// TestReaperStillEndsLostWork: the health rule delays the reaper, it does
// not disable it: a lease nobody renews is reaped.
func TestReaperStillEndsLostWork(t *testing.T) {
	st := newFaulty(tasks.Config{PollInterval: 20 * time.Millisecond})
	e := faultyEngine(t, st)
	ctx := ctxT(t)
	// A task created by an instance that died after taking its lease.
	rec, err := st.Create(ctx, owner, tasks.CreateParams{Method: "tools/call"})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.RenewLease(ctx, owner, rec.ID, st.cfg.Now().Add(testLease)); err != nil {
		t.Fatal(err)
	}
	got, err := e.Result(ctx, owner, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != tasks.StatusFailed || got.StatusMessage != storekit.LostWorkerOutcome().Error.Message {
		t.Errorf("lost task: %s %q", got.Status, got.StatusMessage)
	}
}

// TestLostCompleteResponse: the outcome write is applied but its answer is
// lost; the retry finds the task terminal and stops, and the stored
// outcome is the work's.
func TestLostCompleteResponse(t *testing.T) {
	st := newFaulty(tasks.Config{PollInterval: 20 * time.Millisecond})
	e := faultyEngine(t, st)
	ctx := ctxT(t)
	st.loseComplete.Store(true)
	rec, err := e.Start(ctx, owner, tasks.CreateParams{Method: "tools/call"}, func(tasks.TaskContext) (json.RawMessage, error) {
		return toolResult(7), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.Result(ctx, owner, rec.ID)
	if err != nil || got.Status != tasks.StatusCompleted || string(got.Outcome.Result) != string(toolResult(7)) {
		t.Fatalf("result: %s %+v %v", got.Status, got.Outcome, err)
	}
	for deadline := time.Now().Add(5 * time.Second); st.loseComplete.Load(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the injected fault never fired")
		}
	}
}

// TestVariablesAndInputSurviveOutage: a variable write and both status
// changes around a request for input are retried through outages.
func TestVariablesAndInputSurviveOutage(t *testing.T) {
	st := newFaulty(tasks.Config{PollInterval: 20 * time.Millisecond})
	e := faultyEngine(t, st)
	ctx := ctxT(t)
	outageDone := make(chan struct{})
	input := tasks.WithInput(func(ctx context.Context, rec tasks.Record, req tasks.InputRequest) (json.RawMessage, error) {
		// The store goes down while the requestor answers.
		go func() { outage(t, st, 2*testLease, 10); close(outageDone) }()
		for st.failed.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		return json.RawMessage(`{"ok":true}`), nil
	})
	rec, err := e.Start(ctx, owner, tasks.CreateParams{Method: "tools/call"}, func(tc tasks.TaskContext) (json.RawMessage, error) {
		st.down.Store(true) // down while the work saves a variable
		go func() {
			for st.failed.Load() < 10 {
				time.Sleep(time.Millisecond)
			}
			st.down.Store(false)
		}()
		if err := tc.SetVariables(map[string]json.RawMessage{"step": json.RawMessage(`"saved"`)}); err != nil {
			return nil, err
		}
		answer, err := tc.RequireInput(tc, tasks.InputRequest{Method: "elicitation/create"})
		if err != nil {
			return nil, err
		}
		return json.RawMessage(`{"content":[],"structuredContent":` + string(answer) + `}`), nil
	}, input)
	if err != nil {
		t.Fatal(err)
	}
	<-outageDone
	got, err := e.Result(ctx, owner, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != tasks.StatusCompleted || !strings.Contains(string(got.Outcome.Result), `"ok":true`) {
		t.Errorf("result: %s %q %+v", got.Status, got.StatusMessage, got.Outcome)
	}
	if string(got.Variables["step"]) != `"saved"` {
		t.Errorf("variables after the outage: %v", got.Variables)
	}
}

// TestCloseOnDeadStoreIsBounded: Close returns when its context ends even
// though outcomes cannot be written, and logs which ones were lost.
func TestCloseOnDeadStoreIsBounded(t *testing.T) {
	st := newFaulty(tasks.Config{PollInterval: 20 * time.Millisecond})
	var buf testenv.SyncBuffer
	e := faultyEngine(t, st, tasks.WithLogger(slog.New(slog.NewTextHandler(&buf, nil))))
	ctx := ctxT(t)
	release := make(chan struct{})
	rec, err := e.Start(ctx, owner, tasks.CreateParams{Method: "tools/call"}, func(tasks.TaskContext) (json.RawMessage, error) {
		<-release
		return toolResult(1), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	st.down.Store(true)
	close(release)
	for st.failed.Load() < 3 {
		time.Sleep(time.Millisecond)
	}
	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := e.Close(cctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Close on a dead store: %v, want the context's deadline", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %s with a 200 ms context", d)
	}
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(buf.String(), "NOT recorded"); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no log line names the unrecorded outcome:\n%s", buf.String())
		}
	}
	if line := buf.String(); !strings.Contains(line, rec.ID) {
		t.Errorf("the log does not name task %s:\n%s", rec.ID, line)
	}
}

func TestTransient(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"refused connection", &tasks.Error{Op: "complete", Err: errUnreachable}, true},
		{"attempt timeout", context.DeadlineExceeded, true},
		{"not found", &tasks.Error{Op: "get", Err: tasks.ErrNotFound}, false},
		{"expired", &tasks.Error{Op: "get", Err: tasks.ErrExpired}, false},
		{"terminal", &tasks.Error{Op: "complete", Err: tasks.ErrInvalidTransition}, false},
		{"limit", tasks.ErrLimit, false},
		{"variables too large", tasks.ErrVariablesTooLarge, false},
		{"bad params", fmt.Errorf("x: %w", tasks.ErrInvalidParams), false},
		{"engine closed", tasks.ErrEngineClosed, false},
		{"rpc error", &tasks.RPCError{Code: -32000, Message: "tool"}, false},
	} {
		if got := tasks.Transient(tc.err); got != tc.want {
			t.Errorf("%s: Transient(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}

// TestResultWaitsThroughOutage: a requestor blocked on Result when the
// store goes away gets the result once it is back, not an error.
func TestResultWaitsThroughOutage(t *testing.T) {
	st := newFaulty(tasks.Config{PollInterval: 20 * time.Millisecond})
	e := faultyEngine(t, st)
	ctx := ctxT(t)
	release := make(chan struct{})
	rec, err := e.Start(ctx, owner, tasks.CreateParams{Method: "tools/call"}, func(tasks.TaskContext) (json.RawMessage, error) {
		<-release
		return toolResult(3), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	type res struct {
		rec tasks.Record
		err error
	}
	got := make(chan res, 1)
	st.down.Store(true) // the requestor asks while the store is away
	go func() {
		r, err := e.Result(ctx, owner, rec.ID)
		got <- res{r, err}
	}()
	close(release)
	outage(t, st, 2*testLease, 10)
	r := <-got
	if r.err != nil || r.rec.Status != tasks.StatusCompleted || string(r.rec.Outcome.Result) != string(toolResult(3)) {
		t.Fatalf("Result across an outage: %s %+v %v", r.rec.Status, r.rec.Outcome, r.err)
	}
}

// TestClosedStoreIsFinal: a closed store's error is not worth retrying.
func TestClosedStoreIsFinal(t *testing.T) {
	st := memory.New(tasks.Config{})
	st.Close()
	_, err := st.Get(context.Background(), owner, "x")
	if !errors.Is(err, tasks.ErrStoreClosed) || tasks.Transient(err) {
		t.Errorf("closed store: %v (transient %v), want final ErrStoreClosed", err, tasks.Transient(err))
	}
}
