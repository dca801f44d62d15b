package multiinstance_test

import (
	"testing"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/client"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// testCursorsAcrossInstances pages through alice's tasks starting on A and
// continuing on B (no key file: both derive the key from the same store
// URL), and checks that the cursor is refused
// with -32602 for another requestor and on an instance with another key.
func testCursorsAcrossInstances(t *testing.T, spec string) {
	a, b := startInstance(t, "A", spec), startInstance(t, "B", spec)
	c := startInstance(t, "C", spec, "--cursor-key-file", cursorKeyFile(t, "another-key-of-instance-c-77e1"))
	ctx := testCtx(t)
	ca, cb, cc := a.Connect(ctx, t, tokenAlice), b.Connect(ctx, t, tokenAlice), c.Connect(ctx, t, tokenAlice)
	bob := b.Connect(ctx, t, tokenBob)

	// More tasks than one page (50 by default) holds.
	created := map[string]bool{}
	for range tasks.DefaultPageSize + 5 {
		created[sleepTask(t, ctx, ca, 0)] = true
	}
	first, err := ca.ListTasks(ctx, "")
	if err != nil {
		t.Fatalf("tasks/list on A: %v", err)
	}
	if first.Next() == "" {
		t.Fatalf("tasks/list on A: one page of %d tasks for %d created", len(first.Tasks), len(created))
	}
	seen := map[string]bool{}
	for _, x := range first.Tasks {
		seen[x.TaskID] = true
	}
	for cursor := first.Next(); cursor != ""; {
		page, err := cb.ListTasks(ctx, cursor)
		if err != nil {
			t.Fatalf("tasks/list on B with A's cursor: %v", err)
		}
		for _, x := range page.Tasks {
			seen[x.TaskID] = true
		}
		cursor = page.Next()
	}
	for id := range created {
		if !seen[id] {
			t.Errorf("task %s was not listed across A and B", id)
		}
	}
	for _, tt := range []struct {
		name string
		c    *client.Client
	}{{"bob on B", bob}, {"alice on C (another cursor key)", cc}} {
		_, err := tt.c.ListTasks(ctx, first.Next())
		if code, _ := client.ErrorCode(err); code != wire.CodeInvalidParams {
			t.Errorf("%s with alice's cursor from A: %v, want -32602", tt.name, err)
		}
	}
}
