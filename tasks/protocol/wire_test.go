package protocol_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/protocol"
)

func TestWireTask(t *testing.T) {
	created := time.Date(2025, 11, 25, 10, 30, 0, 0, time.UTC)
	hour := time.Hour
	odd := 1500*time.Millisecond + 999*time.Microsecond
	cases := []struct {
		name string
		rec  tasks.Record
		want string
	}{
		{"full", tasks.Record{ID: "t1", Status: tasks.StatusWorking, StatusMessage: "busy", CreatedAt: created,
			LastUpdatedAt: created.Add(1234 * time.Millisecond), TTL: &hour, PollInterval: time.Second},
			`{"createdAt":"2025-11-25T10:30:00.000Z","lastUpdatedAt":"2025-11-25T10:30:01.234Z","pollInterval":1000,"status":"working","statusMessage":"busy","taskId":"t1","ttl":3600000}`},
		{"unlimited ttl is null, no poll interval", tasks.Record{ID: "t2", Status: tasks.StatusCompleted, CreatedAt: created, LastUpdatedAt: created},
			`{"createdAt":"2025-11-25T10:30:00.000Z","lastUpdatedAt":"2025-11-25T10:30:00.000Z","status":"completed","taskId":"t2","ttl":null}`},
		{"non-UTC times are shown in UTC; sub-ms ttl truncated", tasks.Record{ID: "t3", Status: tasks.StatusFailed,
			CreatedAt: created.In(time.FixedZone("X", 3600)), LastUpdatedAt: created, TTL: &odd},
			`{"createdAt":"2025-11-25T10:30:00.000Z","lastUpdatedAt":"2025-11-25T10:30:00.000Z","status":"failed","taskId":"t3","ttl":1500}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := protocol.WireTask(tc.rec)
			b, err := json.Marshal(w)
			if err != nil {
				t.Fatal(err)
			}
			var got, want map[string]any
			_ = json.Unmarshal(b, &got)
			_ = json.Unmarshal([]byte(tc.want), &want)
			gb, _ := json.Marshal(got)
			wb, _ := json.Marshal(want)
			if string(gb) != string(wb) {
				t.Errorf("got  %s\nwant %s", gb, wb)
			}
			if err := schema.Validate("Task", b); err != nil {
				t.Errorf("not a valid Task: %v", err)
			}
			back, err := protocol.RecordFromWire(w)
			if err != nil {
				t.Fatal(err)
			}
			if back.ID != tc.rec.ID || back.Status != tc.rec.Status || !back.CreatedAt.Equal(tc.rec.CreatedAt) ||
				(back.TTL == nil) != (tc.rec.TTL == nil) || back.StatusMessage != tc.rec.StatusMessage {
				t.Errorf("round trip: %+v", back)
			}
		})
	}
	if _, err := protocol.RecordFromWire(schema.Task{TaskID: "x", Status: "sleeping", CreatedAt: "now", LastUpdatedAt: "now"}); err == nil {
		t.Error("bad status accepted")
	}
	if _, err := protocol.RecordFromWire(schema.Task{TaskID: "x", Status: "working", CreatedAt: "yesterday", LastUpdatedAt: "now"}); err == nil {
		t.Error("bad timestamp accepted")
	}
}

func TestWireGetResultVariables(t *testing.T) {
	rec := tasks.Record{ID: "t", Status: tasks.StatusWorking, Variables: map[string]json.RawMessage{
		"server.progress":                      json.RawMessage(`0.5`),
		"client.note":                          json.RawMessage(`"hi"`),
		"io.modelcontextprotocol/related-task": json.RawMessage(`{"taskId":"spoof"}`),
		"dev.mcp.tools/x":                      json.RawMessage(`1`),
		"example.com/ok":                       json.RawMessage(`true`),
	}}
	res := protocol.WireGetResult(rec)
	want := map[string]string{"server.progress": `0.5`, "client.note": `"hi"`, "example.com/ok": `true`}
	if len(res.Meta) != len(want) {
		t.Errorf("_meta %v", res.Meta)
	}
	for k, v := range want {
		if string(res.Meta[k]) != v {
			t.Errorf("_meta[%q] = %s, want %s", k, res.Meta[k], v)
		}
	}
	if res := protocol.WireGetResult(tasks.Record{ID: "t", Status: tasks.StatusWorking}); res.Meta != nil {
		t.Errorf("no variables but _meta %v", res.Meta)
	}
	for key, reserved := range map[string]bool{
		"io.modelcontextprotocol/x": true, "dev.mcp/x": true, "a.mcp.b/x": true, "mcp/x": false, "server.x": false, "com.example/x": false,
	} {
		if protocol.ReservedMetaKey(key) != reserved {
			t.Errorf("ReservedMetaKey(%q) = %v", key, !reserved)
		}
	}
}
