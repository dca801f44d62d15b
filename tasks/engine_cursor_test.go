package tasks_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/stores/memory"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/protocol"
	"github.com/mcptasks/mcptasks/tasks/storekit"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// TestEngineListCursors pages through one owner's tasks on one engine,
// continues on a second engine with the same key over the same store, and
// checks that other owners, other keys and store cursors are refused.
func TestEngineListCursors(t *testing.T) {
	ctx := context.Background()
	const key = "test-cursor-key-0123456789abcdef"
	cfg := tasks.Config{MaxTasksPerOwner: -1, CursorKey: key}.WithDefaults()
	st := memory.New(cfg)
	t.Cleanup(func() { _ = st.Close() })
	engine := func(cfg tasks.Config) *tasks.Engine {
		e := tasks.NewEngine(st, cfg, quiet, tasks.WithReapInterval(-1))
		t.Cleanup(func() {
			cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			_ = e.Close(cctx)
		})
		return e
	}
	a, b := engine(cfg), engine(cfg)
	unkeyed := cfg
	unkeyed.CursorKey = ""
	other := cfg
	other.CursorKey = key + "-other"
	c, d := engine(unkeyed), engine(other)

	want := map[string]bool{}
	for range 7 {
		r, err := st.Create(ctx, owner, tasks.CreateParams{Method: "tools/call"})
		if err != nil {
			t.Fatal(err)
		}
		want[r.ID] = true
	}
	first, err := a.List(ctx, owner, tasks.ListOptions{Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if first.NextCursor == "" || len(first.Tasks) != 3 {
		t.Fatalf("first page: %d tasks, cursor %q", len(first.Tasks), first.NextCursor)
	}
	if _, err := storekit.DecodeCursor(first.NextCursor); err == nil {
		t.Fatal("the engine handed out the store's plain cursor")
	}
	seen := map[string]bool{}
	for _, r := range first.Tasks {
		seen[r.ID] = true
	}
	// Continue on the other instance, alternating.
	cursor, engines := first.NextCursor, []*tasks.Engine{b, a}
	for i := 0; cursor != ""; i++ {
		p, err := engines[i%2].List(ctx, owner, tasks.ListOptions{Cursor: cursor, Limit: 3})
		if err != nil {
			t.Fatalf("page %d: %v", i+2, err)
		}
		for _, r := range p.Tasks {
			if seen[r.ID] {
				t.Fatalf("task %s listed twice", r.ID)
			}
			seen[r.ID] = true
		}
		cursor = p.NextCursor
	}
	if len(seen) != len(want) {
		t.Fatalf("listed %d tasks, want %d", len(seen), len(want))
	}

	plain := storekit.CursorOf(first.Tasks[2]).Encode()
	refusals := []struct {
		name   string
		e      *tasks.Engine
		owner  tasks.Owner
		cursor string
	}{
		{"another owner", b, "sub:bob", first.NextCursor},
		{"an engine with a random key", c, owner, first.NextCursor},
		{"an engine with another key", d, owner, first.NextCursor},
		{"the store's own cursor", a, owner, plain},
		{"made up", a, owner, "Zm9v"},
	}
	for _, tt := range refusals {
		_, err := tt.e.List(ctx, tt.owner, tasks.ListOptions{Cursor: tt.cursor})
		if !errors.Is(err, tasks.ErrInvalidCursor) || protocol.RPCCode(err) != wire.CodeInvalidParams {
			t.Errorf("%s: err = %v, want ErrInvalidCursor (-32602)", tt.name, err)
		}
	}
	// An engine with a random key still pages through its own cursors.
	p, err := c.List(ctx, owner, tasks.ListOptions{Limit: 4})
	if err != nil || p.NextCursor == "" {
		t.Fatalf("random-key engine, first page: %v, cursor %q", err, p.NextCursor)
	}
	if p2, err := c.List(ctx, owner, tasks.ListOptions{Cursor: p.NextCursor, Limit: 4}); err != nil || len(p2.Tasks) != 3 {
		t.Fatalf("random-key engine, second page: %d tasks, %v", len(p2.Tasks), err)
	}
}
