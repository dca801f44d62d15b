package storetest

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/client"
	"github.com/mcptasks/mcptasks/tasks/protocol"
	"github.com/mcptasks/mcptasks/tasks/server"
	"github.com/mcptasks/mcptasks/tasks/server/reference"
	"github.com/mcptasks/mcptasks/tasks/storekit"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// leakMarkers are fragments of backend error texts that must never reach
// a requestor in the answer to a bad cursor.
var leakMarkers = []string{"SQLSTATE", "ERROR:", "pgx", "sqlite", "redis", "dynamodb", "ValidationException", "internal error"}

// CursorBounds checks a store at the edges of the positions a cursor may
// hold: at the latest accepted time the page is empty, at the earliest
// every task is listed, and times beyond, NUL bytes and invalid UTF-8 are
// an ErrInvalidCursor that names no backend internals.
func CursorBounds(t *testing.T, open Opener) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st := open(t, tasks.Config{MaxTasksPerOwner: -1})
	owner := tasks.Owner("cursor-bounds-owner")
	for i := range 3 {
		if _, err := st.Create(ctx, owner, tasks.CreateParams{Method: wire.MethodToolsCall}); err != nil {
			t.Fatalf("create %d: %v", i, err)
		}
	}
	latest := time.Date(9999, time.December, 31, 23, 59, 59, 999e6, time.UTC)
	for _, id := range []string{"0", "~", "\U0010FFFF"} {
		cur := storekit.Cursor{CreatedAt: latest, ID: id}.Encode()
		p, err := st.List(ctx, owner, tasks.ListOptions{Cursor: cur})
		if err != nil {
			t.Fatalf("List after the latest time (id %q): %v", id, err)
		}
		if len(p.Tasks) != 0 || p.NextCursor != "" {
			t.Fatalf("List after the latest time (id %q): %d tasks, next %q; want an empty last page", id, len(p.Tasks), p.NextCursor)
		}
	}
	p, err := st.List(ctx, owner, tasks.ListOptions{Cursor: storekit.Cursor{CreatedAt: time.UnixMilli(0), ID: "0"}.Encode()})
	if err != nil || len(p.Tasks) != 3 {
		t.Fatalf("List after the earliest time: %d tasks, %v; want all 3", len(p.Tasks), err)
	}
	enc := func(raw string) string { return "c1." + base64.RawURLEncoding.EncodeToString([]byte(raw)) }
	for _, cur := range []string{
		enc("9223372036854775807|x"), enc("253402300800000|x"), enc("-1|x"), enc("-9223372036854775808|x"),
		storekit.Cursor{CreatedAt: latest, ID: "a\x00b"}.Encode(), enc("1700000000000|\x00"), enc("1700000000000|\xff\xfe"),
		"c1.\x00", "\x00",
	} {
		_, err := st.List(ctx, owner, tasks.ListOptions{Cursor: cur})
		if !errors.Is(err, tasks.ErrInvalidCursor) || protocol.RPCCode(err) != wire.CodeInvalidParams {
			t.Errorf("List(cursor %q) = %v; want ErrInvalidCursor (-32602)", cur, err)
			continue
		}
		for _, m := range leakMarkers {
			if strings.Contains(strings.ToLower(err.Error()), strings.ToLower(m)) {
				t.Errorf("List(cursor %q) error %q shows backend details (%q)", cur, err, m)
			}
		}
	}
}

// ServerCursors runs the reference server over HTTP on loopback on top of
// a store from open and checks tasks/list cursors end to end: pages follow
// each other, and made-up cursors, cursors of another requestor and
// cursors with NUL bytes are answered with -32602 and a message that
// names no backend internals.
func ServerCursors(t *testing.T, open Opener) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := tasks.Config{MaxTasksPerOwner: -1, PageSize: 2, PollInterval: 20 * time.Millisecond}
	st := open(t, cfg)
	tokens := server.NewStaticTokens(map[string]string{"tok-alice": "alice", "tok-bob": "bob"})
	inst, err := reference.Start(ctx, reference.Options{Config: cfg, Store: st,
		ServerOptions: []server.Option{server.WithTokenVerifier(tokens)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = inst.Close(context.Background()) })
	connect := func(token string) *client.Client {
		c := client.New(inst.URL, client.WithHeader("Authorization", "Bearer "+token))
		if _, err := c.Connect(ctx); err != nil {
			t.Fatalf("connect: %v", err)
		}
		t.Cleanup(func() { _ = c.Close(context.Background()) })
		return c
	}
	alice, bob := connect("tok-alice"), connect("tok-bob")
	for range 3 {
		if _, err := alice.CallToolAsTask(ctx, "fixture_sleep", map[string]any{"ms": 0}, nil); err != nil {
			t.Fatal(err)
		}
	}
	first, err := alice.ListTasks(ctx, "")
	if err != nil || first.Next() == "" || len(first.Tasks) != 2 {
		t.Fatalf("first page: %+v, %v; want 2 tasks and a next cursor", first, err)
	}
	second, err := alice.ListTasks(ctx, first.Next())
	if err != nil || len(second.Tasks) != 1 || second.Next() != "" {
		t.Fatalf("second page: %+v, %v; want the last task and no cursor", second, err)
	}

	tag := make([]byte, 16)
	_, _ = rand.Read(tag)
	b64 := base64.RawURLEncoding.EncodeToString
	last := first.Tasks[1]
	created, _ := time.Parse(time.RFC3339Nano, last.CreatedAt)
	position := storekit.Cursor{CreatedAt: created, ID: last.TaskID}.Encode()
	tests := []struct {
		name   string
		c      *client.Client
		cursor string
	}{
		{"another requestor's cursor", bob, first.Next()},
		{"base64 of foo", alice, b64([]byte("foo"))},
		{"a hand-built position", alice, position},
		{"a hand-built token", alice, "t1." + b64([]byte(position)) + "." + b64(tag)},
		{"a position at the latest time", alice, storekit.Cursor{CreatedAt: time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC), ID: "x"}.Encode()},
		{"a NUL byte", alice, "c1.\x00"},
		{"a position with a NUL byte", alice, storekit.Cursor{CreatedAt: created, ID: "a\x00"}.Encode()},
		{"a token with a NUL byte", alice, first.Next()[:4] + "\x00" + first.Next()[4:]},
		{"a truncated cursor", alice, first.Next()[:len(first.Next())-3]},
	}
	for _, tt := range tests {
		_, err := tt.c.ListTasks(ctx, tt.cursor)
		var rpc *client.RPCError
		if !errors.As(err, &rpc) || rpc.Code != wire.CodeInvalidParams {
			t.Errorf("%s: tasks/list answered %v; want -32602", tt.name, err)
			continue
		}
		if !strings.Contains(rpc.Message, "cursor") {
			t.Errorf("%s: message %q does not say the cursor is the problem", tt.name, rpc.Message)
		}
		for _, m := range leakMarkers {
			if strings.Contains(strings.ToLower(rpc.Message), strings.ToLower(m)) {
				t.Errorf("%s: message %q shows backend details (%q)", tt.name, rpc.Message, m)
			}
		}
	}
	// The good cursor still works after all that.
	if again, err := alice.ListTasks(ctx, first.Next()); err != nil || len(again.Tasks) != 1 {
		t.Fatalf("alice's cursor after the refusals: %+v, %v", again, err)
	}
}
