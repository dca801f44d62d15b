package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/stores/memory"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/server"
)

// stdioPeer drives a server over a pair of pipes, one JSON message per line.
type stdioPeer struct {
	t      *testing.T
	in     *io.PipeWriter
	mu     sync.Mutex
	waits  map[string]chan map[string]json.RawMessage
	notes  []map[string]json.RawMessage
	answer func(method string, params json.RawMessage) string // reply to server requests
	nextID int
	done   chan error
}

func newStdioPeer(t *testing.T, srv *server.Server) *stdioPeer {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &stdioPeer{t: t, in: inW, waits: map[string]chan map[string]json.RawMessage{}, done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		p.done <- srv.ServeStdio(ctx, inR, outW)
		outW.Close()
	}()
	go p.read(outR)
	t.Cleanup(func() {
		inW.Close()
		select {
		case err := <-p.done:
			if err != nil {
				t.Errorf("ServeStdio: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("ServeStdio did not return after stdin closed")
		}
		cancel()
	})
	return p
}

func (p *stdioPeer) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			p.t.Errorf("server wrote a line that is not JSON: %q", sc.Text())
			continue
		}
		_, hasID := m["id"]
		_, hasMethod := m["method"]
		switch {
		case hasMethod && hasID: // a server request
			var method string
			_ = json.Unmarshal(m["method"], &method)
			reply := p.answer(method, m["params"])
			p.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m["id"], reply))
			p.mu.Lock()
			p.notes = append(p.notes, m)
			p.mu.Unlock()
		case hasMethod:
			p.mu.Lock()
			p.notes = append(p.notes, m)
			p.mu.Unlock()
		default:
			p.mu.Lock()
			ch := p.waits[string(m["id"])]
			p.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		}
	}
}

func (p *stdioPeer) write(line string) {
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Errorf("write: %v", err)
	}
}

// call sends a request and waits for its response.
func (p *stdioPeer) call(method string, params string) map[string]json.RawMessage {
	p.t.Helper()
	p.mu.Lock()
	p.nextID++
	id := fmt.Sprint(p.nextID)
	ch := make(chan map[string]json.RawMessage, 1)
	p.waits[id] = ch
	p.mu.Unlock()
	p.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, method, params))
	select {
	case m := <-ch:
		return m
	case <-time.After(15 * time.Second):
		p.t.Fatalf("%s: no response", method)
		return nil
	}
}

func (p *stdioPeer) ok(method, params string) json.RawMessage {
	p.t.Helper()
	m := p.call(method, params)
	if m["error"] != nil {
		p.t.Fatalf("%s: error %s", method, m["error"])
	}
	return m["result"]
}

func (p *stdioPeer) errCode(method, params string) int64 {
	p.t.Helper()
	m := p.call(method, params)
	var e struct {
		Code int64 `json:"code"`
	}
	if m["error"] == nil || json.Unmarshal(m["error"], &e) != nil {
		p.t.Fatalf("%s: want an error, got %v", method, m)
	}
	return e.Code
}

func newStdioServer(t *testing.T, opts ...server.Option) *server.Server {
	cfg := tasks.Config{PollInterval: 50 * time.Millisecond}.WithDefaults()
	st := memory.New(cfg)
	log := slog.New(slog.DiscardHandler)
	eng := tasks.NewEngine(st, cfg, tasks.WithLogger(log))
	srv, err := server.New(eng, append([]server.Option{server.WithFixtures(), server.WithLogger(log)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = eng.Close(ctx)
		_ = st.Close()
	})
	return srv
}

func TestStdio(t *testing.T) {
	p := newStdioPeer(t, newStdioServer(t))
	p.answer = func(method string, params json.RawMessage) string {
		return `{"action":"accept","content":{"answer":"blue"}}`
	}
	if code := p.errCode("tools/list", `{}`); code != -32600 {
		t.Errorf("request before initialize: %d", code)
	}
	init := p.ok("initialize", `{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"t","version":"1"}}`)
	if !strings.Contains(string(init), `"tasks":{"cancel":{},"list":{},"requests":{"tools":{"call":{}}}}`) {
		t.Errorf("initialize: %s", init)
	}
	p.write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.ok("ping", `{}`)
	if tools := p.ok("tools/list", `{}`); !strings.Contains(string(tools), `"fixture_input"`) {
		t.Errorf("tools/list: %s", tools)
	}
	// Plain call and task.
	if r := p.ok("tools/call", `{"name":"fixture_sleep","arguments":{"ms":1}}`); !strings.Contains(string(r), `"slept 1 ms"`) {
		t.Errorf("plain call: %s", r)
	}
	var ct struct {
		Task struct {
			TaskID string `json:"taskId"`
			Status string `json:"status"`
		} `json:"task"`
	}
	_ = json.Unmarshal(p.ok("tools/call", `{"name":"fixture_sleep","arguments":{"ms":50},"task":{"ttl":60000}}`), &ct)
	if ct.Task.Status != "working" {
		t.Fatalf("CreateTaskResult %+v", ct)
	}
	id := ct.Task.TaskID
	if g := p.ok("tasks/get", `{"taskId":"`+id+`"}`); !strings.Contains(string(g), id) {
		t.Errorf("tasks/get: %s", g)
	}
	if r := p.ok("tasks/result", `{"taskId":"`+id+`"}`); !strings.Contains(string(r), `"io.modelcontextprotocol/related-task":{"taskId":"`+id+`"}`) {
		t.Errorf("tasks/result: %s", r)
	}
	if l := p.ok("tasks/list", `{}`); !strings.Contains(string(l), id) {
		t.Errorf("tasks/list: %s", l)
	}
	if code := p.errCode("tasks/cancel", `{"taskId":"`+id+`"}`); code != -32602 {
		t.Errorf("cancel of completed: %d", code)
	}
	// Cancel a running task.
	_ = json.Unmarshal(p.ok("tools/call", `{"name":"fixture_sleep_required","arguments":{"ms":60000},"task":{}}`), &ct)
	if c := p.ok("tasks/cancel", `{"taskId":"`+ct.Task.TaskID+`"}`); !strings.Contains(string(c), `"status":"cancelled"`) {
		t.Errorf("tasks/cancel: %s", c)
	}
	// Errors.
	for _, tc := range []struct {
		method, params string
		code           int64
	}{
		{"tasks/get", `{"taskId":1}`, -32602},
		{"tasks/get", `{"taskId":"missing"}`, -32602},
		{"tasks/list", `{"cursor":"bogus"}`, -32602},
		{"tools/call", `{"name":"fixture_sleep_required","arguments":{}}`, -32601},
		{"tools/call", `{"name":"fixture_forbidden","task":{}}`, -32601},
		{"nope", `{}`, -32601},
	} {
		if code := p.errCode(tc.method, tc.params); code != tc.code {
			t.Errorf("%s %s: code %d, want %d", tc.method, tc.params, code, tc.code)
		}
	}
	m := p.waitID("", func() { p.write(`{"jsonrpc":"2.0","id":99,"method":`) })
	if !strings.Contains(string(m["error"]), "-32700") {
		t.Errorf("parse error: %v", m)
	}
	// input_required over stdio: the elicitation arrives while tasks/result waits.
	_ = json.Unmarshal(p.ok("tools/call", `{"name":"fixture_input","arguments":{"question":"colour?"},"task":{}}`), &ct)
	r := p.ok("tasks/result", `{"taskId":"`+ct.Task.TaskID+`"}`)
	if !strings.Contains(string(r), `answer: blue`) {
		t.Errorf("fixture_input result: %s", r)
	}
	// Status notifications are written by the task's watcher, not by the
	// request, so the last may follow the tasks/result answer on stdout:
	// give it a moment to arrive.
	var sawElicit, sawStatus bool
	for deadline := time.Now().Add(5 * time.Second); ; {
		p.mu.Lock()
		for _, n := range p.notes {
			var method string
			_ = json.Unmarshal(n["method"], &method)
			switch method {
			case "elicitation/create":
				sawElicit = sawElicit || strings.Contains(string(n["params"]), `"io.modelcontextprotocol/related-task":{"taskId":"`+ct.Task.TaskID+`"}`)
			case "notifications/tasks/status":
				sawStatus = true
			}
		}
		p.mu.Unlock()
		if (sawElicit && sawStatus) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !sawElicit {
		t.Error("no elicitation/create with related-task metadata over stdio")
	}
	if !sawStatus {
		t.Error("no notifications/tasks/status over stdio")
	}
}

// waitID waits for a response with the given raw id.
func (p *stdioPeer) waitID(id string, send func()) map[string]json.RawMessage {
	p.t.Helper()
	ch := make(chan map[string]json.RawMessage, 1)
	p.mu.Lock()
	p.waits[id] = ch
	p.mu.Unlock()
	send()
	select {
	case m := <-ch:
		return m
	case <-time.After(5 * time.Second):
		p.t.Fatalf("no response with id %s", id)
		return nil
	}
}

// Over stdio, a task's input request goes out at once, so a peer that only
// polls tasks/get can answer it and the task completes.
func TestStdioPollOnlyAnswersInput(t *testing.T) {
	p := newStdioPeer(t, newStdioServer(t))
	p.answer = func(method string, params json.RawMessage) string {
		return `{"action":"accept","content":{"answer":"green"}}`
	}
	p.ok("initialize", `{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"t","version":"1"}}`)
	p.write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	var ct struct {
		Task struct{ TaskID string }
	}
	_ = json.Unmarshal(p.ok("tools/call", `{"name":"fixture_input","arguments":{"question":"colour?"},"task":{}}`), &ct)
	var status string
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var g struct{ Status string }
		_ = json.Unmarshal(p.ok("tasks/get", `{"taskId":"`+ct.Task.TaskID+`"}`), &g)
		if status = g.Status; status == "completed" || status == "failed" || status == "cancelled" {
			break
		}
	}
	if status != "completed" {
		t.Fatalf("status %q without tasks/result, want completed", status)
	}
	if r := p.ok("tasks/result", `{"taskId":"`+ct.Task.TaskID+`"}`); !strings.Contains(string(r), `answer: green`) {
		t.Errorf("fixture_input result: %s", r)
	}
}
