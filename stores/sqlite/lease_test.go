package sqlite_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/stores/sqlite"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

func TestLeases(t *testing.T) {
	ctx := context.Background()
	clk := tasks.NewFakeClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	st := openAt(t, filepath.Join(t.TempDir(), "tasks.db"), tasks.Config{Clock: clk})
	mk := func() tasks.Record {
		r, err := st.Create(ctx, "o", tasks.CreateParams{Method: "tools/call"})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	lapsed, renewed, never, done := mk(), mk(), mk(), mk()
	for _, r := range []tasks.Record{lapsed, renewed, done} {
		if err := st.RenewLease(ctx, "o", r.ID, clk.Now().Add(time.Second)); err != nil {
			t.Fatalf("renew: %v", err)
		}
	}
	if _, err := st.Complete(ctx, "o", done.ID, tasks.StatusCompleted, "", tasks.Outcome{Result: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if err := st.RenewLease(ctx, "o", done.ID, clk.Now().Add(time.Hour)); err != nil {
		t.Errorf("renewing a terminal task's lease: %v, want a no-op success", err)
	}
	if err := st.RenewLease(ctx, "o", "no-such-task", clk.Now()); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("renewing an unknown task's lease: %v, want ErrNotFound", err)
	}
	if err := st.RenewLease(ctx, "someone-else", lapsed.ID, clk.Now()); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("renewing another owner's task's lease: %v, want ErrNotFound", err)
	}
	clk.Advance(500 * time.Millisecond)
	if err := st.RenewLease(ctx, "o", renewed.ID, clk.Now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if n, err := st.ReapExpiredLeases(ctx); err != nil || n != 0 {
		t.Fatalf("reap before any lease lapsed: %d, %v", n, err)
	}
	before, _ := st.Get(ctx, "o", renewed.ID)
	clk.Advance(600 * time.Millisecond) // lapsed's lease is over, renewed's is not
	n, err := st.ReapExpiredLeases(ctx)
	if err != nil || n != 1 {
		t.Fatalf("reap: %d, %v; want 1", n, err)
	}
	got, err := st.Result(ctx, "o", lapsed.ID)
	if err != nil {
		t.Fatalf("result of the reaped task: %v", err)
	}
	if got.Status != tasks.StatusFailed || got.Outcome == nil || got.Outcome.Error == nil ||
		got.Outcome.Error.Code != wire.CodeInternalError || got.StatusMessage != storekit.LostWorkerOutcome().Error.Message {
		t.Errorf("reaped task: %+v outcome %+v", got, got.Outcome)
	}
	for _, id := range []string{renewed.ID, never.ID} {
		r, err := st.Get(ctx, "o", id)
		if err != nil || r.Status != tasks.StatusWorking {
			t.Errorf("task %s after reap: %v %v, want working", id, r.Status, err)
		}
	}
	// A renewal is bookkeeping: waiters see no change.
	if after, _ := st.Get(ctx, "o", renewed.ID); after.Version != before.Version {
		t.Errorf("renewal changed the version: %d -> %d", before.Version, after.Version)
	}
}

// TestOpenRecoversDeadProcessTasks: a process dies with tasks running;
// whichever process opens the file after their leases lapsed finds them
// failed with an outcome, and the owner's slots free, while a task whose
// lease is still being renewed (another live process) stays working.
func TestOpenRecoversDeadProcessTasks(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "tasks.db")
	clk := tasks.NewFakeClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	cfg := tasks.Config{Clock: clk, MaxTasksPerOwner: 3}
	dead, err := sqlite.Open(ctx, path, cfg)
	if err != nil {
		t.Fatal(err)
	}
	live := openAt(t, path, cfg)
	var deadIDs []string
	for range 2 {
		r, err := dead.Create(ctx, "o", tasks.CreateParams{Method: "tools/call"})
		if err != nil {
			t.Fatal(err)
		}
		if err := dead.RenewLease(ctx, "o", r.ID, clk.Now().Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		deadIDs = append(deadIDs, r.ID)
	}
	mine, err := live.Create(ctx, "o", tasks.CreateParams{Method: "tools/call"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := live.Create(ctx, "o", tasks.CreateParams{}); !errors.Is(err, tasks.ErrLimit) {
		t.Fatalf("fourth task with a cap of 3: %v, want ErrLimit", err)
	}
	dead.Close() // the process is gone; nothing renews its leases
	clk.Advance(2 * time.Second)
	if err := live.RenewLease(ctx, "o", mine.ID, clk.Now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}

	restarted := openAt(t, path, cfg)
	if n := restarted.Recovered(); n != 2 {
		t.Errorf("Recovered() = %d, want 2", n)
	}
	for _, id := range deadIDs {
		r, err := restarted.Result(ctx, "o", id)
		if err != nil {
			t.Fatalf("result of a dead process's task: %v", err)
		}
		if r.Status != tasks.StatusFailed || r.Outcome.Error == nil {
			t.Errorf("dead process's task: %s %+v", r.Status, r.Outcome)
		}
	}
	if r, err := restarted.Get(ctx, "o", mine.ID); err != nil || r.Status != tasks.StatusWorking {
		t.Errorf("live process's task after another process opened the file: %v %v, want working", r.Status, err)
	}
	for range 2 {
		if _, err := restarted.Create(ctx, "o", tasks.CreateParams{}); err != nil {
			t.Fatalf("slots of recovered tasks not freed: %v", err)
		}
	}
}
