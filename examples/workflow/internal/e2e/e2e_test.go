// Package e2e drives the workflow example end to end over real HTTP:
// prompts/get, the server steps, the handoff, the client's bound call,
// completion and tasks/result, with the variables checked on tasks/get at
// every stage; on the memory store in process, and on PostgreSQL with the
// server process restarted while the workflow waits for its client.
package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/examples/workflow/app"
	"github.com/mcptasks/mcptasks/internal/testenv"
	"github.com/mcptasks/mcptasks/tasks/client"
	"github.com/mcptasks/mcptasks/tasks/workflow"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

const (
	tokenAlice = "tok-alice-e2e-1"
	tokenBob   = "tok-bob-e2e-2"
)

func tokenFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(p, []byte(tokenAlice+" alice\n"+tokenBob+" bob\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// startInProcess runs the example in this process and returns its URL.
func startInProcess(t *testing.T, store, tokens string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- app.Serve(ctx, app.Options{Addr: "127.0.0.1:0", Store: store, Tokens: tokens,
			PollInterval: 50 * time.Millisecond, Lease: time.Second, ReapInterval: 200 * time.Millisecond,
			ShutdownGrace: 5 * time.Second, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
			Ready: func(u string) { ready <- u }})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("example server: %v", err)
		}
	})
	select {
	case u := <-ready:
		return u
	case err := <-done:
		t.Fatalf("example server did not start: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("example server did not start")
	}
	return ""
}

var build struct {
	once sync.Once
	path string
	err  error
}

// binary builds the example's command once per test binary.
func binary(t *testing.T) string {
	t.Helper()
	build.once.Do(func() {
		dir, err := os.MkdirTemp("", "mcptasks-workflow-example-")
		if err != nil {
			build.err = err
			return
		}
		build.path = filepath.Join(dir, "workflow")
		out, err := exec.Command("go", "build", "-o", build.path, "github.com/mcptasks/mcptasks/examples/workflow").CombinedOutput()
		if err != nil {
			build.err = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	if build.err != nil {
		t.Fatal(build.err)
	}
	return build.path
}

// proc is the example server running as a child process.
type proc struct {
	cmd  *exec.Cmd
	url  string
	done chan struct{}
	mu   sync.Mutex
	log  strings.Builder
}

func startProcess(t *testing.T, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	testenv.DieWithParent(cmd)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
	urlc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			p.mu.Lock()
			p.log.WriteString(line + "\n")
			p.mu.Unlock()
			if _, rest, ok := strings.Cut(line, " url="); ok && !sent {
				u, _, _ := strings.Cut(rest, " ")
				urlc <- u
				sent = true
			}
		}
		_ = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() { p.stop(t) })
	select {
	case p.url = <-urlc:
	case <-p.done:
		t.Fatalf("example exited before listening:\n%s", p.logs())
	case <-time.After(60 * time.Second):
		t.Fatalf("example did not listen:\n%s", p.logs())
	}
	return p
}

func (p *proc) logs() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

// stop ends the process with SIGTERM (SIGKILL after 15 s).
func (p *proc) stop(t *testing.T) {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
		t.Errorf("example did not stop on SIGTERM:\n%s", p.logs())
	}
}

// kill ends the process at once, as a crash would.
func (p *proc) kill() {
	_ = p.cmd.Process.Kill()
	<-p.done
}

func connect(t *testing.T, url, token string) *client.Client {
	t.Helper()
	c := client.New(url, client.WithHeader("Authorization", "Bearer "+token))
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if _, err := c.Connect(ctx); err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

func call(t *testing.T, c *client.Client, method string, params any) json.RawMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	res, err := c.Call(ctx, method, params)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return res
}

// refused expects a JSON-RPC error with code and returns its message.
func refused(t *testing.T, c *client.Client, code int64, method string, params any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	res, err := c.Call(ctx, method, params)
	if err == nil {
		t.Fatalf("%s succeeded with %s, want error %d", method, res, code)
	}
	got, ok := client.ErrorCode(err)
	if !ok || got != code {
		t.Fatalf("%s: %v, want JSON-RPC error %d", method, err, code)
	}
	return err.Error()
}

type taskView struct {
	TaskID        string                     `json:"taskId"`
	Status        string                     `json:"status"`
	StatusMessage string                     `json:"statusMessage"`
	TTL           *int64                     `json:"ttl"`
	Meta          map[string]json.RawMessage `json:"_meta"`
}

func getTask(t *testing.T, c *client.Client, id string) taskView {
	t.Helper()
	var v taskView
	if err := json.Unmarshal(call(t, c, "tasks/get", map[string]any{"taskId": id}), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// expectVars checks variables on tasks/get: each want value is compared
// as JSON text; "" means the variable must be absent.
func expectVars(t *testing.T, stage string, v taskView, want map[string]string) {
	t.Helper()
	for k, w := range want {
		got, ok := v.Meta[k]
		switch {
		case w == "" && ok:
			t.Errorf("%s: variable %s = %s, want none", stage, k, got)
		case w != "" && !jsonEqual(got, json.RawMessage(w)):
			t.Errorf("%s: variable %s = %s, want %s", stage, k, got, w)
		}
	}
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

// handoff is what the test reads from the prompt's reply.
type handoff struct {
	taskID string
	state  workflow.State
	text   string
}

func startTrip(t *testing.T, c *client.Client, city string) handoff {
	t.Helper()
	raw := call(t, c, "prompts/get", map[string]any{"name": app.FlowTrip, "arguments": map[string]string{"city": city}})
	var res struct {
		Meta     map[string]json.RawMessage `json:"_meta"`
		Messages []struct {
			Role    string `json:"role"`
			Content struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	var rt struct {
		TaskID string `json:"taskId"`
	}
	if err := json.Unmarshal(res.Meta[workflow.RelatedTaskMeta], &rt); err != nil || rt.TaskID == "" {
		t.Fatalf("prompt result names no task: %s", raw)
	}
	last := res.Messages[len(res.Messages)-1]
	if last.Role != "assistant" || last.Content.Type != "text" {
		t.Fatalf("the reply does not end with an assistant text message: %s", raw)
	}
	text, block, ok := strings.Cut(last.Content.Text, "```json\n")
	if !ok {
		t.Fatalf("no JSON block in the handoff: %s", last.Content.Text)
	}
	block, _, _ = strings.Cut(block, "\n```")
	var h handoff
	h.taskID, h.text = rt.TaskID, strings.TrimSpace(text)
	if err := json.Unmarshal([]byte(block), &h.state); err != nil {
		t.Fatalf("JSON block: %v\n%s", err, block)
	}
	return h
}

func boundCall(tool string, args any, taskID string) map[string]any {
	return map[string]any{"name": tool, "arguments": args,
		"_meta": map[string]any{workflow.RelatedTaskMeta: map[string]string{"taskId": taskID}}}
}

// pausedVars are the variables of a trip paused at its client step.
func pausedVars(city string) map[string]string {
	return map[string]string{
		workflow.VarName:                      `"plan_trip"`,
		workflow.VarArgs:                      fmt.Sprintf(`{"city":%q}`, city),
		workflow.VarStatus:                    `"paused"`,
		workflow.StepVar("weather", "status"): `"done"`,
		workflow.StepVar("hotels", "status"):  `"done"`,
		workflow.StepVar("choose", "status"):  "",
		workflow.ClientOutputVar("choose"):    "",
		workflow.StepVar("book", "status"):    "",
		workflow.StepVar("book", "output"):    "",
		workflow.VarPause + "":                `{"step":"choose","reason":"client step","message":"waiting for the client to call choose_hotel for step choose"}`,
	}
}

// runTrip drives one trip. restart, if set, is called while the workflow
// waits for its client step and returns the URL to continue on.
func runTrip(t *testing.T, url string, restart func() string) {
	alice := connect(t, url, tokenAlice)
	bob := connect(t, url, tokenBob)
	const city = "Oslo"

	// Bad prompts create nothing.
	refused(t, alice, -32602, "prompts/get", map[string]any{"name": "no_such_flow", "arguments": map[string]string{"city": city}})
	refused(t, alice, -32602, "prompts/get", map[string]any{"name": app.FlowTrip})
	if list := call(t, alice, "tasks/list", map[string]any{}); strings.Contains(string(list), `"taskId"`) {
		t.Fatalf("refused prompts created tasks: %s", list)
	}

	// 1. The prompt runs the two server steps and hands off.
	h := startTrip(t, alice, city)
	st := h.state
	if st.TaskID != h.taskID || st.Status != workflow.StatusPaused || st.Pause == nil || st.Pause.Step != "choose" || st.Pause.Reason != workflow.ReasonClientStep {
		t.Fatalf("handoff state %+v", st)
	}
	if len(st.Completed) != 2 || st.Completed[0].Step != "weather" || st.Completed[1].Step != "hotels" || len(st.Remaining) != 2 {
		t.Fatalf("handoff steps %+v", st)
	}
	var opts struct {
		Options []string `json:"options"`
	}
	if err := json.Unmarshal(st.Remaining[0].Arguments, &opts); err != nil || len(opts.Options) != 2 || st.Remaining[0].Tool != app.ToolChoose || st.Remaining[0].Guidance == "" {
		t.Fatalf("client step in the handoff: %+v (%v)", st.Remaining[0], err)
	}
	if st.Remaining[1].Step != "book" || len(st.Remaining[1].Unresolved) != 1 {
		t.Errorf("book step in the handoff: %+v", st.Remaining[1])
	}
	if !strings.Contains(h.text, "call the tool choose_hotel") || !strings.Contains(h.text, h.taskID) {
		t.Errorf("handoff text: %s", h.text)
	}
	v := getTask(t, alice, h.taskID)
	if v.Status != "working" {
		t.Fatalf("paused task: %+v", v)
	}
	want := pausedVars(city)
	want[workflow.StepVar("hotels", "output")] = fmt.Sprintf(`{"names":%s}`, mustJSON(opts.Options))
	expectVars(t, "after the prompt", v, want)
	weather := v.Meta[workflow.StepVar("weather", "output")]

	if restart != nil {
		url = restart()
		alice = connect(t, url, tokenAlice)
		bob = connect(t, url, tokenBob)
		v = getTask(t, alice, h.taskID)
		if v.Status != "working" {
			t.Fatalf("after the restart the workflow's task is %s: %s", v.Status, v.StatusMessage)
		}
		expectVars(t, "after the restart", v, want)
	}

	// 2. Calls that may not continue it are refused and change nothing.
	unknown := refused(t, bob, -32602, "tasks/get", map[string]any{"taskId": h.taskID})
	foreign := refused(t, bob, -32602, "tools/call", boundCall(app.ToolChoose, map[string]any{"hotel": opts.Options[0]}, h.taskID))
	if foreign != unknown {
		t.Errorf("a bound call to another owner's task reads %q, tasks/get of it %q: they must match", foreign, unknown)
	}
	refused(t, alice, -32602, "tools/call", boundCall(app.ToolChoose, map[string]any{"hotel": opts.Options[0]}, "0b4c3e1e-0000-4000-8000-000000000000"))
	refused(t, alice, -32602, "tools/call", boundCall(app.ToolBook, map[string]any{"hotel": "x", "city": city}, h.taskID))
	refused(t, alice, -32602, "tools/call", boundCall(app.ToolChoose, map[string]any{"hotel": opts.Options[0]}, ""))
	expectVars(t, "after refused calls", getTask(t, alice, h.taskID), want)

	// A failed client call records the failure and keeps it paused.
	res := call(t, alice, "tools/call", boundCall(app.ToolChoose, map[string]any{"hotel": "Nowhere", "options": opts.Options}, h.taskID))
	if !strings.Contains(string(res), `"isError":true`) {
		t.Fatalf("a bad choice did not fail: %s", res)
	}
	failed := getTask(t, alice, h.taskID)
	if failed.Status != "working" {
		t.Fatalf("a failed client call ended the task: %+v", failed)
	}
	expectVars(t, "after a failed client call", failed, map[string]string{
		workflow.StepVar("choose", "status"): `"failed"`, workflow.VarStatus: `"paused"`, workflow.ClientOutputVar("choose"): "",
	})

	// 3. The bound call continues it to the end.
	choice := opts.Options[1]
	res = call(t, alice, "tools/call", boundCall(app.ToolChoose, map[string]any{"hotel": choice}, h.taskID))
	var cres struct {
		IsError           bool                       `json:"isError"`
		StructuredContent json.RawMessage            `json:"structuredContent"`
		Meta              map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(res, &cres); err != nil || cres.IsError {
		t.Fatalf("bound call: %s (%v)", res, err)
	}
	var after workflow.State
	if err := json.Unmarshal(cres.Meta["dev.mcptasks/workflow"], &after); err != nil || after.Status != workflow.StatusCompleted || after.TaskStatus != "completed" {
		t.Fatalf("state in the bound call's result: %s (%v)", cres.Meta["dev.mcptasks/workflow"], err)
	}
	v = getTask(t, alice, h.taskID)
	if v.Status != "completed" {
		t.Fatalf("task after the last step: %+v", v)
	}
	expectVars(t, "after completion", v, map[string]string{
		workflow.VarStatus:                    `"completed"`,
		workflow.VarPause:                     "",
		workflow.StepVar("weather", "output"): string(weather),
		workflow.StepVar("choose", "status"):  `"done"`,
		workflow.StepVar("choose", "error"):   "",
		workflow.ClientOutputVar("choose"):    fmt.Sprintf(`{"hotel":%q}`, choice),
		workflow.StepVar("book", "status"):    `"done"`,
	})
	var book struct {
		Confirmation string `json:"confirmation"`
		Hotel        string `json:"hotel"`
		City         string `json:"city"`
	}
	if err := json.Unmarshal(v.Meta[workflow.StepVar("book", "output")], &book); err != nil || book.Hotel != choice || book.City != city || !strings.HasPrefix(book.Confirmation, "BK-") {
		t.Errorf("book output %s (%v)", v.Meta[workflow.StepVar("book", "output")], err)
	}

	// 4. tasks/result returns the summary.
	var summary struct {
		Messages []struct {
			Role    string `json:"role"`
			Content struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(call(t, alice, "tasks/result", map[string]any{"taskId": h.taskID}), &summary); err != nil || len(summary.Messages) != 1 {
		t.Fatalf("tasks/result: %+v (%v)", summary, err)
	}
	if s := summary.Messages[0].Content.Text; !strings.Contains(s, book.Confirmation) || !strings.Contains(s, `"choose":{"hotel":"`+choice+`"}`) {
		t.Errorf("summary %s", s)
	}

	// 5. A finished workflow takes no more calls.
	msg := refused(t, alice, -32602, "tools/call", boundCall(app.ToolChoose, map[string]any{"hotel": choice}, h.taskID))
	if !strings.Contains(msg, "finished") {
		t.Errorf("bound call to a finished workflow: %s", msg)
	}
	expectVars(t, "after a call to the finished workflow", getTask(t, alice, h.taskID), map[string]string{workflow.VarStatus: `"completed"`})
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestWorkflowOnMemory(t *testing.T) {
	runTrip(t, startInProcess(t, "memory", tokenFile(t)), nil)
}

func TestWorkflowOnPostgresAcrossRestart(t *testing.T) {
	dsn := testenv.Postgres(t)
	tokens := tokenFile(t)
	args := []string{"--addr", "127.0.0.1:0", "--store", dsn, "--tokens", tokens,
		"--lease", "600ms", "--reap-interval", "200ms", "--poll-interval", "50ms", "--log-level", "info"}
	first := startProcess(t, args...)
	runTrip(t, first.url, func() string {
		first.kill()
		// Longer than the lease, with a reaper running on the new
		// instance: a paused workflow holds no lease, so nothing ends it.
		second := startProcess(t, args...)
		time.Sleep(1500 * time.Millisecond)
		if strings.Contains(second.logs(), "ended tasks whose worker was lost") {
			t.Errorf("the reaper ended a task:\n%s", second.logs())
		}
		return second.url
	})
}
