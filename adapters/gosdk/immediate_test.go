package gosdk_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptasks/mcptasks/adapters/gosdk"
	"github.com/mcptasks/mcptasks/stores/memory"
	"github.com/mcptasks/mcptasks/tasks"
)

// A tool added WithImmediateResponse names the message in the
// CreateTaskResult's _meta of a task-augmented call, and only there.
func TestImmediateResponse(t *testing.T) {
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
	type in struct {
		Topic string `json:"topic"`
	}
	err = gosdk.AddTool(a, &mcp.Tool{Name: "research"}, gosdk.TaskOptional,
		func(context.Context, *gosdk.Call, in) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
		}, gosdk.WithImmediateResponse(func(args json.RawMessage) string {
			var v in
			_ = json.Unmarshal(args, &v)
			return "Researching " + v.Topic + " in the background."
		}))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(a.Handler(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil), nil))
	t.Cleanup(hs.Close)
	c := connect(t, hs.URL)

	var cr struct {
		Meta map[string]json.RawMessage `json:"_meta"`
		Task struct {
			TaskID string `json:"taskId"`
		} `json:"task"`
	}
	if err := json.Unmarshal(mustResult(t, "tools/call", c.call(t, "tools/call",
		`{"name":"research","arguments":{"topic":"tides"},"task":{}}`)), &cr); err != nil {
		t.Fatal(err)
	}
	if got := string(cr.Meta["io.modelcontextprotocol/model-immediate-response"]); got != `"Researching tides in the background."` || cr.Task.TaskID == "" {
		t.Errorf("CreateTaskResult _meta %v, task %q", cr.Meta, cr.Task.TaskID)
	}
	plain := mustResult(t, "tools/call", c.call(t, "tools/call", `{"name":"research","arguments":{"topic":"tides"}}`))
	if strings.Contains(string(plain), "model-immediate-response") {
		t.Errorf("a plain call carried a model-immediate-response: %s", plain)
	}
}
