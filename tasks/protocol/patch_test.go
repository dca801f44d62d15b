package protocol_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcptasks/mcptasks/stores/memory"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/protocol"
)

func newCore(t *testing.T, tools ...protocol.Tool) *protocol.Core {
	t.Helper()
	cfg := tasks.Config{}.WithDefaults()
	st := memory.New(cfg)
	t.Cleanup(func() { _ = st.Close() })
	eng := tasks.NewEngine(st, cfg)
	t.Cleanup(func() { _ = eng.Close(context.Background()) })
	core, err := protocol.New(eng, protocol.WithTools(tools...))
	if err != nil {
		t.Fatal(err)
	}
	return core
}

func noop(context.Context, *protocol.ToolCall) (json.RawMessage, error) {
	return json.RawMessage(`{"content":[]}`), nil
}

func TestPatchInitialize(t *testing.T) {
	core := newCore(t)
	tests := []struct {
		name, in string
		wantErr  bool
	}{
		{"adds tasks, keeps the rest", `{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"x","version":"1"},"extra":7}`, false},
		{"no capabilities yet", `{"protocolVersion":"2025-11-25","serverInfo":{"name":"x","version":"1"}}`, false},
		{"not an object", `[1]`, true},
		{"capabilities not an object", `{"capabilities":3}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := core.PatchInitialize(json.RawMessage(tt.in))
			if tt.wantErr {
				if err == nil {
					t.Fatalf("patched %s into %s, want an error", tt.in, out)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var in, got map[string]json.RawMessage
			_ = json.Unmarshal([]byte(tt.in), &in)
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			var caps struct {
				Tools json.RawMessage
				Tasks *struct {
					List, Cancel json.RawMessage
					Requests     struct {
						Tools struct{ Call json.RawMessage }
					}
				}
			}
			if err := json.Unmarshal(got["capabilities"], &caps); err != nil || caps.Tasks == nil ||
				caps.Tasks.List == nil || caps.Tasks.Cancel == nil || caps.Tasks.Requests.Tools.Call == nil {
				t.Fatalf("capabilities %s lack tasks.{list,cancel,requests.tools.call}", got["capabilities"])
			}
			for k, v := range in {
				if k != "capabilities" && string(got[k]) != string(v) {
					t.Errorf("%s changed: %s, was %s", k, got[k], v)
				}
			}
			if _, had := in["capabilities"]; had && string(caps.Tools) != `{"listChanged":true}` {
				t.Errorf("capabilities.tools changed: %s", caps.Tools)
			}
		})
	}
}

func TestPatchToolsList(t *testing.T) {
	core := newCore(t,
		protocol.Tool{Name: "slow", TaskSupport: protocol.TaskRequired, Handler: noop},
		protocol.Tool{Name: "plain", Handler: noop},
	)
	in := `{"tools":[{"name":"slow","inputSchema":{"type":"object"},"execution":{"other":1}},{"name":"plain","inputSchema":{"type":"object"}},{"name":"foreign","inputSchema":{"type":"object"}}],"nextCursor":"c"}`
	out, err := core.PatchToolsList(json.RawMessage(in))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Tools []struct {
			Name      string
			Execution map[string]json.RawMessage
		}
		NextCursor string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"slow": `"required"`, "plain": "", "foreign": ""}
	if len(got.Tools) != 3 || got.NextCursor != "c" {
		t.Fatalf("patched result %s", out)
	}
	for _, tl := range got.Tools {
		if ts := string(tl.Execution["taskSupport"]); ts != want[tl.Name] {
			t.Errorf("tool %s: taskSupport %s, want %q", tl.Name, ts, want[tl.Name])
		}
	}
	if string(got.Tools[0].Execution["other"]) != "1" {
		t.Errorf("other execution members lost: %s", out)
	}
	if _, err := core.PatchToolsList(json.RawMessage(`{"tools":3}`)); err == nil {
		t.Error("a result without a tools array was patched")
	}
}
