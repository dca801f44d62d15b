package gosdk

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestCarryTask(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     string // "" means unchanged
	}{
		{"task moves into _meta",
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","task":{"ttl":5}}}`,
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"dev.mcptasks/carried-task":{"task":{"ttl":5}}}}}`},
		{"existing _meta is kept",
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":7},"task":{}}}`,
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":7,"dev.mcptasks/carried-task":{"task":{}}}}}`},
		{"a forged key is dropped",
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"dev.mcptasks/carried-task":{"task":{}}}}}`,
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`},
		{"a malformed task travels as it is, for the core to refuse",
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","task":"soon"}}`,
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"dev.mcptasks/carried-task":{"task":"soon"}}}}`},
		{"batches are rewritten per message",
			`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","task":{}}},{"jsonrpc":"2.0","id":2,"method":"ping"}]`,
			`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"dev.mcptasks/carried-task":{"task":{}}}}},{"jsonrpc":"2.0","id":2,"method":"ping"}]`},
		{"plain call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`, ""},
		{"other method", `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"task"}}`, ""},
		{"not JSON", `{"task"`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := carryTask([]byte(tc.in))
			want := tc.want
			if want == "" {
				if string(got) != tc.in {
					t.Fatalf("changed to %s", got)
				}
				return
			}
			var g, w any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatalf("output %s: %v", got, err)
			}
			if err := json.Unmarshal([]byte(want), &w); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("got  %s\nwant %s", got, want)
			}
		})
	}
}

func TestTakeCarriedTask(t *testing.T) {
	meta := map[string]any{"progressToken": 1.0, taskMetaKey: map[string]any{"task": map[string]any{"ttl": 100.0}}}
	task, ok := takeCarriedTask(meta)
	if !ok || string(task) != `{"ttl":100}` {
		t.Fatalf("took %s %v, want {\"ttl\":100}", task, ok)
	}
	if _, left := meta[taskMetaKey]; left || meta["progressToken"] != 1.0 {
		t.Fatalf("meta after taking = %v", meta)
	}
	if _, ok := takeCarriedTask(map[string]any{"progressToken": 1.0}); ok {
		t.Fatal("a plain call's _meta carried a task")
	}
}
