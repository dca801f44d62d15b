package gosdk_test

import (
	"context"
	"log"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptasks/mcptasks/adapters/gosdk"
	"github.com/mcptasks/mcptasks/stores/memory"
	"github.com/mcptasks/mcptasks/tasks"
)

// A server on the Go SDK whose "report" tool may run as a task, served
// over Streamable HTTP. The store here is in memory; storeurl.Open gives
// any other from a URL (docs/gosdk.md).
func Example() {
	cfg := tasks.Config{}.WithDefaults()
	store := memory.New(cfg)
	server := mcp.NewServer(&mcp.Implementation{Name: "reports", Version: "1.0.0"}, nil)
	a, err := gosdk.Install(server, tasks.NewEngine(store, cfg), nil)
	if err != nil {
		log.Fatal(err)
	}
	type In struct {
		Year int `json:"year"`
	}
	err = gosdk.AddTool(a, &mcp.Tool{Name: "report", Description: "Builds a yearly report."}, gosdk.TaskOptional,
		func(ctx context.Context, call *gosdk.Call, in In) (*mcp.CallToolResult, any, error) {
			_ = call.Progress(tasks.Progress{Progress: 1}) // call.Task is nil for a plain call
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
		})
	if err != nil {
		log.Fatal(err)
	}
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	http.Handle("/mcp", http.NewCrossOriginProtection().Handler(a.Handler(sdk, nil)))
	log.Fatal(http.ListenAndServe("127.0.0.1:8080", nil)) // stdio: a.Run(ctx, &mcp.StdioTransport{})
}
