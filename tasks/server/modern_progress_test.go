package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/mcptasks/mcptasks/schema/v20260728"
	"github.com/mcptasks/mcptasks/tasks/server"
	"github.com/mcptasks/mcptasks/tasks/server/reference"
)

// streamMessages returns the JSON-RPC messages of a POST answer, in
// order: the data of every SSE event, or the one JSON body.
func streamMessages(t *testing.T, hdr http.Header, body []byte) []json.RawMessage {
	t.Helper()
	if !strings.HasPrefix(hdr.Get("Content-Type"), "text/event-stream") {
		return []json.RawMessage{bytes.TrimSpace(body)}
	}
	var out []json.RawMessage
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data:"); ok && strings.TrimSpace(data) != "" {
			out = append(out, json.RawMessage(strings.TrimSpace(data)))
		}
	}
	return out
}

// A synchronous 2026-07-28 tools/call with a progressToken in _meta gets
// its progress on its own SSE stream, under that token and rising, then
// its result; without a token, or when the call becomes a task, no
// progress is sent; a token that is neither a string nor an integer is
// refused.
func TestModernSyncCallProgress(t *testing.T) {
	inst := start(t, reference.Options{})
	cases := []struct {
		name  string
		caps  string
		token string // JSON, "" for none
		// want is the number of progress notifications expected.
		want int
		// task: the answer is a CreateTaskResult.
		task bool
		// code, when not 0, is the expected JSON-RPC error code.
		code int64
	}{
		{name: "string token", caps: `{}`, token: `"tok-a"`, want: 4},
		{name: "integer token", caps: `{}`, token: `7`, want: 4},
		{name: "no token", caps: `{}`, want: 0},
		{name: "task", caps: `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`, token: `"tok-task"`, want: 0, task: true},
		{name: "object token", caps: `{}`, token: `{"x":1}`, code: -32602},
		{name: "null token", caps: `{}`, token: `null`, code: -32602},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			meta := `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + tc.caps
			if tc.token != "" {
				meta += `,"progressToken":` + tc.token
			}
			body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"ms":200,"steps":4},"_meta":{%s}}}`,
				i+1, server.FixtureProgressTool, meta)
			status, hdr, raw := rawPost(t, inst.URL, "", body, server.HeaderProtocolVersion, "2026-07-28", server.HeaderMcpMethod, "tools/call")
			msgs := streamMessages(t, hdr, raw)
			if len(msgs) == 0 {
				t.Fatalf("status %d, no message: %s", status, raw)
			}
			last := msgs[len(msgs)-1]
			if tc.code != 0 {
				if code, _, _ := rpcCode(t, last); code != tc.code || status != http.StatusBadRequest {
					t.Errorf("status %d code %d, want 400 and %d: %s", status, code, tc.code, last)
				}
				return
			}
			var res struct {
				ID     int `json:"id"`
				Result struct {
					ResultType string `json:"resultType"`
				} `json:"result"`
			}
			if err := json.Unmarshal(last, &res); err != nil || res.ID != i+1 {
				t.Fatalf("the stream does not end with the answer: %s", raw)
			}
			if wantType := map[bool]string{false: "complete", true: "task"}[tc.task]; res.Result.ResultType != wantType {
				t.Errorf("resultType %q, want %q: %s", res.Result.ResultType, wantType, last)
			}
			var values []float64
			for _, m := range msgs[:len(msgs)-1] {
				var n struct {
					Method string `json:"method"`
					Params struct {
						Token    json.RawMessage `json:"progressToken"`
						Progress float64         `json:"progress"`
					} `json:"params"`
				}
				if err := json.Unmarshal(m, &n); err != nil || n.Method != "notifications/progress" {
					t.Errorf("unexpected message before the answer: %s", m)
					continue
				}
				if err := v20260728.Validate("ProgressNotification", m); err != nil {
					t.Errorf("progress notification %s: %v", m, err)
				}
				if string(n.Params.Token) != tc.token {
					t.Errorf("progress under token %s, want %s", n.Params.Token, tc.token)
				}
				if len(values) > 0 && n.Params.Progress <= values[len(values)-1] {
					t.Errorf("progress went from %v to %v", values[len(values)-1], n.Params.Progress)
				}
				values = append(values, n.Params.Progress)
			}
			if len(values) != tc.want {
				t.Errorf("%d progress notifications %v, want %d", len(values), values, tc.want)
			}
		})
	}
}
