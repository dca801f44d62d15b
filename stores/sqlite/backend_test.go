package sqlite_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/stores/internal/storetest"
	"github.com/mcptasks/mcptasks/stores/sqlite"
	"github.com/mcptasks/mcptasks/tasks"
)

func open(tb testing.TB, cfg tasks.Config) tasks.Store {
	return openAt(tb, filepath.Join(tb.TempDir(), "tasks.db"), cfg)
}

func openAt(tb testing.TB, path string, cfg tasks.Config) *sqlite.Store {
	tb.Helper()
	st, err := sqlite.Open(context.Background(), path, cfg)
	if err != nil {
		tb.Fatalf("open %s: %v", path, err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}

func TestRaceTerminal(t *testing.T) {
	storetest.RaceTerminal(t, open, 500, 16)
}

func TestRandomOpsAgainstMemory(t *testing.T) {
	storetest.RandomOps(t, open, 10_000, 1)
}

func TestReopenKeepsCompletedResults(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "tasks.db")
	cfg := tasks.Config{MaxTasksPerOwner: -1, DefaultTTL: tasks.Unlimited}
	st, err := sqlite.Open(ctx, path, cfg)
	if err != nil {
		t.Fatal(err)
	}
	const n = 200
	want := map[string]string{}
	for i := range n {
		r, err := st.Create(ctx, "o", tasks.CreateParams{Method: "tools/call"})
		if err != nil {
			t.Fatal(err)
		}
		res := fmt.Sprintf(`{"content": [{"type":"text","text":"%d"}]}`, i)
		if _, err := st.Complete(ctx, "o", r.ID, tasks.StatusCompleted, "ok", tasks.Outcome{Result: json.RawMessage(res)}); err != nil {
			t.Fatal(err)
		}
		want[r.ID] = res
	}
	if err := st.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	st2 := openAt(t, path, cfg) // migrations run again on an existing file
	for id, res := range want {
		r, err := st2.Result(ctx, "o", id)
		if err != nil {
			t.Fatalf("result of %s after reopen: %v", id, err)
		}
		if string(r.Outcome.Result) != res || r.Status != tasks.StatusCompleted {
			t.Fatalf("task %s after reopen: status %s result %s, want completed %s", id, r.Status, r.Outcome.Result, res)
		}
	}
}

// Two Stores on one file stand for two processes: a Wait on one must see
// a change made through the other, by polling.
func TestWaitSeesOtherProcessByPolling(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "tasks.db")
	cfg := tasks.Config{PollInterval: 20 * time.Millisecond}
	a, b := openAt(t, path, cfg), openAt(t, path, cfg)
	r, err := a.Create(ctx, "o", tasks.CreateParams{})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan tasks.Record, 1)
	errc := make(chan error, 1)
	go func() {
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		got, err := b.Wait(wctx, "o", r.ID, r.Version)
		if err != nil {
			errc <- err
			return
		}
		done <- got
	}()
	time.Sleep(50 * time.Millisecond)
	if _, err := a.Cancel(ctx, "o", r.ID, "stop"); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-done:
		if got.Status != tasks.StatusCancelled {
			t.Fatalf("woke with status %s, want cancelled", got.Status)
		}
	case err := <-errc:
		t.Fatalf("wait: %v", err)
	}
}

func TestOpenRejectsBadPath(t *testing.T) {
	for _, p := range []string{"", "a?b", filepath.Join(t.TempDir(), "missing-dir", "x.db")} {
		if st, err := sqlite.Open(context.Background(), p, tasks.Config{}); err == nil {
			st.Close()
			t.Errorf("Open(%q) succeeded", p)
		}
	}
}
