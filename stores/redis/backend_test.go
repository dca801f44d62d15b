package redis_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/internal/testenv"
	"github.com/mcptasks/mcptasks/stores/internal/storetest"
	"github.com/mcptasks/mcptasks/stores/redis"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/protocol"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

func open(tb testing.TB, cfg tasks.Config) tasks.Store {
	tb.Helper()
	url, prefix := testenv.Redis(tb)
	return openAt(tb, url, prefix, cfg)
}

func openAt(tb testing.TB, url, prefix string, cfg tasks.Config) *redis.Store {
	tb.Helper()
	st, err := redis.Open(context.Background(), url, cfg, redis.WithPrefix(prefix))
	if err != nil {
		tb.Fatalf("open %s: %v", url, err)
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

// completeMany creates n tasks and completes each with a distinct result.
func completeMany(t *testing.T, st tasks.Store, owner tasks.Owner, n int) map[string]string {
	t.Helper()
	ctx := context.Background()
	want := map[string]string{}
	for i := range n {
		r, err := st.Create(ctx, owner, tasks.CreateParams{Method: "tools/call"})
		if err != nil {
			t.Fatal(err)
		}
		res := fmt.Sprintf(`{"content": [{"type":"text","text":"%d"}]}`, i)
		if _, err := st.Complete(ctx, owner, r.ID, tasks.StatusCompleted, "ok", tasks.Outcome{Result: json.RawMessage(res)}); err != nil {
			t.Fatal(err)
		}
		want[r.ID] = res
	}
	return want
}

func checkResults(t *testing.T, st tasks.Store, owner tasks.Owner, want map[string]string) {
	t.Helper()
	for id, res := range want {
		r, err := st.Result(context.Background(), owner, id)
		if err != nil {
			t.Fatalf("result of %s: %v", id, err)
		}
		if string(r.Outcome.Result) != res || r.Status != tasks.StatusCompleted {
			t.Fatalf("task %s: status %s result %s, want completed %s", id, r.Status, r.Outcome.Result, res)
		}
	}
}

// With appendfsync always, every acknowledged write is on disk: a SIGKILL
// of the server loses no completed result.
func TestAOFCrashKeepsCompletedResults(t *testing.T) {
	srv := testenv.StartRedis(t, testenv.RedisOptions{AOF: true})
	cfg := tasks.Config{MaxTasksPerOwner: -1, DefaultTTL: tasks.Unlimited}
	st := openAt(t, srv.URL, "crash:", cfg)
	want := completeMany(t, st, "o", 300)
	if err := srv.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	st2 := openAt(t, srv.URL, "crash:", cfg)
	checkResults(t, st2, "o", want)
	p, err := st2.List(context.Background(), "o", tasks.ListOptions{Limit: 1000})
	if err != nil || len(p.Tasks) != len(want) {
		t.Fatalf("list after crash: %d tasks, err %v; want %d", len(p.Tasks), err, len(want))
	}
}

// When the server goes away, calls fail with errors that map to -32603;
// once it is back, the same Store works again and lost nothing.
func TestServerDownThenBack(t *testing.T) {
	ctx := context.Background()
	srv := testenv.StartRedis(t, testenv.RedisOptions{AOF: true})
	cfg := tasks.Config{MaxTasksPerOwner: -1}
	st := openAt(t, srv.URL, "fault:", cfg)
	want := completeMany(t, st, "o", 20)
	live, err := st.Create(ctx, "o", tasks.CreateParams{})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Kill(); err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	calls := map[string]func() error{
		"create":     func() error { _, err := st.Create(sctx, "o", tasks.CreateParams{}); return err },
		"get":        func() error { _, err := st.Get(sctx, "o", live.ID); return err },
		"transition": func() error { _, err := st.Transition(sctx, "o", live.ID, tasks.StatusInputRequired, ""); return err },
		"list":       func() error { _, err := st.List(sctx, "o", tasks.ListOptions{}); return err },
		"cancel":     func() error { _, err := st.Cancel(sctx, "o", live.ID, ""); return err },
		"wait":       func() error { _, err := st.Wait(sctx, "o", live.ID, live.Version); return err },
		"delete":     func() error { _, err := st.DeleteExpired(sctx); return err },
	}
	for name, call := range calls {
		err := call()
		if err == nil {
			t.Fatalf("%s succeeded with the server down", name)
		}
		if code := protocol.RPCCode(err); code != wire.CodeInternalError {
			t.Fatalf("%s: error %v maps to %d, want %d", name, err, code, wire.CodeInternalError)
		}
		if errors.Is(err, tasks.ErrNotFound) {
			t.Fatalf("%s: engine failure reported as not found: %v", name, err)
		}
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	// The client's pool re-dials in the background about once a second
	// after dial failures; the store must recover without being reopened.
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, err := st.Get(ctx, "o", live.ID)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("store did not recover within 20 s of the restart: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	checkResults(t, st, "o", want)
	r, err := st.Cancel(ctx, "o", live.ID, "after restart")
	if err != nil || r.Status != tasks.StatusCancelled || r.Version != live.Version+1 {
		t.Fatalf("cancel after restart: %+v, %v (the task must not have changed while the server was down)", r, err)
	}
}

// Wait must be woken by the PUBLISH of a change made through another
// Store (another server instance), not by polling: the poll interval here
// is far longer than the test's timeout.
func TestWaitWokenByPublishFromAnotherInstance(t *testing.T) {
	ctx := context.Background()
	url, prefix := testenv.Redis(t)
	cfg := tasks.Config{PollInterval: time.Hour}
	a, b := openAt(t, url, prefix, cfg), openAt(t, url, prefix, cfg)
	r, err := a.Create(ctx, "o", tasks.CreateParams{})
	if err != nil {
		t.Fatal(err)
	}
	type res struct {
		rec tasks.Record
		err error
	}
	done := make(chan res, 1)
	go func() {
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		rec, err := b.Wait(wctx, "o", r.ID, r.Version)
		done <- res{rec, err}
	}()
	time.Sleep(100 * time.Millisecond)
	if _, err := a.Complete(ctx, "o", r.ID, tasks.StatusCompleted, "", tasks.Outcome{Result: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	got := <-done
	if got.err != nil || got.rec.Status != tasks.StatusCompleted {
		t.Fatalf("wait: %+v %v", got.rec, got.err)
	}
}

func TestLeases(t *testing.T) {
	ctx := context.Background()
	clock := tasks.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	st := open(t, tasks.Config{Clock: clock}).(*redis.Store)
	leased, _ := st.Create(ctx, "o", tasks.CreateParams{})
	renewed, _ := st.Create(ctx, "o", tasks.CreateParams{})
	unleased, _ := st.Create(ctx, "o", tasks.CreateParams{})
	done, _ := st.Create(ctx, "o", tasks.CreateParams{})
	now := clock.Now()
	for _, id := range []string{leased.ID, renewed.ID, done.ID} {
		if err := st.RenewLease(ctx, "o", id, now.Add(15*time.Second)); err != nil {
			t.Fatalf("renew %s: %v", id, err)
		}
	}
	if err := st.RenewLease(ctx, "someone-else", leased.ID, now.Add(time.Minute)); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("renew of another owner's task: %v, want ErrNotFound", err)
	}
	if err := st.RenewLease(ctx, "o", "no-such-task", now.Add(time.Minute)); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("renew of a missing task: %v, want ErrNotFound", err)
	}
	if _, err := st.Complete(ctx, "o", done.ID, tasks.StatusCompleted, "", tasks.Outcome{Result: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if err := st.RenewLease(ctx, "o", done.ID, now.Add(time.Minute)); err != nil {
		t.Fatalf("renew of a terminal task must be a no-op success: %v", err)
	}
	clock.Advance(10 * time.Second)
	if err := st.RenewLease(ctx, "o", renewed.ID, clock.Now().Add(15*time.Second)); err != nil {
		t.Fatal(err)
	}
	if n, err := st.ReapExpiredLeases(ctx); err != nil || n != 0 {
		t.Fatalf("reap before any lease lapsed: %d, %v", n, err)
	}
	clock.Advance(5 * time.Second) // leased's deadline is now
	n, err := st.ReapExpiredLeases(ctx)
	if err != nil || n != 1 {
		t.Fatalf("reap: ended %d, %v; want 1", n, err)
	}
	r, err := st.Result(ctx, "o", leased.ID)
	if err != nil || r.Status != tasks.StatusFailed || r.StatusMessage == "" || r.Outcome.Error == nil ||
		r.Outcome.Error.Code != wire.CodeInternalError {
		t.Fatalf("reaped task: %+v %+v, %v", r, r.Outcome, err)
	}
	for _, id := range []string{renewed.ID, unleased.ID} {
		if g, err := st.Get(ctx, "o", id); err != nil || g.Status != tasks.StatusWorking {
			t.Fatalf("task %s: %v, %v; want still working", id, g.Status, err)
		}
	}
	if g, _ := st.Get(ctx, "o", done.ID); g.Status != tasks.StatusCompleted {
		t.Fatalf("terminal task changed by the reaper: %s", g.Status)
	}
	// The reaped task no longer counts against the owner's limit, and a
	// second reap finds nothing.
	if n, err := st.ReapExpiredLeases(ctx); err != nil || n != 0 {
		t.Fatalf("second reap: %d, %v", n, err)
	}
}

func TestOpenPrefixFromURL(t *testing.T) {
	url, prefix := testenv.Redis(t)
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	st, err := redis.Open(context.Background(), url+sep+"prefix="+prefix+"x:", tasks.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if st.Prefix() != prefix+"x:" {
		t.Fatalf("prefix %q, want %q", st.Prefix(), prefix+"x:")
	}
	if _, err := redis.Open(context.Background(), "redis://127.0.0.1:1/0", tasks.Config{}); err == nil {
		t.Fatal("Open of a closed port succeeded")
	}
}

// Many Waits share one pub/sub connection; each must be woken by its own
// task's change, through PUBLISH alone (the poll interval is an hour).
func TestManyWaitsShareOneSubscription(t *testing.T) {
	ctx := context.Background()
	url, prefix := testenv.Redis(t)
	cfg := tasks.Config{PollInterval: time.Hour, MaxTasksPerOwner: -1}
	a, b := openAt(t, url, prefix, cfg), openAt(t, url, prefix, cfg)
	const n, per = 40, 3
	ids := make([]tasks.Record, n)
	for i := range ids {
		r, err := a.Create(ctx, "o", tasks.CreateParams{})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = r
	}
	wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	type res struct {
		i   int
		rec tasks.Record
		err error
	}
	results := make(chan res, n*per)
	for i, r := range ids {
		for range per {
			go func() {
				rec, err := b.Wait(wctx, "o", r.ID, r.Version)
				results <- res{i, rec, err}
			}()
		}
	}
	time.Sleep(300 * time.Millisecond) // let the subscriptions be confirmed; a late one is covered by Wait's own read
	for i, r := range ids {
		msg := fmt.Sprint(i)
		if _, err := a.Transition(ctx, "o", r.ID, tasks.StatusInputRequired, msg); err != nil {
			t.Fatal(err)
		}
	}
	for range n * per {
		got := <-results
		if got.err != nil {
			t.Fatalf("wait on task %d: %v", got.i, got.err)
		}
		if got.rec.ID != ids[got.i].ID || got.rec.StatusMessage != fmt.Sprint(got.i) {
			t.Fatalf("wait on task %d woke with %+v", got.i, got.rec)
		}
	}
	// Every watcher is gone, so a new Wait subscribes again and still works.
	r := ids[0]
	cur, _ := a.Get(ctx, "o", r.ID)
	done := make(chan error, 1)
	go func() {
		_, err := b.Wait(wctx, "o", r.ID, cur.Version)
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	if _, err := a.Transition(ctx, "o", r.ID, tasks.StatusWorking, "again"); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("wait after resubscribing: %v", err)
	}
}

// Status messages and variables may hold any bytes, NUL included, and
// come back exactly.
func TestOddBytesRoundTrip(t *testing.T) {
	ctx := context.Background()
	st := open(t, tasks.Config{})
	for _, msg := range []string{"a\x00b", "\x00", "ünï\ncode:12:", strings.Repeat("x\x00", 80)} {
		r, err := st.Create(ctx, "o\x00wner", tasks.CreateParams{Method: "m\x00", StatusMessage: msg})
		if err != nil {
			t.Fatal(err)
		}
		got, err := st.Transition(ctx, "o\x00wner", r.ID, tasks.StatusInputRequired, msg+"!")
		if err != nil || got.StatusMessage != msg+"!" || got.Method != "m\x00" || got.Owner != "o\x00wner" {
			t.Fatalf("transition with %q: %+v, %v", msg, got, err)
		}
		// Variable names follow the _meta key grammar; values hold any
		// bytes.
		got, err = st.SetVariables(ctx, "o\x00wner", r.ID, map[string]json.RawMessage{"k": json.RawMessage(`"\u0000"`)})
		if err != nil || string(got.Variables["k"]) != `"\u0000"` || got.StatusMessage != msg+"!" {
			t.Fatalf("set variables with %q: %+v, %v", msg, got, err)
		}
	}
}

// A Wait in progress when the server restarts is still woken by PUBLISH
// afterwards: the shared pub/sub connection reconnects and subscribes
// again (the poll interval is an hour, so polling cannot be what wakes it).
func TestWaitSurvivesServerRestart(t *testing.T) {
	ctx := context.Background()
	srv := testenv.StartRedis(t, testenv.RedisOptions{AOF: true})
	cfg := tasks.Config{PollInterval: time.Hour}
	a, b := openAt(t, srv.URL, "rw:", cfg), openAt(t, srv.URL, "rw:", cfg)
	r, err := a.Create(ctx, "o", tasks.CreateParams{})
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		got, err := b.Wait(wctx, "o", r.ID, r.Version)
		if err == nil && got.Status != tasks.StatusCompleted {
			err = fmt.Errorf("woke with status %s", got.Status)
		}
		done <- err
	}()
	time.Sleep(200 * time.Millisecond)
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := a.Complete(ctx, "o", r.ID, tasks.StatusCompleted, "", tasks.Outcome{Result: json.RawMessage(`{}`)})
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("complete after restart: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := <-done; err != nil {
		t.Fatalf("wait across a restart: %v", err)
	}
}
