package gosdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptasks/mcptasks/adapters/gosdk"
	"github.com/mcptasks/mcptasks/stores/memory"
	"github.com/mcptasks/mcptasks/tasks"
)

// testServer is an SDK server with tasks, served over HTTP on loopback.
type testServer struct {
	mcp     *mcp.Server
	adapter *gosdk.Adapter
	url     string
}

// quiet is a logger that drops everything.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// newTestServer builds an SDK server with one optional task tool "wait"
// (waits ms) and one that asks for input, on a memory store.
func newTestServer(t testing.TB, hopts *gosdk.HandlerOptions) *testServer {
	t.Helper()
	cfg := tasks.Config{PollInterval: 20 * time.Millisecond}.WithDefaults()
	store := memory.New(cfg)
	engine := tasks.NewEngine(store, cfg, tasks.WithLogger(quiet))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = engine.Close(ctx)
		store.Close()
	})
	s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ServerOptions{Logger: quiet})
	a, err := gosdk.Install(s, engine, &gosdk.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	type waitIn struct {
		MS int `json:"ms"`
	}
	if err := gosdk.AddTool(a, &mcp.Tool{Name: "wait"}, gosdk.TaskOptional,
		func(ctx context.Context, c *gosdk.Call, in waitIn) (*mcp.CallToolResult, any, error) {
			select {
			case <-time.After(time.Duration(in.MS) * time.Millisecond):
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
			kind := "plain"
			if c.Task != nil {
				kind = "task " + c.Task.TaskID()
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: kind}}}, nil, nil
		}); err != nil {
		t.Fatal(err)
	}
	if err := gosdk.AddTool(a, &mcp.Tool{Name: "ask"}, gosdk.TaskRequired,
		func(ctx context.Context, c *gosdk.Call, _ struct{}) (*mcp.CallToolResult, any, error) {
			ans, err := c.Task.RequireInput(ctx, tasks.InputRequest{Method: "elicitation/create",
				Params: json.RawMessage(`{"mode":"form","message":"name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}`)})
			if err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "answer " + string(ans)}}}, nil, nil
		}); err != nil {
		t.Fatal(err)
	}
	mcp.AddTool(s, &mcp.Tool{Name: "plain"}, func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "plain"}}}, nil, nil
	})
	h := a.Handler(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil), hopts)
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return &testServer{mcp: s, adapter: a, url: hs.URL}
}

// rpcClient speaks JSON-RPC over Streamable HTTP with one session.
type rpcClient struct {
	url     string
	session string
	http    *http.Client
	ids     atomic.Int64
}

// connect initializes a session.
func connect(t testing.TB, url string) *rpcClient {
	t.Helper()
	c := &rpcClient{url: url, http: &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	resp, body := c.post(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize: HTTP %d: %s", resp.StatusCode, body)
	}
	c.session = resp.Header.Get("Mcp-Session-Id")
	if c.session == "" {
		t.Fatal("initialize: no session id")
	}
	c.post(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

// post sends one message and returns the response with its body (the
// data of the first event for an event stream).
func (c *rpcClient) post(t testing.TB, msg string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.url, strings.NewReader(msg))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for line := range bytes.Lines(body) {
			if d, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data:")); ok {
				return resp, bytes.TrimSpace(d)
			}
		}
	}
	return resp, body
}

// response is a JSON-RPC response.
type response struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// call sends a request and decodes the response.
func (c *rpcClient) call(t testing.TB, method, params string) response {
	t.Helper()
	id := c.ids.Add(1)
	_, body := c.post(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
	var r response
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("%s: undecodable answer %q: %v", method, body, err)
	}
	return r
}
