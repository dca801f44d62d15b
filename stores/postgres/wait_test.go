package postgres_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/internal/testenv"
	"github.com/mcptasks/mcptasks/stores/postgres"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
)

type waitResult struct {
	rec tasks.Record
	err error
	at  time.Time
}

func waitAsync(ctx context.Context, s tasks.Store, owner tasks.Owner, id string, after int64) <-chan waitResult {
	ch := make(chan waitResult, 1)
	go func() {
		r, err := s.Wait(ctx, owner, id, after)
		ch <- waitResult{r, err, time.Now()}
	}()
	return ch
}

func receive(t *testing.T, ch <-chan waitResult, what string) waitResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: Wait did not return within 30 s", what)
	}
	return waitResult{}
}

// TestWaitWakesByNotification: with polling effectively off (a 1 min
// interval), a Wait on store B returns when store A, another pool on the
// same database, moves the task to input_required and then completes it.
// The latency is logged, not asserted.
func TestWaitWakesByNotification(t *testing.T) {
	dsn := testenv.Postgres(t)
	cfg := tasks.Config{PollInterval: time.Minute}
	a, b := open(t, dsn, cfg), open(t, dsn, cfg)
	ctx := testCtx(t)
	r := mustCreate(t, a, "w")
	// Let B's listener connect first, so the measurement is of a wake-up,
	// not of connecting.
	warm, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	_, _ = b.Wait(warm, "w", r.ID, r.Version)
	cancel()

	ch := waitAsync(ctx, b, "w", r.ID, r.Version)
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	r2, err := a.Transition(ctx, "w", r.ID, tasks.StatusInputRequired, "question")
	if err != nil {
		t.Fatal(err)
	}
	got := receive(t, ch, "input_required")
	if got.err != nil || got.rec.Status != tasks.StatusInputRequired || got.rec.Version != r2.Version {
		t.Fatalf("Wait after input_required: %+v, %v", got.rec, got.err)
	}
	t.Logf("wake-up after input_required on another pool: %v", got.at.Sub(start))

	ch = waitAsync(ctx, b, "w", r.ID, r2.Version)
	time.Sleep(50 * time.Millisecond)
	start = time.Now()
	if _, err := a.Complete(ctx, "w", r.ID, tasks.StatusCompleted, "done", tasks.Outcome{Result: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	got = receive(t, ch, "completed")
	if got.err != nil || got.rec.Status != tasks.StatusCompleted {
		t.Fatalf("Wait after completion: %+v, %v", got.rec, got.err)
	}
	t.Logf("wake-up after completion on another pool: %v", got.at.Sub(start))

	// Already changed: returns at once.
	got = receive(t, waitAsync(ctx, b, "w", r.ID, 1), "already changed")
	if got.err != nil || got.rec.Status != tasks.StatusCompleted {
		t.Fatalf("Wait on an already changed task: %+v, %v", got.rec, got.err)
	}
}

// TestWaitPollsChangesWithoutNotification: SetVariables sends no
// notification; the poll at PollInterval still delivers it.
func TestWaitPollsChangesWithoutNotification(t *testing.T) {
	cfg, _ := fakeCfg()
	s, _ := fresh(t, cfg)
	ctx := testCtx(t)
	r := mustCreate(t, s, "w")
	ch := waitAsync(ctx, s, "w", r.ID, r.Version)
	time.Sleep(50 * time.Millisecond)
	if _, err := s.SetVariables(ctx, "w", r.ID, map[string]json.RawMessage{"k": json.RawMessage(`1`)}); err != nil {
		t.Fatal(err)
	}
	if got := receive(t, ch, "variables"); got.err != nil || string(got.rec.Variables["k"]) != "1" {
		t.Fatalf("Wait after SetVariables: %+v, %v", got.rec, got.err)
	}
}

// TestWaitEnds: a deleted task ends the wait with ErrNotFound (woken by
// DeleteExpired's broadcast, polling being off), a cancelled context with
// its error, Close with ErrClosed.
func TestWaitEnds(t *testing.T) {
	dsn := testenv.Postgres(t)
	clk := tasks.NewFakeClock(epoch)
	cfg := tasks.Config{Clock: clk, PollInterval: time.Minute}
	s := open(t, dsn, cfg)
	ctx := testCtx(t)
	ttl := 10 * time.Second
	r, err := s.Create(ctx, "w", tasks.CreateParams{TTL: &ttl})
	if err != nil {
		t.Fatal(err)
	}
	ch := waitAsync(ctx, s, "w", r.ID, r.Version)
	time.Sleep(100 * time.Millisecond)
	clk.Advance(ttl)
	if n, err := s.DeleteExpired(ctx); err != nil || n != 1 {
		t.Fatalf("DeleteExpired = %d, %v; want 1", n, err)
	}
	if got := receive(t, ch, "deleted"); !errors.Is(got.err, tasks.ErrNotFound) {
		t.Fatalf("Wait on a deleted task: %v, want ErrNotFound", got.err)
	}

	r = mustCreate(t, s, "w")
	cctx, cancel := context.WithCancel(ctx)
	ch = waitAsync(cctx, s, "w", r.ID, r.Version)
	time.Sleep(50 * time.Millisecond)
	cancel()
	if got := receive(t, ch, "cancelled"); !errors.Is(got.err, context.Canceled) {
		t.Fatalf("Wait with a cancelled context: %v", got.err)
	}

	ch = waitAsync(ctx, s, "w", r.ID, r.Version)
	time.Sleep(50 * time.Millisecond)
	_ = s.Close()
	if got := receive(t, ch, "closed"); !errors.Is(got.err, postgres.ErrClosed) {
		t.Fatalf("Wait across Close: %v, want ErrClosed", got.err)
	}
}

// TestLeases: a lapsed lease is reaped with one UPDATE into failed with
// the lost-worker outcome; renewed and unleased tasks are left alone.
func TestLeases(t *testing.T) {
	cfg, clk := fakeCfg()
	cfg.PollInterval = time.Minute
	s, _ := fresh(t, cfg)
	ctx := testCtx(t)
	leased, unleased, done := mustCreate(t, s, "l"), mustCreate(t, s, "l"), mustCreate(t, s, "l")
	if _, err := s.Complete(ctx, "l", done.ID, tasks.StatusCompleted, "ok", tasks.Outcome{Result: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	now := cfg.Now()
	if err := s.RenewLease(ctx, "l", leased.ID, now.Add(2*time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := s.RenewLease(ctx, "l", done.ID, now.Add(2*time.Second)); err != nil {
		t.Errorf("RenewLease on a terminal task: %v, want a no-op success", err)
	}
	if err := s.RenewLease(ctx, "other", leased.ID, now.Add(time.Hour)); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("RenewLease by another owner: %v, want ErrNotFound", err)
	}
	reap := func(want int) {
		t.Helper()
		if n, err := s.ReapExpiredLeases(ctx); err != nil || n != want {
			t.Fatalf("ReapExpiredLeases = %d, %v; want %d", n, err, want)
		}
	}
	reap(0)
	clk.Advance(1500 * time.Millisecond)
	reap(0)
	if err := s.RenewLease(ctx, "l", leased.ID, cfg.Now().Add(2*time.Second)); err != nil {
		t.Fatal(err)
	}
	clk.Advance(1500 * time.Millisecond)
	reap(0) // renewed: still alive
	ch := waitAsync(ctx, s, "l", leased.ID, leased.Version)
	time.Sleep(100 * time.Millisecond)
	clk.Advance(time.Second)
	reap(1)
	got := receive(t, ch, "reaped")
	if got.err != nil || got.rec.Status != tasks.StatusFailed || got.rec.StatusMessage == "" {
		t.Fatalf("waiter after the reap: %+v, %v", got.rec, got.err)
	}
	res, err := s.Result(ctx, "l", leased.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := storekit.LostWorkerOutcome()
	if res.Outcome.Error == nil || !reflect.DeepEqual(*res.Outcome.Error, *want.Error) || res.Outcome.Result != nil {
		t.Errorf("reaped outcome %+v, want %+v", res.Outcome, want)
	}
	if r, err := s.Get(ctx, "l", unleased.ID); err != nil || r.Status != tasks.StatusWorking {
		t.Errorf("task without a lease: %+v, %v; want it left working", r, err)
	}
	reap(0)
	if err := s.RenewLease(ctx, "l", leased.ID, cfg.Now().Add(time.Hour)); err != nil {
		t.Errorf("RenewLease on the reaped task: %v", err)
	}
}
