package client_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/internal/taskserverproc"
	"github.com/mcptasks/mcptasks/tasks/client"
)

func startProcess(t *testing.T, argv []string, env ...string) *client.Process {
	t.Helper()
	p, err := client.StartProcess(t.Context(), argv, env)
	if err != nil {
		t.Fatalf("StartProcess: %v", err)
	}
	t.Cleanup(func() { _ = p.Close(2 * time.Second) })
	return p
}

func TestStdioAgainstTaskserver(t *testing.T) {
	p := startProcess(t, []string{taskserverproc.Binary(t), "--stdio", "--fixtures"})
	var elicited atomic.Int32
	var received atomic.Int32
	c := client.NewStdio(p,
		client.WithObserver(func(m *client.Message) {
			if m.Direction == client.Received {
				received.Add(1)
			}
		}),
		client.WithRequestHandler(func(_ context.Context, req *client.Message) (any, error) {
			if req.Method != "elicitation/create" {
				return nil, &client.RPCError{Code: -32601, Message: "not handled"}
			}
			elicited.Add(1)
			return map[string]any{"action": "accept", "content": map[string]any{"answer": "yes"}}, nil
		}))
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	init, err := c.Connect(ctx)
	if err != nil {
		t.Fatalf("Connect: %v\nstderr: %s", err, p.Stderr())
	}
	if init.ServerInfo.Name == "" || init.ProtocolVersion != client.ProtocolVersion {
		t.Errorf("initialize result %+v", init)
	}
	if c.SessionID() != "" {
		t.Errorf("a stdio client has no Mcp-Session-Id, got %q", c.SessionID())
	}
	tools, err := c.ListTools(ctx)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	names := map[string]bool{}
	for _, tool := range tools {
		names[tool.Name] = true
	}
	for _, want := range []string{"fixture_sleep", "fixture_input"} {
		if !names[want] {
			t.Errorf("tools/list lacks %s: %v", want, names)
		}
	}

	// Several tasks at once: answers are matched to their requests by id.
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			created, err := c.CallToolAsTask(ctx, "fixture_sleep", map[string]any{"ms": 30 * (4 - i)}, nil)
			if err != nil {
				t.Errorf("task %d: %v", i, err)
				return
			}
			raw, err := c.Result(ctx, created.Task.TaskID)
			if err != nil {
				t.Errorf("tasks/result %d: %v", i, err)
				return
			}
			if !json.Valid(raw) || !strings.Contains(string(raw), "content") {
				t.Errorf("tasks/result %d: %s", i, raw)
			}
		})
	}
	wg.Wait()

	// The server asks the client a question while tasks/result waits: the
	// request comes over stdout and the answer goes back over stdin.
	created, err := c.CallToolAsTask(ctx, "fixture_input", map[string]any{"question": "go on?"}, nil)
	if err != nil {
		t.Fatalf("fixture_input: %v", err)
	}
	if _, err := c.Result(ctx, created.Task.TaskID); err != nil {
		t.Fatalf("tasks/result of the input task: %v", err)
	}
	if elicited.Load() != 1 {
		t.Errorf("elicitations answered: %d, want 1", elicited.Load())
	}
	task, err := c.GetTask(ctx, created.Task.TaskID)
	if err != nil || task.Status != "completed" {
		t.Errorf("input task after its result: %+v, %v", task, err)
	}
	if received.Load() == 0 {
		t.Error("the observer saw no received message")
	}

	if err := p.Close(5 * time.Second); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if !p.Exited() {
		t.Error("the child still has its stdout open after Close")
	}
	if !strings.Contains(p.Stderr(), "stdio") {
		t.Errorf("the child's log on stderr was not kept: %q", p.Stderr())
	}
	if _, err := c.GetTask(ctx, created.Task.TaskID); err == nil {
		t.Error("a request to an ended child succeeded")
	}
}

func TestStdioCloseKillsAChildThatIgnoresStdin(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep command")
	}
	p := startProcess(t, []string{sleep, "60"})
	start := time.Now()
	if err := p.Close(100 * time.Millisecond); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("Close took %s", d)
	}
	if !p.Exited() {
		t.Error("the child is still running")
	}
}

func TestStdioChildThatDiesFailsTheRequest(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	// Reads one line, complains on stderr and exits without answering.
	p := startProcess(t, []string{sh, "-c", `read line; echo "giving up on $WHO" >&2; exit 3`}, "WHO=tester")
	c := client.NewStdio(p)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	_, err = c.Connect(ctx)
	if err == nil {
		t.Fatal("Connect to a child that exits succeeded")
	}
	if ctx.Err() != nil {
		t.Fatalf("the request waited for its deadline instead of failing when the child exited: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(p.Stderr(), "giving up on tester") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := p.Stderr(); !strings.Contains(got, "giving up on tester") {
		t.Errorf("stderr %q lacks the child's message (and its environment)", got)
	}
}

func TestStartProcessRefusesAnEmptyCommand(t *testing.T) {
	for _, argv := range [][]string{nil, {""}} {
		if _, err := client.StartProcess(t.Context(), argv, nil); err == nil {
			t.Errorf("StartProcess(%q) succeeded", argv)
		}
	}
}
