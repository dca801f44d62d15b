package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/internal/testenv"
	"github.com/mcptasks/mcptasks/stores/postgres"
	"github.com/mcptasks/mcptasks/tasks"
)

// epoch is where the tests' fake clocks start.
var epoch = time.Date(2026, time.March, 1, 12, 0, 0, 0, time.UTC)

// open opens a store on dsn and closes it when t ends.
func open(t testing.TB, dsn string, cfg tasks.Config, opts ...postgres.Option) *postgres.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := postgres.Open(ctx, dsn, cfg, opts...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// fresh opens a store on a fresh database of the shared cluster.
func fresh(t testing.TB, cfg tasks.Config) (*postgres.Store, string) {
	t.Helper()
	dsn := testenv.Postgres(t)
	return open(t, dsn, cfg), dsn
}

func fakeCfg() (tasks.Config, *tasks.FakeClock) {
	clk := tasks.NewFakeClock(epoch)
	return tasks.Config{Clock: clk, PollInterval: 20 * time.Millisecond}, clk
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func mustCreate(t testing.TB, s tasks.Store, owner tasks.Owner) tasks.Record {
	t.Helper()
	r, err := s.Create(context.Background(), owner, tasks.CreateParams{Method: "tools/call"})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	return r
}
