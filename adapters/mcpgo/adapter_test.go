package mcpgo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptasks/mcptasks/adapters/mcpgo"
	"github.com/mcptasks/mcptasks/stores/memory"
	"github.com/mcptasks/mcptasks/tasks"
)

// fixture is an mcp-go server with the adapter on a memory store, served
// over loopback HTTP.
type fixture struct {
	url     string
	release chan struct{}
}

func start(tb testing.TB) *fixture {
	tb.Helper()
	cfg := tasks.Config{PollInterval: 50 * time.Millisecond}.WithDefaults()
	store := memory.New(cfg)
	engine := tasks.NewEngine(store, cfg)
	hooks := &server.Hooks{}
	srv := server.NewMCPServer("test", "1", server.WithToolCapabilities(false), server.WithHooks(hooks))
	a, err := mcpgo.New(srv, hooks, engine)
	if err != nil {
		tb.Fatal(err)
	}
	f := &fixture{release: make(chan struct{})}
	err = a.AddTaskTool(mcp.NewTool("wait"), mcpgo.TaskRequired, func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if _, ok := mcpgo.TaskFromContext(ctx); !ok {
			return mcp.NewToolResultError("not running as a task"), nil
		}
		select {
		case <-f.release:
			return mcp.NewToolResultText("released"), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	if err != nil {
		tb.Fatal(err)
	}
	if err := a.AddTaskTool(mcp.NewTool("bad"), "forbidden", nil); err == nil {
		tb.Error("AddTaskTool accepted taskSupport forbidden")
	}
	hs := httptest.NewServer(a.Handler(server.NewStreamableHTTPServer(srv)))
	tb.Cleanup(func() {
		hs.CloseClientConnections()
		hs.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = engine.Close(ctx)
		_ = store.Close()
	})
	f.url = hs.URL
	return f
}

// conn is one initialized MCP session over plain HTTP POSTs.
type conn struct {
	tb     testing.TB
	url    string
	sid    string
	client *http.Client
	id     atomic.Int64
}

func (f *fixture) connect(tb testing.TB) *conn {
	tb.Helper()
	c := &conn{tb: tb, url: f.url, client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	tb.Cleanup(c.client.CloseIdleConnections)
	res, hdr := c.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	c.sid = hdr.Get("Mcp-Session-Id")
	if c.sid == "" || !bytes.Contains(res, []byte(`"tasks"`)) {
		tb.Fatalf("initialize: session %q, result %s", c.sid, res)
	}
	c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

func (c *conn) post(body string) ([]byte, http.Header) {
	req, err := http.NewRequest(http.MethodPost, c.url, strings.NewReader(body))
	if err != nil {
		c.tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.sid != "" {
		req.Header.Set("Mcp-Session-Id", c.sid)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	resp, err := c.client.Do(req)
	if err != nil {
		c.tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.tb.Fatal(err)
	}
	if resp.StatusCode/100 != 2 {
		c.tb.Fatalf("HTTP %d: %s", resp.StatusCode, b)
	}
	return b, resp.Header
}

// call sends a request and decodes the result member of a JSON answer.
func (c *conn) call(method, params string) json.RawMessage {
	body, _ := c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, c.id.Add(1), method, params))
	var m struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(body, &m); err != nil || m.Error != nil {
		c.tb.Fatalf("%s: %s", method, body)
	}
	return m.Result
}

func taskOf(tb testing.TB, raw json.RawMessage) (id, status string) {
	tb.Helper()
	var r struct {
		Task   *struct{ TaskID, Status string } `json:"task"`
		TaskID string                           `json:"taskId"`
		Status string                           `json:"status"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		tb.Fatalf("not a task: %s", raw)
	}
	if r.Task != nil {
		return r.Task.TaskID, r.Task.Status
	}
	return r.TaskID, r.Status
}

// TestWorkOutlivesTheRequest: the CreateTaskResult comes back while the
// tool still runs, and the work finishes afterwards, detached from the
// request that created it.
func TestWorkOutlivesTheRequest(t *testing.T) {
	f := start(t)
	c := f.connect(t)
	id, status := taskOf(t, c.call("tools/call", `{"name":"wait","task":{"ttl":60000}}`))
	if id == "" || status != "working" {
		t.Fatalf("created %q in status %q", id, status)
	}
	if _, st := taskOf(t, c.call("tasks/get", `{"taskId":"`+id+`"}`)); st != "working" {
		t.Fatalf("after the response: %s", st)
	}
	close(f.release)
	res := c.call("tasks/result", `{"taskId":"`+id+`"}`)
	if !bytes.Contains(res, []byte("released")) || !bytes.Contains(res, []byte(id)) {
		t.Fatalf("tasks/result: %s", res)
	}
	// Another session without a token is another owner: it sees nothing.
	other := f.connect(t)
	body, _ := other.post(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"` + id + `"}}`)
	if !bytes.Contains(body, []byte(`"code":-32602`)) {
		t.Fatalf("another session read the task: %s", body)
	}
}

// TestRequiredToolWithoutTask is refused with -32601, as taskSupport
// required says, before mcp-go runs it.
func TestRequiredToolWithoutTask(t *testing.T) {
	c := start(t).connect(t)
	body, _ := c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait"}}`)
	if !bytes.Contains(body, []byte(`"code":-32601`)) {
		t.Fatalf("got %s", body)
	}
	list := c.call("tools/list", `{}`)
	if !bytes.Contains(list, []byte(`"taskSupport":"required"`)) {
		t.Fatalf("tools/list lost taskSupport: %s", list)
	}
}

// TestAuthSubject: with WithAuthSubject the owner is the subject the
// server's own authentication found, so a second session of the same
// subject sees the task, another subject does not, and a request without
// one is refused.
func TestAuthSubject(t *testing.T) {
	cfg := tasks.Config{}.WithDefaults()
	store := memory.New(cfg)
	engine := tasks.NewEngine(store, cfg)
	hooks := &server.Hooks{}
	srv := server.NewMCPServer("test", "1", server.WithToolCapabilities(false), server.WithHooks(hooks))
	a, err := mcpgo.New(srv, hooks, engine, mcpgo.WithAuthSubject(func(r *http.Request) (string, bool) {
		u := r.Header.Get("X-User") // stands for a real authentication middleware
		return u, u != ""
	}))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.AddTaskTool(mcp.NewTool("now"), mcpgo.TaskOptional, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("now"), nil
	}); err != nil {
		t.Fatal(err)
	}
	h := a.Handler(server.NewStreamableHTTPServer(srv))
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u := r.URL.Query().Get("user"); u != "" {
			r.Header.Set("X-User", u)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		hs.Close()
		_ = engine.Close(context.Background())
	})
	resp, err := http.Post(hs.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("without a subject: HTTP %d, want 401", resp.StatusCode)
	}
	alice := (&fixture{url: hs.URL + "?user=alice"}).connect(t)
	id, _ := taskOf(t, alice.call("tools/call", `{"name":"now","task":{}}`))
	again := (&fixture{url: hs.URL + "?user=alice"}).connect(t)
	if got, _ := taskOf(t, again.call("tasks/get", `{"taskId":"`+id+`"}`)); got != id {
		t.Fatalf("alice's second session got %q", got)
	}
	bob := (&fixture{url: hs.URL + "?user=bob"}).connect(t)
	body, _ := bob.post(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"` + id + `"}}`)
	if !bytes.Contains(body, []byte(`"code":-32602`)) {
		t.Fatalf("bob read alice's task: %s", body)
	}
}
