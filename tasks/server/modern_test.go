package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/schema/exttasks"
	"github.com/mcptasks/mcptasks/schema/v20260728"
	"github.com/mcptasks/mcptasks/tasks/client"
	"github.com/mcptasks/mcptasks/tasks/server"
	"github.com/mcptasks/mcptasks/tasks/server/reference"
)

// modernMeta is the _meta of a 2026-07-28 request that declares the
// extension.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`

func wantModernCode(t *testing.T, err error, code int64) *client.RPCError {
	t.Helper()
	var rpc *client.RPCError
	if !errors.As(err, &rpc) || rpc.Code != code {
		t.Fatalf("error %v, want JSON-RPC code %d", err, code)
	}
	return rpc
}

func validateExt(t *testing.T, def string, v any) {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := exttasks.Validate(def, raw); err != nil {
		t.Errorf("%s does not validate: %v\n%s", def, err, raw)
	}
}

func TestModernProfileLifecycle(t *testing.T) {
	inst := start(t, reference.Options{})
	ctx := testCtx(t)
	m := client.NewModern(inst.URL)

	d, err := m.Discover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := d.Capabilities.Extensions[exttasks.ExtensionID]; !ok || d.ResultType != "complete" {
		t.Errorf("discover: %+v", d)
	}
	raw, _ := m.Call(ctx, "server/discover", nil)
	if strings.Contains(string(raw), `"tasks"`) {
		t.Errorf("discover advertises the legacy capabilities.tasks: %s", raw)
	}
	if err := v20260728.Validate("DiscoverResult", raw); err != nil {
		t.Errorf("discover result: %v", err)
	}
	raw, err = m.Call(ctx, "tools/list", nil)
	if err != nil || strings.Contains(string(raw), "taskSupport") {
		t.Errorf("tools/list: %v %s", err, raw)
	}
	if err := v20260728.Validate("ListToolsResult", raw); err != nil {
		t.Errorf("tools/list result: %v", err)
	}

	res, err := m.CallTool(ctx, server.FixtureSleepTool, map[string]any{"ms": 50})
	if err != nil || res.Task == nil {
		t.Fatalf("create: %v %+v", err, res)
	}
	validateExt(t, "CreateTaskResult", res.Task)
	got, err := m.Poll(ctx, res.Task.TaskID, 20*time.Millisecond, nil)
	if err != nil || got.Status != exttasks.TaskStatusCompleted || len(got.Result) == 0 || got.ResultType != "complete" {
		t.Fatalf("poll: %v %+v", err, got)
	}
	validateExt(t, "GetTaskResult", got)

	// isError ends completed with the result; a JSON-RPC error ends failed.
	res, _ = m.CallTool(ctx, server.FixtureToolErrorTool, map[string]any{"ms": 10})
	got, err = m.Poll(ctx, res.Task.TaskID, 20*time.Millisecond, nil)
	if err != nil || got.Status != exttasks.TaskStatusCompleted || !strings.Contains(string(got.Result), `"isError":true`) {
		t.Errorf("isError task: %v %+v", err, got)
	}
	res, _ = m.CallTool(ctx, server.FixtureRPCErrorTool, map[string]any{"ms": 10})
	got, err = m.Poll(ctx, res.Task.TaskID, 20*time.Millisecond, nil)
	if err != nil || got.Status != exttasks.TaskStatusFailed || got.Error == nil || got.Error.Code != server.FixtureRPCErrorCode {
		t.Errorf("rpc-error task: %v %+v", err, got)
	}
	validateExt(t, "GetTaskResult", got)

	// Cancel is acknowledged, also once the task is terminal, which it
	// then keeps.
	res, _ = m.CallTool(ctx, server.FixtureSleepTool, map[string]any{"ms": 60000})
	if err := m.CancelTask(ctx, res.Task.TaskID); err != nil {
		t.Fatal(err)
	}
	got, _ = m.GetTask(ctx, res.Task.TaskID)
	if got.Status != exttasks.TaskStatusCancelled {
		t.Errorf("after cancel: %s", got.Status)
	}
	raw, err = m.Call(ctx, "tasks/cancel", map[string]any{"taskId": res.Task.TaskID})
	if err != nil {
		t.Errorf("cancel of a terminal task: %v", err)
	}
	if err := exttasks.Validate("CancelTaskResult", raw); err != nil || !strings.Contains(string(raw), `"resultType":"complete"`) {
		t.Errorf("cancel result %s: %v", raw, err)
	}
	if got, _ = m.GetTask(ctx, res.Task.TaskID); got.Status != exttasks.TaskStatusCancelled {
		t.Errorf("terminal status changed to %s", got.Status)
	}
}

func TestModernProfileInput(t *testing.T) {
	inst := start(t, reference.Options{})
	ctx := testCtx(t)
	m := client.NewModern(inst.URL)
	res, err := m.CallTool(ctx, server.FixtureInputTool, map[string]any{"question": "colour?"})
	if err != nil || res.Task == nil {
		t.Fatalf("create: %v %+v", err, res)
	}
	id := res.Task.TaskID
	var seen exttasks.GetTaskResult
	for seen.Status != exttasks.TaskStatusInputRequired {
		if seen, err = m.GetTask(ctx, id); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	validateExt(t, "GetTaskResult", seen)
	if len(seen.InputRequests) != 1 {
		t.Fatalf("input requests: %+v", seen.InputRequests)
	}
	// An answer to a key that is not outstanding is ignored.
	if err := m.UpdateTask(ctx, id, map[string]json.RawMessage{"nope": json.RawMessage(`{"action":"decline"}`)}); err != nil {
		t.Fatal(err)
	}
	if again, _ := m.GetTask(ctx, id); again.Status != exttasks.TaskStatusInputRequired {
		t.Errorf("an unknown key changed the task: %s", again.Status)
	}
	got, err := m.Poll(ctx, id, 10*time.Millisecond, func(_ context.Context, _ string, req exttasks.InputRequest) (json.RawMessage, error) {
		return json.RawMessage(`{"action":"accept","content":{"answer":"green"}}`), nil
	})
	if err != nil || got.Status != exttasks.TaskStatusCompleted || !strings.Contains(string(got.Result), "green") {
		t.Fatalf("after input: %v %+v", err, got)
	}
	// An update to a task that waits for nothing is acknowledged and
	// changes nothing.
	before := got
	if err := m.UpdateTask(ctx, id, map[string]json.RawMessage{"x": json.RawMessage(`{"action":"accept"}`)}); err != nil {
		t.Errorf("update of a finished task: %v", err)
	}
	if after, _ := m.GetTask(ctx, id); after.Status != before.Status || after.LastUpdatedAt != before.LastUpdatedAt {
		t.Errorf("update changed a finished task: %+v", after)
	}
}

func TestModernProfileBadInput(t *testing.T) {
	inst := start(t, reference.Options{})
	ctx := testCtx(t)
	m := client.NewModern(inst.URL)
	plain := m.WithCapabilities(json.RawMessage(`{}`))
	res, err := m.CallTool(ctx, server.FixtureSleepTool, map[string]any{"ms": 60000})
	if err != nil || res.Task == nil {
		t.Fatal(err)
	}
	id := res.Task.TaskID
	before, _ := m.GetTask(ctx, id)

	// Without the extension: plain results, -32021 for what needs a task,
	// checked before any lookup.
	r, err := plain.CallTool(ctx, server.FixtureSleepTool, map[string]any{"ms": 1})
	if err != nil || r.Task != nil || !strings.Contains(string(r.Result), `"resultType":"complete"`) {
		t.Errorf("plain call: %v %+v", err, r)
	}
	if err := v20260728.Validate("CallToolResult", r.Result); err != nil {
		t.Errorf("plain call result: %v", err)
	}
	_, err = plain.CallTool(ctx, server.FixtureSleepRequiredTool, map[string]any{"ms": 1})
	e := wantModernCode(t, err, -32021)
	if !strings.Contains(string(e.Data), exttasks.ExtensionID) {
		t.Errorf("-32021 data: %s", e.Data)
	}
	for _, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		for _, tid := range []string{id, "gate-test"} {
			_, err := plain.Call(ctx, method, map[string]any{"taskId": tid, "inputResponses": map[string]any{}})
			wantModernCode(t, err, -32021)
		}
	}
	// A legacy capabilities.tasks is not the extension.
	legacy := m.WithCapabilities(json.RawMessage(`{"tasks":{"requests":{"tools":{"call":{}}}}}`))
	_, err = legacy.GetTask(ctx, id)
	wantModernCode(t, err, -32021)

	// Unknown version: -32022 with the supported list; missing _meta: -32602.
	_, err = m.WithVersion("1900-01-01").GetTask(ctx, id)
	e = wantModernCode(t, err, -32022)
	if !strings.Contains(string(e.Data), `"supported":["2026-07-28"]`) || !strings.Contains(string(e.Data), `"requested":"1900-01-01"`) {
		t.Errorf("-32022 data: %s", e.Data)
	}
	st, _, body := post(t, http.DefaultClient, inst.URL, `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, pv, "2026-07-28")
	if code, _, _ := rpcCode(t, body); st != 400 || code != -32602 {
		t.Errorf("missing clientCapabilities: HTTP %d %s", st, body)
	}
	st, _, body = post(t, http.DefaultClient, inst.URL, `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"x"}}`)
	if code, _, _ := rpcCode(t, body); st != 400 || code != -32602 {
		t.Errorf("no _meta and no session: HTTP %d %s", st, body)
	}

	// Malformed and unknown task ids: -32602.
	for _, p := range []string{`{"taskId":5,` + modernMeta + `}`, `{"taskId":"",` + modernMeta + `}`, `{` + modernMeta + `}`, `{"taskId":"nope",` + modernMeta + `}`} {
		_, err := m.Call(ctx, "tasks/get", json.RawMessage(p))
		wantModernCode(t, err, -32602)
	}
	_, err = m.Call(ctx, "tasks/update", map[string]any{"taskId": id, "inputResponses": "x"})
	wantModernCode(t, err, -32602)

	// Gone in this profile: -32601 over HTTP 404.
	for _, method := range []string{"tasks/result", "tasks/list"} {
		st, _, body := post(t, http.DefaultClient, inst.URL, `{"jsonrpc":"2.0","id":2,"method":"`+method+`","params":{"taskId":"`+id+`",`+modernMeta+`}}`, pv, "2026-07-28")
		if code, _, _ := rpcCode(t, body); st != 404 || code != -32601 {
			t.Errorf("%s: HTTP %d %s", method, st, body)
		}
	}
	// A legacy params.task is ignored, never an error.
	raw, err := m.Call(ctx, "tools/call", map[string]any{"name": server.FixtureForbiddenTool, "arguments": map[string]any{}, "task": map[string]any{"ttl": 1000}})
	if err != nil || !strings.Contains(string(raw), `"resultType":"complete"`) {
		t.Errorf("legacy task param: %v %s", err, raw)
	}
	// Headers that disagree with the body: -32020.
	_, err = m.Call(ctx, "tasks/get", map[string]any{"taskId": id}, client.WithCallHeader("Mcp-Name", "other"))
	wantModernCode(t, err, -32020)

	// None of it touched the task.
	if after, _ := m.GetTask(ctx, id); after.Status != before.Status || after.LastUpdatedAt != before.LastUpdatedAt {
		t.Errorf("bad input changed the task: %+v -> %+v", before, after)
	}
	// An unreadable request gets an error without an id, never "id": null.
	_, _, body = post(t, http.DefaultClient, inst.URL, `{"jsonrpc":"2.0","id":`)
	if strings.Contains(string(body), `"id"`) {
		t.Errorf("parse error carries an id: %s", body)
	}
}

// Both profiles on one endpoint at once: each client sees only its own
// wire, and a task made under one profile is not found under the other.
func TestBothProfilesOnOneEndpoint(t *testing.T) {
	inst := start(t, reference.Options{})
	ctx := testCtx(t)
	old := connect(t, inst.URL)
	m := client.NewModern(inst.URL)

	ot, err := old.CallToolAsTask(ctx, server.FixtureSleepTool, map[string]any{"ms": 10}, nil)
	if err != nil {
		t.Fatal(err)
	}
	mt, err := m.CallTool(ctx, server.FixtureSleepTool, map[string]any{"ms": 10})
	if err != nil || mt.Task == nil {
		t.Fatal(err)
	}
	if _, err := m.GetTask(ctx, ot.Task.TaskID); err == nil {
		t.Error("a 2025-11-25 task is visible under 2026-07-28")
	} else {
		wantModernCode(t, err, -32602)
	}
	if _, err := old.GetTask(ctx, mt.Task.TaskID); err == nil {
		t.Error("a 2026-07-28 task is visible under 2025-11-25")
	}
	list, err := old.ListAllTasks(ctx, 10)
	if err != nil || len(list) != 1 || list[0].TaskID != ot.Task.TaskID {
		t.Errorf("legacy list: %v %+v", err, list)
	}
	if _, err := m.Poll(ctx, mt.Task.TaskID, 10*time.Millisecond, nil); err != nil {
		t.Error(err)
	}
	if _, err := old.WaitTerminal(ctx, ot.Task.TaskID, 10*time.Millisecond, 100*time.Millisecond, nil); err != nil {
		t.Error(err)
	}
	// The legacy client never got a notification of the modern task.
	for _, n := range old.Notifications() {
		if strings.Contains(string(n.Raw), mt.Task.TaskID) {
			t.Errorf("legacy session got %s", n.Raw)
		}
	}
}

func TestModernListen(t *testing.T) {
	inst := start(t, reference.Options{})
	ctx := testCtx(t)
	m := client.NewModern(inst.URL)
	res, err := m.CallTool(ctx, server.FixtureSleepTool, map[string]any{"ms": 300})
	if err != nil || res.Task == nil {
		t.Fatal(err)
	}
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu    sync.Mutex
		acked []string
		last  exttasks.TaskStatusNotificationParams
	)
	done := make(chan error, 1)
	go func() {
		done <- m.Listen(lctx, []string{res.Task.TaskID, "not-mine"}, func(ids []string) {
			mu.Lock()
			acked = ids
			mu.Unlock()
		}, func(p exttasks.TaskStatusNotificationParams) {
			mu.Lock()
			last = p
			mu.Unlock()
			if p.Status == exttasks.TaskStatusCompleted {
				cancel()
			}
		})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no completed notification")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(acked) != 1 || acked[0] != res.Task.TaskID {
		t.Errorf("acknowledged %v", acked)
	}
	if last.TaskID != res.Task.TaskID || len(last.Result) == 0 {
		t.Errorf("notification %+v", last)
	}
	validateExt(t, "TaskStatusNotificationParams", last)
	// Without the extension, asking for task ids is refused.
	err = m.WithCapabilities(json.RawMessage(`{}`)).Listen(ctx, []string{res.Task.TaskID}, nil, nil)
	wantModernCode(t, err, -32021)
}

// The owner of a 2026-07-28 request is its bearer subject.
func TestModernOwnership(t *testing.T) {
	inst := start(t, reference.Options{ServerOptions: []server.Option{server.WithTokenVerifier(server.NewStaticTokens(map[string]string{"ta": "alice", "tb": "bob"}))}})
	ctx := testCtx(t)
	a := client.NewModern(inst.URL, client.WithHeader("Authorization", "Bearer ta"))
	b := client.NewModern(inst.URL, client.WithHeader("Authorization", "Bearer tb"))
	res, err := a.CallTool(ctx, server.FixtureSleepTool, map[string]any{"ms": 60000})
	if err != nil || res.Task == nil {
		t.Fatal(err)
	}
	_, err = b.GetTask(ctx, res.Task.TaskID)
	wantModernCode(t, err, -32602)
	_, err = b.Call(ctx, "tasks/cancel", map[string]any{"taskId": res.Task.TaskID})
	wantModernCode(t, err, -32602)
	if got, _ := a.GetTask(ctx, res.Task.TaskID); got.Status != exttasks.TaskStatusWorking {
		t.Errorf("another identity changed the task: %s", got.Status)
	}
}

// The server's own error answers follow the schemas of both revisions:
// the 2026-07-28 error shapes, and no id at all (never null) when the
// request's could not be read.
func TestErrorBodiesFollowTheSchemas(t *testing.T) {
	inst := start(t, reference.Options{})
	for _, tc := range []struct {
		body, def string
		status    int
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"x","_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`, "UnsupportedProtocolVersionError", 400},
		{`{"jsonrpc":"2.0","id":4,"method":"tasks/get","params":{"taskId":"x",` + modernMeta + `}}`, "JSONRPCErrorResponse", 400},
		{`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, "MissingRequiredClientCapabilityError", 400},
		{`{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"x",` + modernMeta + `}}`, "JSONRPCErrorResponse", 200},
		{`{"jsonrpc":"2.0","id":`, "JSONRPCErrorResponse", 400},
	} {
		hdr := []string{pv, protocolVersionOf(tc.body)}
		if strings.Contains(tc.body, `"id":4`) {
			hdr = nil // no MCP-Protocol-Version: refused with -32020
		}
		st, _, body := post(t, http.DefaultClient, inst.URL, tc.body, hdr...)
		if st != tc.status {
			t.Errorf("%s: HTTP %d, want %d: %s", tc.body, st, tc.status, body)
		}
		if err := v20260728.Validate(tc.def, body); err != nil {
			t.Errorf("%s: answer %s is not a %s: %v", tc.body, body, tc.def, err)
		}
	}
	st, _, body := post(t, http.DefaultClient, inst.URL, `{"jsonrpc":"2.0","id":`)
	if err := schema.Validate("JSONRPCErrorResponse", body); err != nil || st != 400 {
		t.Errorf("2025-11-25 view of a parse error %s: %v", body, err)
	}
	// A stateless notification is accepted.
	if st, _, body := post(t, http.DefaultClient, inst.URL, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,`+modernMeta+`}}`, pv, "2026-07-28"); st != http.StatusAccepted {
		t.Errorf("modern notification: HTTP %d %s", st, body)
	}
}

// pv is the protocol-version header name for raw posts.
const pv = server.HeaderProtocolVersion

// protocolVersionOf returns the _meta protocol version of a raw request
// ("2026-07-28" when there is none).
func protocolVersionOf(body string) string {
	if strings.Contains(body, "1900-01-01") {
		return "1900-01-01"
	}
	return "2026-07-28"
}

// On an initialize-based session the extension does not exist: declaring
// it in the initialize capabilities never turns a plain call into a task,
// and the session keeps the 2025-11-25 methods.
func TestLegacySessionIgnoresTheExtension(t *testing.T) {
	inst := start(t, reference.Options{})
	ctx := testCtx(t)
	c := connect(t, inst.URL, client.WithCapabilities(json.RawMessage(`{"extensions":{"io.modelcontextprotocol/tasks":{}},"elicitation":{"form":{}}}`)))
	raw, err := c.CallTool(ctx, server.FixtureSleepTool, map[string]any{"ms": 1})
	if err != nil || strings.Contains(string(raw), "taskId") || strings.Contains(string(raw), "resultType") {
		t.Errorf("plain call on a legacy session: %v %s", err, raw)
	}
	if _, err := c.ListTasks(ctx, ""); err != nil {
		t.Errorf("tasks/list on a legacy session: %v", err)
	}
}

// mrtrCall posts a 2026-07-28 tools/call of fixture_mrtr_then_task with
// extra params (inputResponses, requestState) and capabilities caps.
func mrtrCall(ctx context.Context, t *testing.T, m *client.Modern, args map[string]any, extra map[string]any) (map[string]json.RawMessage, error) {
	t.Helper()
	params := map[string]any{"name": server.FixtureMRTRThenTaskTool, "arguments": args}
	for k, v := range extra {
		params[k] = v
	}
	raw, err := m.Call(ctx, "tools/call", params)
	if err != nil {
		return nil, err
	}
	var res map[string]json.RawMessage
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("result %s: %v", raw, err)
	}
	return res, nil
}

func str(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// A multi-round-trip tools/call: the first round is an InputRequiredResult
// with no task, the retry with the answer and the echoed requestState
// creates the task, whose result carries the answer. The requestState is
// bound to the call: tampered, replayed on other arguments or by another
// requestor, it is refused; a retry without the answer is asked again.
func TestModernMultiRoundTrip(t *testing.T) {
	inst := start(t, reference.Options{})
	ctx := testCtx(t)
	m := client.NewModern(inst.URL)
	args := map[string]any{"question": "name?"}

	r1, err := mrtrCall(ctx, t, m, args, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw1, _ := json.Marshal(r1)
	if err := v20260728.Validate("InputRequiredResult", raw1); err != nil {
		t.Errorf("round 1 does not validate: %v\n%s", err, raw1)
	}
	if str(r1["resultType"]) != "input_required" || r1["taskId"] != nil || r1["requestState"] == nil {
		t.Fatalf("round 1: %s", raw1)
	}
	var reqs map[string]struct {
		Method string `json:"method"`
	}
	if err := json.Unmarshal(r1["inputRequests"], &reqs); err != nil || len(reqs) != 1 {
		t.Fatalf("round 1 inputRequests: %s", r1["inputRequests"])
	}
	var key string
	for k, v := range reqs {
		key = k
		if v.Method != "elicitation/create" {
			t.Errorf("input request %q: %s", k, v.Method)
		}
	}
	state := str(r1["requestState"])
	answer := map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"answer": "Alice"}}}

	// Refused: tampered state, other arguments, another requestor.
	tampered := []byte(state)
	tampered[len(tampered)/3] ^= 1
	for name, c := range map[string]struct {
		m     *client.Modern
		args  map[string]any
		state string
	}{
		"tampered":        {m, args, string(tampered)},
		"other arguments": {m, map[string]any{"question": "other?"}, state},
	} {
		if _, err := mrtrCall(ctx, t, c.m, c.args, map[string]any{"inputResponses": answer, "requestState": c.state}); err == nil {
			t.Errorf("%s requestState accepted", name)
		} else {
			wantModernCode(t, err, -32602)
		}
	}
	// Without the answer the question comes again, without a task.
	again, err := mrtrCall(ctx, t, m, args, map[string]any{"requestState": state})
	if err != nil || str(again["resultType"]) != "input_required" || again["taskId"] != nil {
		t.Errorf("retry without the answer: %v %v", err, again)
	}
	// Without the form elicitation capability the question cannot be asked.
	noElicit := m.WithCapabilities(json.RawMessage(`{"extensions":{"io.modelcontextprotocol/tasks":{}}}`))
	if _, err := mrtrCall(ctx, t, noElicit, args, nil); err == nil {
		t.Error("an input request went to a client without elicitation")
	} else {
		wantModernCode(t, err, v20260728.CodeMissingRequiredClientCapability)
	}

	r2, err := mrtrCall(ctx, t, m, args, map[string]any{"inputResponses": answer, "requestState": state})
	if err != nil {
		t.Fatal(err)
	}
	if str(r2["resultType"]) != "task" || r2["requestState"] != nil || r2["inputRequests"] != nil {
		t.Fatalf("round 2: %v", r2)
	}
	got, err := m.Poll(ctx, str(r2["taskId"]), 10*time.Millisecond, nil)
	if err != nil || got.Status != exttasks.TaskStatusCompleted || !strings.Contains(string(got.Result), "Alice") {
		t.Fatalf("task: %v %+v", err, got)
	}
}

// The requestState of one requestor is refused for another.
func TestModernMultiRoundTripOtherRequestor(t *testing.T) {
	verifier := server.NewStaticTokens(map[string]string{"tok-a": "alice", "tok-b": "bob"})
	inst := start(t, reference.Options{ServerOptions: []server.Option{server.WithTokenVerifier(verifier), server.WithAllowAnonymous(false)}})
	ctx := testCtx(t)
	a := client.NewModern(inst.URL, client.WithHeader("Authorization", "Bearer tok-a"))
	b := client.NewModern(inst.URL, client.WithHeader("Authorization", "Bearer tok-b"))
	args := map[string]any{"question": "name?"}
	r1, err := mrtrCall(ctx, t, a, args, nil)
	if err != nil {
		t.Fatal(err)
	}
	extra := map[string]any{"requestState": str(r1["requestState"]),
		"inputResponses": map[string]any{"answer": map[string]any{"action": "accept", "content": map[string]any{"answer": "x"}}}}
	if _, err := mrtrCall(ctx, t, b, args, extra); err == nil {
		t.Fatal("another requestor's requestState was accepted")
	} else {
		wantModernCode(t, err, -32602)
	}
	if r2, err := mrtrCall(ctx, t, a, args, extra); err != nil || str(r2["resultType"]) != "task" {
		t.Fatalf("the requestor's own retry: %v %v", err, r2)
	}
}

// Two input requests outstanding together: tasks/get lists both, an
// answer to one leaves the task input_required with the other, and keys
// are never reused while the task lives.
func TestModernConcurrentInput(t *testing.T) {
	inst := start(t, reference.Options{})
	ctx := testCtx(t)
	m := client.NewModern(inst.URL)
	res, err := m.CallTool(ctx, server.FixtureInputMultiTool, map[string]any{"question": "colour?"})
	if err != nil || res.Task == nil {
		t.Fatalf("create: %v %+v", err, res)
	}
	id := res.Task.TaskID
	var g exttasks.GetTaskResult
	for len(g.InputRequests) < 2 {
		if g, err = m.GetTask(ctx, id); err != nil {
			t.Fatal(err)
		}
		if g.Status != exttasks.TaskStatusWorking && g.Status != exttasks.TaskStatusInputRequired {
			t.Fatalf("task ended: %+v", g)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if g.Status != exttasks.TaskStatusInputRequired || len(g.InputRequests) != 2 {
		t.Fatalf("both requests: %+v", g)
	}
	keys := sortedKeys(g.InputRequests)
	if err := m.UpdateTask(ctx, id, map[string]json.RawMessage{keys[0]: json.RawMessage(`{"action":"accept","content":{"answer":"red"}}`)}); err != nil {
		t.Fatal(err)
	}
	after, err := m.GetTask(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if after.Status != exttasks.TaskStatusInputRequired || len(after.InputRequests) != 1 || after.InputRequests[keys[1]].Raw() == nil {
		t.Fatalf("after one answer: %+v", after)
	}
	if err := m.UpdateTask(ctx, id, map[string]json.RawMessage{keys[1]: json.RawMessage(`{"action":"accept","content":{"answer":"blue"}}`)}); err != nil {
		t.Fatal(err)
	}
	got, err := m.Poll(ctx, id, 10*time.Millisecond, nil)
	if err != nil || got.Status != exttasks.TaskStatusCompleted || !strings.Contains(string(got.Result), "red") || !strings.Contains(string(got.Result), "blue") {
		t.Fatalf("final: %v %+v", err, got)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
