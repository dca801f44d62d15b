package protocol_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/mcptasks/mcptasks/stores/memory"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/protocol"
)

// conn is a transport's session: here the messages meant for the client
// are only collected.
type conn struct {
	mu   sync.Mutex
	sent [][]byte
}

func (c *conn) SessionID() string     { return "s1" }
func (c *conn) Owner() tasks.Owner    { return "session:s1" }
func (c *conn) Notify(msg []byte)     { c.mu.Lock(); c.sent = append(c.sent, msg); c.mu.Unlock() }
func (c *conn) Listening() bool       { return true }
func (c *conn) ElicitForm() bool      { return false }
func (c *conn) Send(msg []byte) error { c.Notify(msg); return nil }
func (c *conn) handle(ctx context.Context, core *protocol.Core, method, params string) json.RawMessage {
	res, err := core.Handle(ctx, c, method, json.RawMessage(params))
	if err != nil {
		e := core.WireError(method, err)
		return json.RawMessage(fmt.Sprintf(`{"error":%d}`, e.Code))
	}
	return res
}

// A transport hands each request to the core with its caller and raw
// params, and writes back the raw result.
func Example() {
	ctx := context.Background()
	cfg := tasks.Config{}.WithDefaults()
	store := memory.New(cfg)
	defer store.Close()
	engine := tasks.NewEngine(store, cfg)
	defer engine.Close(ctx)

	core, err := protocol.New(engine, protocol.WithTools(protocol.Tool{
		Name:        "add",
		TaskSupport: protocol.TaskOptional,
		Handler: func(ctx context.Context, call *protocol.ToolCall) (json.RawMessage, error) {
			return json.RawMessage(`{"content":[{"type":"text","text":"3"}]}`), nil
		},
	}))
	if err != nil {
		panic(err)
	}
	c := &conn{}
	core.AddSession(c)
	defer core.RemoveSession(c)

	var created struct {
		Task struct{ TaskID, Status string }
	}
	_ = json.Unmarshal(c.handle(ctx, core, "tools/call", `{"name":"add","arguments":{},"task":{"ttl":60000}}`), &created)
	fmt.Println("created:", created.Task.Status)
	var result struct {
		Content []struct{ Text string }
	}
	_ = json.Unmarshal(c.handle(ctx, core, "tasks/result", `{"taskId":"`+created.Task.TaskID+`"}`), &result)
	fmt.Println("result:", result.Content[0].Text)
	fmt.Println("unknown tool:", string(c.handle(ctx, core, "tools/call", `{"name":"nope","task":{}}`)))
	// Output:
	// created: working
	// result: 3
	// unknown tool: {"error":-32602}
}
