package client_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/schema/exttasks"
	"github.com/mcptasks/mcptasks/tasks/client"
)

// A requestor of 2026-07-28 puts the version, capabilities and client
// information into every request's _meta, sets the routing headers, and
// reads JSON-RPC errors out of 4xx answers.
func TestModernRequestShape(t *testing.T) {
	var (
		mu   sync.Mutex
		seen []*http.Request
		body []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen, body = append(seen, r), append(body, string(b))
		mu.Unlock()
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(b, &req)
		w.Header().Set("Content-Type", "application/json")
		switch req.Method {
		case "tasks/get":
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"resultType":"complete","taskId":"t1","status":"completed","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttlMs":null,"result":{"content":[]}}}`)
		case "tools/call":
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"resultType":"task","taskId":"t1","status":"working","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttlMs":1000,"pollIntervalMs":5}}`)
		default:
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"error":{"code":-32021,"message":"missing","data":{"requiredCapabilities":{}}}}`)
		}
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	m := client.NewModern(srv.URL)
	res, err := m.CallTool(ctx, "x", nil)
	if err != nil || res.Task == nil || res.Task.TaskID != "t1" || res.Task.PollIntervalMs == nil {
		t.Fatalf("CallTool: %v %+v", err, res)
	}
	got, err := m.Poll(ctx, "t1", time.Millisecond, nil)
	if err != nil || got.Status != exttasks.TaskStatusCompleted || string(got.Result) != `{"content":[]}` {
		t.Fatalf("Poll: %v %+v", err, got)
	}
	err = m.WithCapabilities(json.RawMessage(`{}`)).CancelTask(ctx, "t1")
	if code, ok := client.ErrorCode(err); !ok || code != -32021 {
		t.Fatalf("a JSON-RPC error in a 400 answer: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 3 {
		t.Fatalf("%d requests", len(seen))
	}
	for i, r := range seen {
		if r.Header.Get(client.HeaderProtocolVersion) != "2026-07-28" || r.Header.Get(client.HeaderSessionID) != "" {
			t.Errorf("request %d headers: %v", i, r.Header)
		}
		if !strings.Contains(body[i], `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`) || !strings.Contains(body[i], `"io.modelcontextprotocol/clientInfo"`) {
			t.Errorf("request %d lacks the _meta: %s", i, body[i])
		}
	}
	if !strings.Contains(body[0], `"io.modelcontextprotocol/tasks":{}`) || strings.Contains(body[2], `"io.modelcontextprotocol/tasks"`) {
		t.Errorf("capabilities: %s / %s", body[0], body[2])
	}
	if seen[1].Header.Get("Mcp-Method") != "tasks/get" || seen[1].Header.Get("Mcp-Name") != "t1" || seen[0].Header.Get("Mcp-Name") != "" {
		t.Errorf("routing headers: %v / %v", seen[1].Header, seen[0].Header)
	}
}

// Listen reads the acknowledgement and the task notifications of an SSE
// listen stream.
func TestModernListenReadsTheStream(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\",\"params\":{\"notifications\":{\"taskIds\":[\"t1\"]}}}\n\n")
		_, _ = io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tasks\",\"params\":{\"taskId\":\"t1\",\"status\":\"completed\",\"createdAt\":\"x\",\"lastUpdatedAt\":\"x\",\"ttlMs\":null,\"result\":{}}}\n\n")
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var acked []string
	var got []exttasks.TaskStatusNotificationParams
	err := client.NewModern(srv.URL).Listen(ctx, []string{"t1"}, func(ids []string) { acked = ids }, func(p exttasks.TaskStatusNotificationParams) { got = append(got, p) })
	if err != nil || len(acked) != 1 || len(got) != 1 || got[0].Status != exttasks.TaskStatusCompleted {
		t.Fatalf("Listen: %v %v %+v", err, acked, got)
	}
}
