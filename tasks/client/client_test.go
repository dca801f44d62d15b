package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/tasks/client"
)

// peer is a small Streamable HTTP endpoint on loopback that exercises the
// transport paths of the client: JSON and SSE answers, a server request on
// a response stream, stream resumption and the session headers. It is not
// a tasks implementation; the reference server's own tests cover that.
type peer struct {
	t        *testing.T
	mu       sync.Mutex
	answers  map[string]chan json.RawMessage // elicitation id -> answer
	headers  []http.Header
	resumeOK bool
}

func (p *peer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.headers = append(p.headers, r.Header.Clone())
	p.mu.Unlock()
	if r.Method == http.MethodGet {
		if r.Header.Get("Last-Event-ID") == "r1" && p.resumeOK {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "id: r2\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[],\"resumed\":true}}\n\n", `"RESUMEID"`)
			return
		}
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	if r.Method == http.MethodDelete {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
	}
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &msg); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if msg.Method == "" { // a response from the client
		p.mu.Lock()
		ch := p.answers[string(msg.ID)]
		p.mu.Unlock()
		if ch != nil {
			ch <- msg.Result
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if msg.ID == nil { // a notification
		w.WriteHeader(http.StatusAccepted)
		return
	}
	reply := func(result string) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, msg.ID, result)
	}
	switch msg.Method {
	case "initialize":
		w.Header().Set("Mcp-Session-Id", "sess-1")
		reply(`{"protocolVersion":"2025-11-25","capabilities":{"tasks":{"list":{},"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"peer","version":"1"}}`)
	case "tools/list":
		reply(`{"tools":[{"name":"a","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}},{"name":"b","inputSchema":{"type":"object"}}]}`)
	case "tools/call":
		if strings.Contains(string(msg.Params), `"task"`) {
			reply(`{"task":{"taskId":"t1","status":"working","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:00Z","ttl":null,"pollInterval":10}}`)
			return
		}
		reply(`{"content":[{"type":"text","text":"hi"}]}`)
	case "tasks/get":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"no such task","data":{"taskId":"x"}}}`, msg.ID)
	case "tasks/result":
		// SSE: a priming event, an elicitation, then (after the answer)
		// the response.
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		fmt.Fprint(w, "id: e0\ndata:\n\n")
		ch := make(chan json.RawMessage, 1)
		p.mu.Lock()
		p.answers[`"el-1"`] = ch
		p.mu.Unlock()
		fmt.Fprint(w, "id: e1\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"el-1\",\"method\":\"elicitation/create\",\"params\":{\"message\":\"name?\",\"requestedSchema\":{\"type\":\"object\",\"properties\":{}},\"_meta\":{\"io.modelcontextprotocol/related-task\":{\"taskId\":\"t1\"}}}}\n\n")
		fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n")
		fl.Flush()
		var ans json.RawMessage
		select {
		case ans = <-ch:
		case <-time.After(5 * time.Second):
			p.t.Error("peer: no answer to the elicitation")
			return
		}
		fmt.Fprintf(w, "id: e2\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[],\"answer\":%s,\"_meta\":{\"io.modelcontextprotocol/related-task\":{\"taskId\":\"t1\"}}}}\n\n", msg.ID, ans)
	case "ping":
		// SSE stream that closes after an event id, to force resumption.
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "id: r1\nretry: 10\ndata:\n\n")
		p.resumeOK = true
	default:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"unknown"}}`, msg.ID)
	}
}

func TestClientAgainstLoopbackPeer(t *testing.T) {
	p := &peer{t: t, answers: map[string]chan json.RawMessage{}}
	srv := httptest.NewServer(p)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	var (
		mu   sync.Mutex
		seen []*client.Message
	)
	c := client.New(srv.URL,
		client.WithHeader("Authorization", "Bearer A"),
		client.WithObserver(func(m *client.Message) { mu.Lock(); seen = append(seen, m); mu.Unlock() }),
		client.WithRequestHandler(func(ctx context.Context, req *client.Message) (any, error) {
			if req.Method != "elicitation/create" {
				return nil, &client.RPCError{Code: -32601, Message: "no"}
			}
			if id, ok := client.RelatedTaskID(req.Params()); !ok || id != "t1" {
				t.Errorf("elicitation related task = %q, %v", id, ok)
			}
			return map[string]any{"action": "accept", "content": map[string]any{"name": "x"}}, nil
		}))

	init, err := c.Connect(ctx)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	if init.ProtocolVersion != client.ProtocolVersion || c.SessionID() != "sess-1" {
		t.Fatalf("negotiated %q session %q", init.ProtocolVersion, c.SessionID())
	}

	tools, err := c.ListTools(ctx)
	if err != nil || len(tools) != 2 {
		t.Fatalf("ListTools: %v %v", tools, err)
	}
	if tools[0].TaskSupport() != "optional" || tools[1].TaskSupport() != "forbidden" {
		t.Errorf("task support: %q %q", tools[0].TaskSupport(), tools[1].TaskSupport())
	}

	ttl := int64(60000)
	created, err := c.CallToolAsTask(ctx, "a", map[string]any{"x": 1}, &ttl)
	if err != nil || created.Task.TaskID != "t1" || created.Task.TTL != nil {
		t.Fatalf("CallToolAsTask: %+v %v", created, err)
	}
	if _, err := c.CallTool(ctx, "a", nil); err != nil {
		t.Fatalf("CallTool: %v", err)
	}

	_, err = c.GetTask(ctx, "missing")
	var rpc *client.RPCError
	if !errors.As(err, &rpc) || rpc.Code != -32602 || string(rpc.Data) != `{"taskId":"x"}` {
		t.Fatalf("GetTask error = %v", err)
	}

	payload, err := c.Result(ctx, "t1")
	if err != nil {
		t.Fatalf("Result: %v", err)
	}
	if !strings.Contains(string(payload), `"answer":{"action":"accept"`) {
		t.Errorf("payload lacks the elicitation answer: %s", payload)
	}
	if id, ok := client.RelatedTaskID(payload); !ok || id != "t1" {
		t.Errorf("payload related task %q %v", id, ok)
	}
	if n := len(c.Notifications()); n != 1 {
		t.Errorf("notifications = %d, want 1", n)
	}

	if err := c.OpenStream(ctx); !errors.Is(err, client.ErrNoStream) {
		t.Errorf("OpenStream = %v, want ErrNoStream", err)
	}

	// ping is answered with a stream that closes early; the client resumes
	// with Last-Event-ID and gets the response there.
	res, err := c.Call(ctx, "ping", nil, client.WithRequestID(json.RawMessage(`"RESUMEID"`)))
	if err != nil || !strings.Contains(string(res), `"resumed":true`) {
		t.Errorf("resumed call: %s %v", res, err)
	}

	mu.Lock()
	defer mu.Unlock()
	defs := map[string]bool{}
	for _, m := range seen {
		if m.Direction == client.Received {
			defs[m.Def+"/"+m.ResultDef] = true
		}
	}
	for _, want := range []string{
		"JSONRPCResultResponse/InitializeResult", "JSONRPCResultResponse/ListToolsResult",
		"JSONRPCResultResponse/CreateTaskResult", "JSONRPCResultResponse/CallToolResult",
		"JSONRPCErrorResponse/", "ElicitRequest/", "ProgressNotification/",
		"JSONRPCResultResponse/GetTaskPayloadResult",
	} {
		if !defs[want] {
			t.Errorf("observer never saw %s; saw %v", want, defs)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	last := p.headers[len(p.headers)-1]
	if last.Get("Mcp-Session-Id") != "sess-1" || last.Get("Mcp-Protocol-Version") != "2025-11-25" || last.Get("Authorization") != "Bearer A" {
		t.Errorf("headers on later requests: %v", last)
	}
}

// TestContentTypeIsTheCallersToJudge: an answer served as text/plain that
// is still the JSON-RPC response comes back with its Content-Type for the
// caller to judge; one that is not JSON-RPC at all is a ContentTypeError.
// Either way the exchange observer sees what was sent and what came back.
func TestContentTypeIsTheCallersToJudge(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.NewDecoder(r.Body).Decode(&msg)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if msg.Method == "ping" {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, msg.ID)
			return
		}
		fmt.Fprint(w, "hello")
	}))
	defer srv.Close()
	var seen []client.Exchange
	var mu sync.Mutex
	c := client.New(srv.URL, client.WithExchangeObserver(func(x client.Exchange) {
		mu.Lock()
		seen = append(seen, x)
		mu.Unlock()
	}))
	ctx := context.Background()
	m, err := c.CallMessage(ctx, "ping", nil)
	if err != nil {
		t.Fatalf("ping served as text/plain: %v", err)
	}
	if !strings.HasPrefix(m.ContentType, "text/plain") || m.Kind != client.KindResult {
		t.Errorf("got %s with Content-Type %q", m.Kind, m.ContentType)
	}
	_, err = c.CallMessage(ctx, "tools/list", nil)
	var cte *client.ContentTypeError
	if !errors.As(err, &cte) || cte.Body != "hello" {
		t.Fatalf("tools/list answered with plain text: err %v, want a ContentTypeError", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 {
		t.Fatalf("%d exchanges observed, want 2", len(seen))
	}
	if seen[1].Method != "tools/list" || seen[1].HTTPStatus != 200 || string(seen[1].Body) != "hello" || seen[1].Err == nil ||
		!strings.Contains(string(seen[1].Sent), `"tools/list"`) {
		t.Errorf("second exchange: %+v", seen[1])
	}
}
