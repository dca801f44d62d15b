package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/stores/memory"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/client"
	"github.com/mcptasks/mcptasks/tasks/protocol"
	"github.com/mcptasks/mcptasks/tasks/server"
	"github.com/mcptasks/mcptasks/tasks/server/reference"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// start runs a reference server on loopback for one test.
func start(t *testing.T, o reference.Options) *reference.Instance {
	t.Helper()
	if o.Config.PollInterval == 0 {
		o.Config.PollInterval = 100 * time.Millisecond
	}
	inst, err := reference.Start(context.Background(), o)
	if err != nil {
		t.Fatalf("start reference server: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := inst.Close(ctx); err != nil {
			t.Errorf("close server: %v", err)
		}
	})
	return inst
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// connect opens an initialized client session.
func connect(t *testing.T, url string, opts ...client.Option) *client.Client {
	t.Helper()
	c := client.New(url, opts...)
	if _, err := c.Connect(testCtx(t)); err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

func wantCode(t *testing.T, err error, code int64, contains string) {
	t.Helper()
	got, ok := client.ErrorCode(err)
	if !ok {
		t.Fatalf("want JSON-RPC error %d, got %v", code, err)
	}
	if got != code {
		t.Fatalf("want JSON-RPC error %d, got %d (%v)", code, got, err)
	}
	if contains != "" && !strings.Contains(err.Error(), contains) {
		t.Fatalf("error %q does not mention %q", err.Error(), contains)
	}
}

func i64(n int64) *int64 { return &n }

func TestInitializeNegotiatesAndAdvertisesTasks(t *testing.T) {
	inst := start(t, reference.Options{})
	cases := []struct {
		propose, want string
	}{
		{"2025-11-25", "2025-11-25"},
		{"2025-06-18", "2025-06-18"},
		{"1999-01-01", "2025-11-25"},
	}
	for _, tc := range cases {
		t.Run(tc.propose, func(t *testing.T) {
			c := client.New(inst.URL, client.WithProtocolVersion(tc.propose))
			defer c.Close(context.Background())
			res, err := c.Connect(testCtx(t))
			if err != nil {
				t.Fatal(err)
			}
			if res.ProtocolVersion != tc.want {
				t.Errorf("negotiated %q, want %q", res.ProtocolVersion, tc.want)
			}
			var caps struct {
				Tools *json.RawMessage `json:"tools"`
				Tasks struct {
					List     *json.RawMessage `json:"list"`
					Cancel   *json.RawMessage `json:"cancel"`
					Requests struct {
						Tools struct {
							Call *json.RawMessage `json:"call"`
						} `json:"tools"`
					} `json:"requests"`
				} `json:"tasks"`
			}
			if err := json.Unmarshal(res.Capabilities, &caps); err != nil {
				t.Fatal(err)
			}
			if caps.Tools == nil || caps.Tasks.List == nil || caps.Tasks.Cancel == nil || caps.Tasks.Requests.Tools.Call == nil {
				t.Errorf("capabilities %s lack tools or tasks.{list,cancel,requests.tools.call}", res.Capabilities)
			}
			if string(*caps.Tasks.List) != "{}" {
				t.Errorf("tasks.list = %s, want {}", *caps.Tasks.List)
			}
			sid := c.SessionID()
			if len(sid) < 16 {
				t.Errorf("session id %q too short", sid)
			}
			for _, r := range sid {
				if r < 0x21 || r > 0x7e {
					t.Errorf("session id %q has a non-visible character", sid)
				}
			}
			if _, err := c.Call(testCtx(t), "ping", nil); err != nil {
				t.Errorf("ping: %v", err)
			}
		})
	}
}

func TestToolsListAnnouncesTaskSupport(t *testing.T) {
	inst := start(t, reference.Options{})
	c := connect(t, inst.URL)
	tools, err := c.ListTools(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		server.FixtureSleepTool: "optional", server.FixtureSleepRequiredTool: "required", server.FixtureForbiddenTool: "forbidden",
		server.FixtureToolErrorTool: "optional", server.FixtureRPCErrorTool: "optional", server.FixtureInputTool: "required",
		server.FixtureProgressTool: "optional", server.FixtureInputMultiTool: "required", server.FixtureMRTRThenTaskTool: "required",
	}
	got := map[string]string{}
	for _, tl := range tools {
		got[tl.Name] = string(tl.TaskSupport())
		if tl.InputSchema.Type != "object" {
			t.Errorf("tool %s input schema %+v is not an object schema", tl.Name, tl.InputSchema)
		}
	}
	for name, ts := range want {
		if got[name] != ts {
			t.Errorf("tool %s taskSupport %q, want %q", name, got[name], ts)
		}
	}
}

func TestTaskLifecycleSleep(t *testing.T) {
	inst := start(t, reference.Options{})
	c := connect(t, inst.URL)
	ctx := testCtx(t)
	sent := time.Now()
	ct, err := c.CallToolAsTask(ctx, server.FixtureSleepTool, map[string]any{"ms": 700}, i64(60000))
	if err != nil {
		t.Fatal(err)
	}
	created := time.Since(sent)
	task := ct.Task
	if task.Status != "working" || task.TaskID == "" || task.TTL == nil || *task.TTL != 60000 || task.PollInterval == nil {
		t.Fatalf("CreateTaskResult task = %+v", task)
	}
	for _, ts := range []string{task.CreatedAt, task.LastUpdatedAt} {
		if _, err := time.Parse(time.RFC3339Nano, ts); err != nil || !strings.HasSuffix(ts, "Z") {
			t.Errorf("timestamp %q is not RFC 3339 UTC: %v", ts, err)
		}
	}
	got, err := c.GetTask(ctx, task.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != "working" {
		t.Errorf("tasks/get right after creation: %q", got.Status)
	}
	payload, err := c.Result(ctx, task.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	answered := time.Now()
	after, err := c.GetTask(ctx, task.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	if after.Status != "completed" {
		t.Fatalf("tasks/result answered while the task is %q", after.Status)
	}
	if id, ok := client.RelatedTaskID(payload); !ok || id != task.TaskID {
		t.Errorf("tasks/result payload %s lacks related-task %s", payload, task.TaskID)
	}
	var res struct {
		Content           []map[string]any `json:"content"`
		StructuredContent map[string]int   `json:"structuredContent"`
	}
	if err := json.Unmarshal(payload, &res); err != nil || res.StructuredContent["ms"] != 700 || len(res.Content) != 1 {
		t.Errorf("payload %s", payload)
	}
	done, _ := time.Parse(time.RFC3339Nano, after.LastUpdatedAt)
	t.Logf("CreateTaskResult after %v; tasks/result answered %v after the task completed", created, answered.Sub(done))
}

func TestPlainCallMatchesTaskResult(t *testing.T) {
	inst := start(t, reference.Options{})
	c := connect(t, inst.URL)
	ctx := testCtx(t)
	plain, err := c.CallTool(ctx, server.FixtureSleepTool, map[string]any{"ms": 5})
	if err != nil {
		t.Fatal(err)
	}
	ct, err := c.CallToolAsTask(ctx, server.FixtureSleepTool, map[string]any{"ms": 5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	payload, err := c.Result(ctx, ct.Task.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]json.RawMessage
	if err := json.Unmarshal(payload, &p); err != nil {
		t.Fatal(err)
	}
	delete(p, "_meta")
	stripped, _ := json.Marshal(p)
	var q map[string]json.RawMessage
	_ = json.Unmarshal(plain, &q)
	plainNorm, _ := json.Marshal(q)
	if string(stripped) != string(plainNorm) {
		t.Errorf("task result %s differs from plain result %s", stripped, plainNorm)
	}
	if _, err := c.CallTool(ctx, server.FixtureForbiddenTool, map[string]any{}); err != nil {
		t.Errorf("plain call of a forbidden tool: %v", err)
	}
}

func TestToolNegotiationErrors(t *testing.T) {
	inst := start(t, reference.Options{})
	c := connect(t, inst.URL)
	ctx := testCtx(t)
	_, err := c.CallTool(ctx, server.FixtureSleepRequiredTool, map[string]any{"ms": 1})
	wantCode(t, err, -32601, "task")
	_, err = c.CallToolAsTask(ctx, server.FixtureForbiddenTool, map[string]any{}, nil)
	wantCode(t, err, -32601, "task")
	_, err = c.CallToolAsTask(ctx, "no_such_tool", map[string]any{}, nil)
	wantCode(t, err, -32602, "no_such_tool")
	_, err = c.CallToolAsTask(ctx, server.FixtureSleepTool, map[string]any{"ms": "soon"}, nil)
	wantCode(t, err, -32602, "ms")
	_, err = c.CallToolAsTask(ctx, server.FixtureSleepTool, map[string]any{"ms": -5}, nil)
	wantCode(t, err, -32602, "ms")
	_, err = c.CallToolAsTask(ctx, server.FixtureInputTool, map[string]any{}, nil)
	wantCode(t, err, -32602, "question")
	all, err := c.ListAllTasks(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 0 {
		t.Errorf("refused calls created %d tasks", len(all))
	}
}

func TestFailedOutcomes(t *testing.T) {
	inst := start(t, reference.Options{})
	c := connect(t, inst.URL)
	ctx := testCtx(t)

	ct, err := c.CallToolAsTask(ctx, server.FixtureToolErrorTool, map[string]any{"ms": 10}, nil)
	if err != nil {
		t.Fatal(err)
	}
	payload, err := c.Result(ctx, ct.Task.TaskID)
	if err != nil {
		t.Fatalf("isError tool result must come back as a result: %v", err)
	}
	if !bytes.Contains(payload, []byte(`"isError":true`)) {
		t.Errorf("payload %s lacks isError", payload)
	}
	got, err := c.GetTask(ctx, ct.Task.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != "failed" || !strings.Contains(got.Message(), "deliberate tool failure") {
		t.Errorf("isError task: %q %q", got.Status, got.Message())
	}

	ct, err = c.CallToolAsTask(ctx, server.FixtureRPCErrorTool, map[string]any{"ms": 10}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Result(ctx, ct.Task.TaskID)
	var rpc *client.RPCError
	if !errors.As(err, &rpc) {
		t.Fatalf("rpc error task: want a JSON-RPC error, got %v", err)
	}
	if rpc.Code != server.FixtureRPCErrorCode || rpc.Message != "fixture_rpc_error: deliberate JSON-RPC error after 10 ms" || string(rpc.Data) != `{"ms":10}` {
		t.Errorf("replayed error %+v data %s", rpc, rpc.Data)
	}
	plainErr := func() error {
		_, err := c.CallTool(ctx, server.FixtureRPCErrorTool, map[string]any{"ms": 10})
		return err
	}()
	var plainRPC *client.RPCError
	if !errors.As(plainErr, &plainRPC) || plainRPC.Code != rpc.Code || plainRPC.Message != rpc.Message || string(plainRPC.Data) != string(rpc.Data) {
		t.Errorf("plain call error %v differs from the task's %v", plainErr, err)
	}
	got, _ = c.GetTask(ctx, ct.Task.TaskID)
	if got.Status != "failed" || got.Message() == "" {
		t.Errorf("rpc error task: %q %q", got.Status, got.Message())
	}
}

func TestCancel(t *testing.T) {
	inst := start(t, reference.Options{})
	c := connect(t, inst.URL)
	ctx := testCtx(t)
	ct, err := c.CallToolAsTask(ctx, server.FixtureSleepTool, map[string]any{"ms": 60000}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.CancelTask(ctx, ct.Task.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != "cancelled" || got.TaskID != ct.Task.TaskID {
		t.Fatalf("tasks/cancel answered %+v", got)
	}
	if g, _ := c.GetTask(ctx, ct.Task.TaskID); g.Status != "cancelled" {
		t.Errorf("after cancel tasks/get says %q", g.Status)
	}
	_, err = c.CancelTask(ctx, ct.Task.TaskID)
	wantCode(t, err, -32602, "terminal")
	_, err = c.Result(ctx, ct.Task.TaskID)
	wantCode(t, err, wire.CodeRequestCancelled, "")
	for deadline := time.Now().Add(5 * time.Second); inst.Engine.Running() != 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if n := inst.Engine.Running(); n != 0 {
		t.Errorf("the work of %d tasks did not stop after cancel", n)
	}
	// A completed task cannot be cancelled either.
	ct, err = c.CallToolAsTask(ctx, server.FixtureSleepTool, map[string]any{"ms": 0}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Result(ctx, ct.Task.TaskID); err != nil {
		t.Fatal(err)
	}
	_, err = c.CancelTask(ctx, ct.Task.TaskID)
	wantCode(t, err, -32602, `"completed"`)
}

func TestUnknownTaskIDs(t *testing.T) {
	inst := start(t, reference.Options{})
	c := connect(t, inst.URL)
	ctx := testCtx(t)
	for _, method := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
		_, err := c.Call(ctx, method, map[string]any{"taskId": "00000000-0000-4000-8000-000000000000"})
		wantCode(t, err, -32602, "not found")
		_, err = c.Call(ctx, method, map[string]any{"taskId": 42})
		wantCode(t, err, -32602, "taskId")
		_, err = c.Call(ctx, method, map[string]any{})
		wantCode(t, err, -32602, "taskId")
	}
}

func TestListPagination(t *testing.T) {
	inst := start(t, reference.Options{Config: tasks.Config{PageSize: 2}})
	c := connect(t, inst.URL)
	ctx := testCtx(t)
	var ids []string
	for range 5 {
		ct, err := c.CallToolAsTask(ctx, server.FixtureSleepTool, map[string]any{"ms": 0}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, ct.Task.TaskID)
	}
	first, err := c.ListTasks(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Tasks) != 2 || first.Next() == "" {
		t.Fatalf("first page: %d tasks, cursor %q", len(first.Tasks), first.Next())
	}
	all, err := c.ListAllTasks(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tk := range all {
		got = append(got, tk.TaskID)
	}
	slices.Sort(got)
	slices.Sort(ids)
	if !slices.Equal(got, ids) {
		t.Errorf("listed %v, created %v", got, ids)
	}
	_, err = c.ListTasks(ctx, "not-a-cursor")
	wantCode(t, err, -32602, "cursor")
}

func TestIsolationBetweenSessions(t *testing.T) {
	inst := start(t, reference.Options{})
	a := connect(t, inst.URL)
	b := connect(t, inst.URL)
	ctx := testCtx(t)
	ct, err := a.CallToolAsTask(ctx, server.FixtureSleepTool, map[string]any{"ms": 60000}, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := ct.Task.TaskID
	for _, method := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
		_, err := b.Call(ctx, method, map[string]any{"taskId": id})
		wantCode(t, err, -32602, "")
	}
	list, err := b.ListAllTasks(ctx, 10)
	if err != nil || len(list) != 0 {
		t.Errorf("session B lists %d tasks (%v)", len(list), err)
	}
	if g, err := a.GetTask(ctx, id); err != nil || g.Status != "working" {
		t.Errorf("owner's view after B's attempts: %+v %v", g, err)
	}
}

func TestBearerTokens(t *testing.T) {
	verifier := server.NewStaticTokens(map[string]string{"tok-a1": "alice", "tok-a2": "alice", "tok-b": "bob"})
	inst := start(t, reference.Options{ServerOptions: []server.Option{server.WithTokenVerifier(verifier)}})
	ctx := testCtx(t)
	a1 := connect(t, inst.URL, client.WithHeader("Authorization", "Bearer tok-a1"))
	a2 := connect(t, inst.URL, client.WithHeader("Authorization", "Bearer tok-a2"))
	b := connect(t, inst.URL, client.WithHeader("Authorization", "Bearer tok-b"))
	ct, err := a1.CallToolAsTask(ctx, server.FixtureSleepTool, map[string]any{"ms": 0}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a2.Result(ctx, ct.Task.TaskID); err != nil {
		t.Errorf("same subject, other session: %v", err)
	}
	_, err = b.GetTask(ctx, ct.Task.TaskID)
	wantCode(t, err, -32602, "")

	for _, hdr := range []string{"", "Bearer nope", "Basic abc"} {
		c := client.New(inst.URL)
		if hdr != "" {
			c = client.New(inst.URL, client.WithHeader("Authorization", hdr))
		}
		_, err := c.Connect(ctx)
		var he *client.HTTPError
		if !errors.As(err, &he) || he.StatusCode != http.StatusUnauthorized {
			t.Errorf("Authorization %q: want HTTP 401, got %v", hdr, err)
		}
	}
	// A session cannot be used with another identity's token.
	_, err = a1.Call(ctx, "ping", nil, client.WithCallHeader("Authorization", "Bearer tok-b"))
	var he *client.HTTPError
	if !errors.As(err, &he) || he.StatusCode != http.StatusForbidden {
		t.Errorf("session hijack: want HTTP 403, got %v", err)
	}
}

func TestAnonymousAllowedWithTokens(t *testing.T) {
	verifier := server.NewStaticTokens(map[string]string{"tok": "alice"})
	inst := start(t, reference.Options{ServerOptions: []server.Option{server.WithTokenVerifier(verifier), server.WithAllowAnonymous(true)}})
	c := connect(t, inst.URL)
	if _, err := c.CallToolAsTask(testCtx(t), server.FixtureSleepTool, map[string]any{"ms": 0}, nil); err != nil {
		t.Errorf("anonymous requestor with --allow-anonymous: %v", err)
	}
}

func TestStatusAndProgressNotifications(t *testing.T) {
	inst := start(t, reference.Options{})
	ctx := testCtx(t)
	a := connect(t, inst.URL)
	other := connect(t, inst.URL)
	if err := a.OpenStream(ctx); err != nil {
		t.Fatal(err)
	}
	if err := other.OpenStream(ctx); err != nil {
		t.Fatal(err)
	}
	params := map[string]any{
		"name":      server.FixtureProgressTool,
		"arguments": map[string]any{"ms": 60, "steps": 3},
		"task":      map[string]any{},
		"_meta":     map[string]any{"progressToken": "tok-1"},
	}
	raw, err := a.Call(ctx, "tools/call", params)
	if err != nil {
		t.Fatal(err)
	}
	var ct schema.CreateTaskResult
	if err := json.Unmarshal(raw, &ct); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Result(ctx, ct.Task.TaskID); err != nil {
		t.Fatal(err)
	}
	var progress []float64
	var statuses []string
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		progress, statuses = progress[:0], statuses[:0]
		for _, m := range a.Notifications() {
			switch m.Method {
			case "notifications/progress":
				var p struct {
					Token    string  `json:"progressToken"`
					Progress float64 `json:"progress"`
					Total    float64 `json:"total"`
				}
				_ = json.Unmarshal(m.Params(), &p)
				if p.Token != "tok-1" || p.Total != 3 {
					t.Errorf("progress %s", m.Params())
				}
				if id, ok := client.RelatedTaskID(m.Params()); !ok || id != ct.Task.TaskID {
					t.Errorf("progress without related-task: %s", m.Params())
				}
				progress = append(progress, p.Progress)
			case "notifications/tasks/status":
				var tk schema.Task
				_ = json.Unmarshal(m.Params(), &tk)
				if tk.TaskID != ct.Task.TaskID || tk.CreatedAt == "" || tk.LastUpdatedAt == "" {
					t.Errorf("status notification %s", m.Params())
				}
				if _, ok := client.RelatedTaskID(m.Params()); ok {
					t.Errorf("status notification carries related-task: %s", m.Params())
				}
				statuses = append(statuses, string(tk.Status))
			}
		}
		if len(statuses) > 0 && len(progress) == 3 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !slices.Equal(progress, []float64{1, 2, 3}) {
		t.Errorf("progress values %v, want [1 2 3]", progress)
	}
	if !slices.Equal(statuses, []string{"completed"}) {
		t.Errorf("status notifications %v, want [completed]", statuses)
	}
	for _, m := range other.Notifications() {
		if m.Method == "notifications/tasks/status" || m.Method == "notifications/progress" {
			t.Errorf("another requestor received %s", m.Raw)
		}
	}
}

func TestInputRequired(t *testing.T) {
	inst := start(t, reference.Options{})
	ctx := testCtx(t)
	var mu sync.Mutex
	var elicit *client.Message
	handler := func(ctx context.Context, req *client.Message) (any, error) {
		mu.Lock()
		elicit = req
		mu.Unlock()
		return map[string]any{"action": "accept", "content": map[string]any{"answer": "42"}}, nil
	}
	c := connect(t, inst.URL, client.WithRequestHandler(handler))
	// No GET stream is open, so the request waits for tasks/result
	// (TestPollOnlyClientAnswersOnGETStream covers the other way).
	ct, err := c.CallToolAsTask(ctx, server.FixtureInputTool, map[string]any{"question": "meaning of life?"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := ct.Task.TaskID
	// The task asks for input before anyone calls tasks/result.
	for {
		g, err := c.GetTask(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if g.Status == "input_required" {
			break
		}
		if g.Status != "working" {
			t.Fatalf("status %q before input", g.Status)
		}
		time.Sleep(10 * time.Millisecond)
	}
	payload, err := c.Result(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(payload, []byte(`"answer":"42"`)) {
		t.Errorf("payload %s", payload)
	}
	// The status notifications waited in the session's queue.
	if err := c.OpenStream(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if elicit == nil {
		t.Fatal("no elicitation/create reached the client")
	}
	if elicit.Method != "elicitation/create" || elicit.Stream != client.StreamPOST {
		t.Errorf("elicitation %s on stream %s", elicit.Method, elicit.Stream)
	}
	if rid, ok := client.RelatedTaskID(elicit.Params()); !ok || rid != id {
		t.Errorf("elicitation lacks related-task: %s", elicit.Params())
	}
	var p struct {
		Message         string          `json:"message"`
		RequestedSchema json.RawMessage `json:"requestedSchema"`
	}
	if err := json.Unmarshal(elicit.Params(), &p); err != nil || p.Message != "meaning of life?" || len(p.RequestedSchema) == 0 {
		t.Errorf("elicitation params %s", elicit.Params())
	}
	var statuses []string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		statuses = statuses[:0]
		for _, m := range c.Notifications() {
			if m.Method == "notifications/tasks/status" {
				var tk schema.Task
				_ = json.Unmarshal(m.Params(), &tk)
				statuses = append(statuses, string(tk.Status))
			}
		}
		if len(statuses) >= 3 {
			break
		}
	}
	if len(statuses) != 3 || statuses[2] != "completed" || statuses[0] != "input_required" || statuses[1] != "working" {
		t.Errorf("status notifications %v, want input_required, working, completed", statuses)
	}
	if len(statuses) < 2 || statuses[0] != "input_required" || statuses[1] != "working" {
		t.Errorf("status notifications %v, want input_required, working, completed", statuses)
	}
}

func TestCancelledNotificationEndsOnlyTheRetrieval(t *testing.T) {
	inst := start(t, reference.Options{})
	c := connect(t, inst.URL)
	ctx := testCtx(t)
	ct, err := c.CallToolAsTask(ctx, server.FixtureSleepTool, map[string]any{"ms": 60000}, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.Result(ctx, ct.Task.TaskID, client.WithRequestID(json.RawMessage(`"result-1"`)))
		done <- err
	}()
	time.Sleep(100 * time.Millisecond) // let the request arrive
	if err := c.CancelRequest(ctx, json.RawMessage(`"result-1"`), "no longer interested"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Error("a cancelled tasks/result still got a response")
		}
	case <-ctx.Done():
		t.Fatal("tasks/result did not end after notifications/cancelled")
	}
	g, err := c.GetTask(ctx, ct.Task.TaskID)
	if err != nil || g.Status != "working" {
		t.Errorf("task after abandoned retrieval: %+v %v", g, err)
	}
	// Cancelling the tools/call that created the task does not cancel it.
	if err := c.CancelRequest(ctx, json.RawMessage(`1`), ""); err != nil {
		t.Fatal(err)
	}
	if g, _ := c.GetTask(ctx, ct.Task.TaskID); g.Status != "working" {
		t.Errorf("task status %q after cancelling its creating request", g.Status)
	}
}

func TestTTLPolicy(t *testing.T) {
	inst := start(t, reference.Options{Config: tasks.Config{MaxTTL: time.Hour, DefaultTTL: time.Minute}})
	c := connect(t, inst.URL)
	ctx := testCtx(t)
	cases := []struct {
		name string
		ttl  json.RawMessage
		want int64
	}{
		{"none gives default", nil, 60000},
		{"within max", json.RawMessage(`5000`), 5000},
		{"beyond max clamped", json.RawMessage(`999999999999`), 3600000},
		{"beyond int64 clamped", json.RawMessage(`1e30`), 3600000},
		{"integral float accepted", json.RawMessage(`2000.0`), 2000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			task := map[string]any{}
			if tc.ttl != nil {
				task["ttl"] = tc.ttl
			}
			raw, err := c.Call(ctx, "tools/call", map[string]any{"name": server.FixtureSleepTool, "arguments": map[string]any{}, "task": task})
			if err != nil {
				t.Fatal(err)
			}
			var ct schema.CreateTaskResult
			_ = json.Unmarshal(raw, &ct)
			if ct.Task.TTL == nil || *ct.Task.TTL != tc.want {
				t.Errorf("ttl %v, want %d", ct.Task.TTL, tc.want)
			}
		})
	}
	unlimited := start(t, reference.Options{Config: tasks.Config{DefaultTTL: tasks.Unlimited, MaxTTL: tasks.Unlimited}})
	u := connect(t, unlimited.URL)
	raw, err := u.Call(ctx, "tools/call", map[string]any{"name": server.FixtureSleepTool, "task": map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(raw, []byte(`"ttl":null`)) {
		t.Errorf("unlimited ttl not null: %s", raw)
	}
	g, err := u.Call(ctx, "tasks/get", map[string]any{"taskId": func() string {
		var ct schema.CreateTaskResult
		_ = json.Unmarshal(raw, &ct)
		return ct.Task.TaskID
	}()})
	if err != nil || !bytes.Contains(g, []byte(`"ttl":null`)) {
		t.Errorf("tasks/get of unlimited task: %s %v", g, err)
	}
}

func TestVariablesInGetMeta(t *testing.T) {
	inst := start(t, reference.Options{NoFixtures: true, ServerOptions: []server.Option{server.WithTools(server.Tool{
		Name: "tag", TaskSupport: server.TaskOptional,
		Handler: func(ctx context.Context, call *server.ToolCall) (json.RawMessage, error) {
			if err := call.Task.SetVariables(map[string]json.RawMessage{
				"server.stage":                         json.RawMessage(`"tagged"`),
				"io.modelcontextprotocol/related-task": json.RawMessage(`{"taskId":"spoof"}`),
			}); err != nil {
				return nil, err
			}
			return json.RawMessage(`{"content":[]}`), nil
		},
	})}})
	c := connect(t, inst.URL)
	ctx := testCtx(t)
	ct, err := c.CallToolAsTask(ctx, "tag", map[string]any{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Result(ctx, ct.Task.TaskID); err != nil {
		t.Fatal(err)
	}
	g, err := c.GetTask(ctx, ct.Task.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	meta := g.Meta
	if string(meta["server.stage"]) != `"tagged"` {
		t.Errorf("variable missing from _meta: %v", g.Meta)
	}
	if _, ok := meta["io.modelcontextprotocol/related-task"]; ok {
		t.Errorf("a variable posed as MCP metadata: %v", g.Meta)
	}
}

// rawPost sends body to url with the given session and returns status and body.
func rawPost(t *testing.T, url, session string, body string, hdr ...string) (int, http.Header, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set(server.HeaderSessionID, session)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

func rpcCode(t *testing.T, body []byte) (int64, string, json.RawMessage) {
	t.Helper()
	var m struct {
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &m); err != nil || m.Error == nil {
		t.Fatalf("not a JSON-RPC error: %s", body)
	}
	return m.Error.Code, m.Error.Message, m.ID
}

func TestBadInput(t *testing.T) {
	inst := start(t, reference.Options{ServerOptions: []server.Option{server.WithMaxBodyBytes(4096)}})
	c := connect(t, inst.URL)
	sid := c.SessionID()
	ct, err := c.CallToolAsTask(testCtx(t), server.FixtureSleepTool, map[string]any{"ms": 60000}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		body     string
		status   int
		code     int64
		contains string
	}{
		{"malformed JSON", `{"jsonrpc":"2.0","id":1,"method":`, 400, -32700, "JSON"},
		{"not an object", `"hello"`, 400, -32600, ""},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, 400, -32600, "batch"},
		{"no jsonrpc", `{"id":1,"method":"ping"}`, 400, -32600, "jsonrpc"},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, 400, -32600, "id"},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, 400, -32600, "id"},
		{"params array", `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":[1]}`, 400, -32600, "params"},
		{"unknown method", `{"jsonrpc":"2.0","id":1,"method":"tasks/destroy","params":{}}`, 200, -32601, "tasks/destroy"},
		{"taskId number", `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":7}}`, 200, -32602, "taskId"},
		{"taskId missing", `{"jsonrpc":"2.0","id":1,"method":"tasks/cancel","params":{}}`, 200, -32602, "taskId"},
		{"ttl negative", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fixture_sleep","task":{"ttl":-1}}}`, 200, -32602, "task.ttl"},
		{"ttl fractional", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fixture_sleep","task":{"ttl":1500.5}}}`, 200, -32602, "task.ttl"},
		{"ttl string", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fixture_sleep","task":{"ttl":"1s"}}}`, 200, -32602, "task.ttl"},
		{"name number", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}`, 200, -32602, "name"},
		{"arguments array", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fixture_sleep","arguments":[]}}`, 200, -32602, "arguments"},
		{"cursor number", `{"jsonrpc":"2.0","id":1,"method":"tasks/list","params":{"cursor":3}}`, 200, -32602, "cursor"},
		{"oversize", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 5000) + `"}}`, 413, -32600, "4096"},
		{"unknown response", `{"jsonrpc":"2.0","id":"nobody","result":{}}`, 400, -32600, "pending"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, _, body := rawPost(t, inst.URL, sid, tc.body, server.HeaderProtocolVersion, "2025-11-25")
			if status != tc.status {
				t.Errorf("HTTP %d, want %d (%s)", status, tc.status, body)
			}
			code, msg, _ := rpcCode(t, body)
			if code != tc.code || !strings.Contains(msg, tc.contains) {
				t.Errorf("error %d %q, want %d mentioning %q", code, msg, tc.code, tc.contains)
			}
		})
	}
	all, err := c.ListAllTasks(testCtx(t), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 || all[0].TaskID != ct.Task.TaskID || all[0].Status != "working" {
		t.Errorf("bad input changed tasks: %+v", all)
	}
}

func TestHTTPTransportRules(t *testing.T) {
	inst := start(t, reference.Options{})
	c := connect(t, inst.URL)
	sid := c.SessionID()
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	if st, _, b := rawPost(t, inst.URL, "", ping); st != http.StatusBadRequest {
		t.Errorf("no session: HTTP %d %s", st, b)
	}
	if st, _, b := rawPost(t, inst.URL, "unknown-session", ping); st != http.StatusNotFound {
		t.Errorf("unknown session: HTTP %d %s", st, b)
	}
	if st, _, b := rawPost(t, inst.URL, sid, ping, server.HeaderProtocolVersion, "1999-01-01"); st != http.StatusBadRequest {
		t.Errorf("bad protocol version: HTTP %d %s", st, b)
	}
	if st, _, b := rawPost(t, inst.URL, sid, ping, "Origin", "https://evil.example"); st != http.StatusForbidden {
		t.Errorf("foreign origin: HTTP %d %s", st, b)
	} else if code, _, id := rpcCode(t, b); code == 0 || len(id) != 0 {
		t.Errorf("403 body %s", b)
	}
	if st, h, b := rawPost(t, inst.URL, sid, ping, "Origin", "http://localhost:3000"); st != http.StatusOK || !strings.HasPrefix(h.Get("Content-Type"), "application/json") {
		t.Errorf("loopback origin: HTTP %d %s", st, b)
	}
	if st, _, b := rawPost(t, inst.URL, sid, ping); st != http.StatusOK || !bytes.Contains(b, []byte(`"result":{}`)) {
		t.Errorf("ping without version header: HTTP %d %s", st, b)
	}
	if st, _, b := rawPost(t, inst.URL, sid, `{"jsonrpc":"2.0","method":"notifications/whatever"}`); st != http.StatusAccepted || len(b) != 0 {
		t.Errorf("notification: HTTP %d %q", st, b)
	}
	req, _ := http.NewRequest(http.MethodPut, inst.URL, nil)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("PUT: %v %v", resp, err)
	}
	req, _ = http.NewRequest(http.MethodGet, inst.URL, nil)
	req.Header.Set("Accept", "text/event-stream")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusBadRequest {
		t.Errorf("GET without session: %v %v", resp, err)
	}
	// GET stream: SSE with a priming event.
	ctx, cancel := context.WithCancel(context.Background())
	req, _ = http.NewRequestWithContext(ctx, http.MethodGet, inst.URL, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(server.HeaderSessionID, sid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Errorf("GET stream: HTTP %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	first := make([]byte, 64)
	n, _ := resp.Body.Read(first)
	if !strings.HasPrefix(string(first[:n]), "id: ") || !strings.Contains(string(first[:n]), "data: \n\n") {
		t.Errorf("GET stream does not start with a priming event: %q", first[:n])
	}
	cancel()
	resp.Body.Close()
	// DELETE ends the session.
	req, _ = http.NewRequest(http.MethodDelete, inst.URL, nil)
	req.Header.Set(server.HeaderSessionID, sid)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusNoContent {
		t.Errorf("DELETE: %v %v", resp, err)
	}
	if st, _, b := rawPost(t, inst.URL, sid, ping); st != http.StatusNotFound {
		t.Errorf("after DELETE: HTTP %d %s", st, b)
	}
}

func TestLimitPerOwner(t *testing.T) {
	inst := start(t, reference.Options{Config: tasks.Config{MaxTasksPerOwner: 2}})
	c := connect(t, inst.URL)
	ctx := testCtx(t)
	for range 2 {
		if _, err := c.CallToolAsTask(ctx, server.FixtureSleepTool, map[string]any{"ms": 60000}, nil); err != nil {
			t.Fatal(err)
		}
	}
	_, err := c.CallToolAsTask(ctx, server.FixtureSleepTool, map[string]any{"ms": 60000}, nil)
	if _, ok := client.ErrorCode(err); !ok || !strings.Contains(err.Error(), "limit") {
		t.Errorf("third task: %v", err)
	}
	other := connect(t, inst.URL)
	if _, err := other.CallToolAsTask(ctx, server.FixtureSleepTool, map[string]any{"ms": 0}, nil); err != nil {
		t.Errorf("another owner is not limited: %v", err)
	}
}

func TestConcurrentClients(t *testing.T) {
	inst := start(t, reference.Options{})
	ctx := testCtx(t)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Go(func() {
			c := client.New(inst.URL)
			defer c.Close(context.Background())
			if _, err := c.Connect(ctx); err != nil {
				errs <- err
				return
			}
			for j := range 5 {
				ct, err := c.CallToolAsTask(ctx, server.FixtureSleepTool, map[string]any{"ms": (i + j) % 7}, nil)
				if err != nil {
					errs <- err
					return
				}
				p, err := c.Result(ctx, ct.Task.TaskID)
				if err != nil {
					errs <- err
					return
				}
				if !bytes.Contains(p, []byte(fmt.Sprintf(`"ms":%d`, (i+j)%7))) {
					errs <- fmt.Errorf("wrong payload %s", p)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestTwoInstancesShareOneStore(t *testing.T) {
	cfg := tasks.Config{PollInterval: 50 * time.Millisecond}.WithDefaults()
	shared := memory.New(cfg)
	defer shared.Close()
	tokens := server.NewStaticTokens(map[string]string{"tok": "alice"})
	opts := reference.Options{Config: cfg, Store: shared, ServerOptions: []server.Option{server.WithTokenVerifier(tokens)}}
	a := start(t, opts)
	b := start(t, opts)
	ctx := testCtx(t)
	ca := connect(t, a.URL, client.WithHeader("Authorization", "Bearer tok"))
	cb := connect(t, b.URL, client.WithHeader("Authorization", "Bearer tok"))

	ct, err := ca.CallToolAsTask(ctx, server.FixtureSleepTool, map[string]any{"ms": 200}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if g, err := cb.GetTask(ctx, ct.Task.TaskID); err != nil || g.Status != "working" {
		t.Fatalf("instance B sees %+v %v", g, err)
	}
	if p, err := cb.Result(ctx, ct.Task.TaskID); err != nil || !bytes.Contains(p, []byte(`"ms":200`)) {
		t.Fatalf("result awaited on B: %s %v", p, err)
	}
	ct, err = ca.CallToolAsTask(ctx, server.FixtureSleepTool, map[string]any{"ms": 60000}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if g, err := cb.CancelTask(ctx, ct.Task.TaskID); err != nil || g.Status != "cancelled" {
		t.Fatalf("cancel on B: %+v %v", g, err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for a.Engine.Running() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := a.Engine.Running(); n != 0 {
		t.Errorf("instance A still runs %d tasks after a cancel on B", n)
	}
	if g, _ := ca.GetTask(ctx, ct.Task.TaskID); g.Status != "cancelled" {
		t.Errorf("A sees %q", g.Status)
	}
	list, err := cb.ListAllTasks(ctx, 10)
	if err != nil || len(list) != 2 {
		t.Errorf("B lists %d tasks (%v)", len(list), err)
	}
}

func TestInputWithoutElicitationCapability(t *testing.T) {
	inst := start(t, reference.Options{})
	c := connect(t, inst.URL, client.WithCapabilities(json.RawMessage(`{}`)))
	ctx := testCtx(t)
	ct, err := c.CallToolAsTask(ctx, server.FixtureInputTool, map[string]any{"question": "q?"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Result(ctx, ct.Task.TaskID)
	wantCode(t, err, -32600, "elicitation")
	if g, _ := c.GetTask(ctx, ct.Task.TaskID); g.Status != "failed" {
		t.Errorf("status %q", g.Status)
	}
}

func TestIdleSessionsAreForgotten(t *testing.T) {
	inst := start(t, reference.Options{ServerOptions: []server.Option{server.WithSessionIdleTimeout(50 * time.Millisecond)}})
	ctx := testCtx(t)
	idle := connect(t, inst.URL)
	streaming := connect(t, inst.URL)
	if err := streaming.OpenStream(ctx); err != nil {
		t.Fatal(err)
	}
	// The sweep runs on a timer: nothing else happens on the server.
	waitFor(t, 10*time.Second, "the idle session to be forgotten", func() bool { return inst.Server.SessionCount() == 1 })
	_, err := idle.Call(ctx, "ping", nil)
	var he *client.HTTPError
	if !errors.As(err, &he) || he.StatusCode != http.StatusNotFound {
		t.Errorf("idle session: want HTTP 404, got %v", err)
	}
	if _, err := streaming.Call(ctx, "ping", nil); err != nil {
		t.Errorf("a session with an open stream was forgotten: %v", err)
	}
}

// Every message the server sends in a typical session must validate
// against its schema $def (the whole message, and the result against the
// result type of its request).
func TestWireMessagesValidate(t *testing.T) {
	inst := start(t, reference.Options{})
	ctx := testCtx(t)
	var mu sync.Mutex
	var problems []string
	checked := 0
	observe := func(m *client.Message) {
		if m.Direction != client.Received || m.Def == "" {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		checked++
		if err := schema.Validate(m.Def, m.Raw); err != nil {
			problems = append(problems, fmt.Sprintf("%s as %s: %v\n%s", m.Method, m.Def, err, m.Raw))
		}
		if m.Kind == client.KindResult && m.ResultDef != "" {
			if err := schema.Validate(m.ResultDef, m.Result()); err != nil {
				problems = append(problems, fmt.Sprintf("%s result as %s: %v\n%s", m.Method, m.ResultDef, err, m.Result()))
			}
		}
	}
	answer := func(context.Context, *client.Message) (any, error) {
		return map[string]any{"action": "accept", "content": map[string]any{"answer": "yes"}}, nil
	}
	c := connect(t, inst.URL, client.WithObserver(observe), client.WithRequestHandler(answer))
	if err := c.OpenStream(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListTools(ctx); err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{server.FixtureSleepTool, server.FixtureToolErrorTool, server.FixtureRPCErrorTool, server.FixtureInputTool} {
		args := map[string]any{"ms": 1}
		if tool == server.FixtureInputTool {
			args = map[string]any{"question": "ok?"}
		}
		ct, err := c.CallToolAsTask(ctx, tool, args, i64(30000))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = c.GetTask(ctx, ct.Task.TaskID)
		_, _ = c.Result(ctx, ct.Task.TaskID)
	}
	params := map[string]any{"name": server.FixtureProgressTool, "arguments": map[string]any{"ms": 3, "steps": 3}, "_meta": map[string]any{"progressToken": 5}}
	if _, err := c.Call(ctx, "tools/call", params); err != nil {
		t.Fatal(err)
	}
	params["task"] = map[string]any{}
	if _, err := c.Call(ctx, "tools/call", params); err != nil {
		t.Fatal(err)
	}
	ct, err := c.CallToolAsTask(ctx, server.FixtureSleepTool, map[string]any{"ms": 60000}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = c.CancelTask(ctx, ct.Task.TaskID)
	_, _ = c.ListAllTasks(ctx, 5)
	_, _ = c.Call(ctx, "tasks/get", map[string]any{"taskId": 1})
	time.Sleep(100 * time.Millisecond) // let the GET stream deliver the last notifications
	mu.Lock()
	defer mu.Unlock()
	if checked < 20 {
		t.Errorf("only %d messages checked", checked)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// waitFor polls cond until it holds, failing the test after d.
func waitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A task's work cannot set a variable name outside the _meta key grammar
// or under client., and can extend its ttl up to the maximum; tasks/get
// shows the ttl in force and only valid names.
func TestTaskVariableNamesAndTTLOnTheWire(t *testing.T) {
	inst := start(t, reference.Options{NoFixtures: true, Config: tasks.Config{MaxTTL: 3 * time.Hour},
		ServerOptions: []server.Option{server.WithTools(server.Tool{
			Name: "stretch", TaskSupport: server.TaskOptional,
			Handler: func(ctx context.Context, call *server.ToolCall) (json.RawMessage, error) {
				for _, bad := range []string{"bad key!", "client.answer"} {
					err := call.Task.SetVariables(map[string]json.RawMessage{bad: json.RawMessage(`1`)})
					if !errors.Is(err, tasks.ErrInvalidVariableName) {
						return nil, fmt.Errorf("SetVariables(%q) = %v", bad, err)
					}
				}
				if _, err := call.Task.ExtendTTL(4 * time.Hour); !errors.Is(err, tasks.ErrInvalidParams) {
					return nil, fmt.Errorf("ExtendTTL beyond the maximum = %v", err)
				}
				if _, err := call.Task.ExtendTTL(2 * time.Hour); err != nil {
					return nil, err
				}
				return json.RawMessage(`{"content":[]}`), nil
			},
		})}})
	c := connect(t, inst.URL)
	ctx := testCtx(t)
	ttl := int64(60_000)
	ct, err := c.CallToolAsTask(ctx, "stretch", map[string]any{}, &ttl)
	if err != nil {
		t.Fatal(err)
	}
	if ct.Task.TTL == nil || *ct.Task.TTL != 60_000 {
		t.Errorf("created with ttl %v", ct.Task.TTL)
	}
	res, err := c.Result(ctx, ct.Task.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	g, err := c.GetTask(ctx, ct.Task.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	if g.Status != "completed" {
		t.Fatalf("task %s (%v): %s", g.Status, g.StatusMessage, res)
	}
	if g.TTL == nil || *g.TTL != 2*3600*1000 {
		t.Errorf("tasks/get ttl %v, want the extended 7200000", g.TTL)
	}
	if len(g.Meta) != 0 {
		t.Errorf("refused variables reached _meta: %v", g.Meta)
	}
	if code := protocol.RPCCode(tasks.ErrInvalidVariableName); code != -32602 {
		t.Errorf("ErrInvalidVariableName maps to %d", code)
	}
}

// A tool with an ImmediateResponse names it in the CreateTaskResult's
// _meta; a plain call and a tool without one send none.
func TestModelImmediateResponse(t *testing.T) {
	done := json.RawMessage(`{"content":[]}`)
	inst := start(t, reference.Options{NoFixtures: true, ServerOptions: []server.Option{server.WithTools(
		server.Tool{Name: "report", TaskSupport: server.TaskOptional,
			ImmediateResponse: func(args json.RawMessage) string {
				return "Writing the report for " + string(args) + "; it will be ready shortly."
			},
			Handler: func(context.Context, *server.ToolCall) (json.RawMessage, error) { return done, nil }},
		server.Tool{Name: "quiet", TaskSupport: server.TaskOptional,
			Handler: func(context.Context, *server.ToolCall) (json.RawMessage, error) { return done, nil }},
	)}})
	c := connect(t, inst.URL)
	ctx := testCtx(t)
	raw, err := c.Call(ctx, "tools/call", map[string]any{"name": "report", "arguments": map[string]any{"q": 1}, "task": map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	var ct schema.CreateTaskResult
	if err := json.Unmarshal(raw, &ct); err != nil {
		t.Fatal(err)
	}
	msg, ok, err := ct.Meta.ModelImmediateResponse()
	if err != nil || !ok || msg != `Writing the report for {"q":1}; it will be ready shortly.` || ct.Task.TaskID == "" {
		t.Errorf("CreateTaskResult %s: %q %v %v", raw, msg, ok, err)
	}
	for _, p := range []map[string]any{
		{"name": "quiet", "task": map[string]any{}},
		{"name": "report"},
	} {
		raw, err := c.Call(ctx, "tools/call", p)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(raw, []byte("model-immediate-response")) {
			t.Errorf("%v answered with a model-immediate-response: %s", p, raw)
		}
	}
}
