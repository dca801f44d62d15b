package protocol_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/mcptasks/mcptasks/tasks/protocol"
)

// TestHandleAppend checks that HandleAppend leaves what dst held in front
// and appends exactly the result Handle gives for the same request, for a
// created task (written in place), a plain call and the methods whose
// results are copied.
func TestHandleAppend(t *testing.T) {
	core := newCore(t, protocol.Tool{Name: "noop", TaskSupport: protocol.TaskOptional, Handler: noop})
	c := &conn{}
	core.AddSession(c)
	defer core.RemoveSession(c)
	ctx := context.Background()
	res, err := core.Handle(ctx, c, "tools/call", json.RawMessage(`{"name":"noop","arguments":{},"task":{"ttl":60000}}`))
	if err != nil {
		t.Fatal(err)
	}
	var created struct{ Task struct{ TaskID string } }
	if err := json.Unmarshal(res, &created); err != nil || created.Task.TaskID == "" {
		t.Fatalf("no task created: %s (%v)", res, err)
	}
	getParams := `{"taskId":"` + created.Task.TaskID + `"}`
	tests := []struct {
		name, method, params string
		// same: Handle gives the same bytes (no fresh task or time).
		same bool
	}{
		{"task creation", "tools/call", `{"name":"noop","arguments":{},"task":{"ttl":60000}}`, false},
		{"plain call", "tools/call", `{"name":"noop","arguments":{}}`, true},
		{"tasks/get", "tasks/get", getParams, true},
		{"tools/list", "tools/list", `{}`, true},
	}
	prefix := []byte(`{"jsonrpc":"2.0","id":7,"result":`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := append(make([]byte, 0, 8), prefix...)
			got, err := core.HandleAppend(ctx, c, tt.method, json.RawMessage(tt.params), dst)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(got, prefix) {
				t.Fatalf("dst's contents lost: %s", got)
			}
			body := got[len(prefix):]
			if !json.Valid(body) {
				t.Fatalf("appended result is not JSON: %s", body)
			}
			if !tt.same {
				var r struct {
					Task struct{ TaskID, Status string }
				}
				if err := json.Unmarshal(body, &r); err != nil || r.Task.TaskID == "" || r.Task.Status != "working" {
					t.Fatalf("appended %s, want a working task (%v)", body, err)
				}
				return
			}
			want, err := core.Handle(ctx, c, tt.method, json.RawMessage(tt.params))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(body, want) {
				t.Errorf("appended %s, Handle gives %s", body, want)
			}
		})
	}
	t.Run("error", func(t *testing.T) {
		if _, err := core.HandleAppend(ctx, c, "tools/call", json.RawMessage(`{"name":"missing"}`), prefix); err == nil {
			t.Fatal("unknown tool: no error")
		}
	})
}
