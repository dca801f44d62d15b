package server_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/tasks/server"
)

// Over stdio, 2026-07-28 requests (per-request _meta, no initialize) are
// served next to an initialize-based 2025-11-25 session on the same
// connection, and the two keep their tasks apart.
func TestStdioModernProfile(t *testing.T) {
	p := newStdioPeer(t, newStdioServer(t))
	disc := p.ok("server/discover", `{`+modernMeta+`}`)
	if !strings.Contains(string(disc), `"io.modelcontextprotocol/tasks":{}`) {
		t.Errorf("discover: %s", disc)
	}
	if code := p.errCode("tasks/get", `{"taskId":"x","_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01","io.modelcontextprotocol/clientCapabilities":{}}}`); code != -32022 {
		t.Errorf("unknown version: %d", code)
	}
	created := p.ok("tools/call", `{"name":"`+server.FixtureInputTool+`","arguments":{"question":"q?"},`+strings.Replace(modernMeta, `{"extensions"`, `{"elicitation":{"form":{}},"extensions"`, 1)+`}`)
	var ct struct {
		ResultType string `json:"resultType"`
		TaskID     string `json:"taskId"`
	}
	if err := json.Unmarshal(created, &ct); err != nil || ct.ResultType != "task" || ct.TaskID == "" {
		t.Fatalf("create: %s", created)
	}
	var key string
	for deadline := time.Now().Add(5 * time.Second); key == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var g struct {
			Status        string                     `json:"status"`
			InputRequests map[string]json.RawMessage `json:"inputRequests"`
		}
		_ = json.Unmarshal(p.ok("tasks/get", `{"taskId":"`+ct.TaskID+`",`+modernMeta+`}`), &g)
		for k := range g.InputRequests {
			key = k
		}
	}
	if key == "" {
		t.Fatal("no input request shown")
	}
	p.ok("tasks/update", `{"taskId":"`+ct.TaskID+`","inputResponses":{"`+key+`":{"action":"accept","content":{"answer":"blue"}}},`+modernMeta+`}`)
	var final string
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(final, `"completed"`) && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		final = string(p.ok("tasks/get", `{"taskId":"`+ct.TaskID+`",`+modernMeta+`}`))
	}
	if !strings.Contains(final, "blue") {
		t.Fatalf("final: %s", final)
	}
	// A synchronous call with a progressToken: its progress comes as
	// lines before its answer, under its token and rising.
	p.ok("tools/call", `{"name":"`+server.FixtureProgressTool+`","arguments":{"ms":30,"steps":3},"_meta":{"progressToken":"stdio-tok","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`)
	p.mu.Lock()
	var values []float64
	for _, n := range p.notes {
		var pn struct {
			Token    string  `json:"progressToken"`
			Progress float64 `json:"progress"`
		}
		if string(n["method"]) == `"notifications/progress"` && json.Unmarshal(n["params"], &pn) == nil && pn.Token == "stdio-tok" {
			values = append(values, pn.Progress)
		}
	}
	p.mu.Unlock()
	if len(values) != 3 || values[0] >= values[1] || values[1] >= values[2] {
		t.Errorf("progress over stdio: %v, want three rising values", values)
	}
	// The same connection initializes a 2025-11-25 session: the modern
	// task is not one of its tasks.
	p.ok("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`)
	p.write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if code := p.errCode("tasks/get", `{"taskId":"`+ct.TaskID+`"}`); code != -32602 {
		t.Errorf("modern task under the legacy session: %d", code)
	}
}
