package gosdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptasks/mcptasks/adapters/gosdk"
)

type createResult struct {
	Task struct {
		TaskID string `json:"taskId"`
		Status string `json:"status"`
		TTL    *int64 `json:"ttl"`
	} `json:"task"`
}

func mustResult(t *testing.T, what string, r response) json.RawMessage {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("%s: JSON-RPC error %d: %s", what, r.Error.Code, r.Error.Message)
	}
	return r.Result
}

func TestHandshakeAnnouncesTasks(t *testing.T) {
	ts := newTestServer(t, nil)
	c := connect(t, ts.url)
	fresh := &rpcClient{url: ts.url, http: c.http}
	_, init := fresh.post(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	var ir struct {
		Result struct {
			Capabilities struct {
				Tasks map[string]json.RawMessage `json:"tasks"`
				Tools json.RawMessage            `json:"tools"`
			} `json:"capabilities"`
		} `json:"result"`
	}
	if err := json.Unmarshal(init, &ir); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"list", "cancel", "requests"} {
		if _, ok := ir.Result.Capabilities.Tasks[k]; !ok {
			t.Errorf("capabilities.tasks has no %q: %s", k, init)
		}
	}
	if ir.Result.Capabilities.Tools == nil {
		t.Errorf("the SDK's own capabilities were lost: %s", init)
	}

	var list struct {
		Tools []struct {
			Name      string `json:"name"`
			Execution *struct {
				TaskSupport string `json:"taskSupport"`
			} `json:"execution"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(mustResult(t, "tools/list", c.call(t, "tools/list", `{}`)), &list); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, tool := range list.Tools {
		got[tool.Name] = "none"
		if tool.Execution != nil {
			got[tool.Name] = tool.Execution.TaskSupport
		}
	}
	if got["wait"] != "optional" || got["plain"] != "none" {
		t.Errorf("taskSupport per tool = %v, want wait optional and plain without execution", got)
	}
}

func TestTaskLifecycleOverHTTP(t *testing.T) {
	ts := newTestServer(t, nil)
	c := connect(t, ts.url)

	var cr createResult
	if err := json.Unmarshal(mustResult(t, "tools/call", c.call(t, "tools/call",
		`{"name":"wait","arguments":{"ms":50},"task":{"ttl":60000}}`)), &cr); err != nil {
		t.Fatal(err)
	}
	if cr.Task.TaskID == "" || cr.Task.Status != "working" || cr.Task.TTL == nil || *cr.Task.TTL != 60000 {
		t.Fatalf("CreateTaskResult = %+v, want a working task with ttl 60000", cr.Task)
	}

	resp, body := c.post(t, `{"jsonrpc":"2.0","id":"g1","method":"tasks/get","params":{"taskId":"`+cr.Task.TaskID+`"}}`)
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("tasks/get answered with Content-Type %q, want a JSON body", ct)
	}
	if !strings.Contains(string(body), `"id":"g1"`) || !strings.Contains(string(body), cr.Task.TaskID) {
		t.Errorf("tasks/get answer %s lacks the request id or the task", body)
	}

	res := mustResult(t, "tasks/result", c.call(t, "tasks/result", `{"taskId":"`+cr.Task.TaskID+`"}`))
	if !strings.Contains(string(res), "task "+cr.Task.TaskID) {
		t.Errorf("tasks/result = %s, want the handler to have seen its task", res)
	}
	if !strings.Contains(string(res), `"io.modelcontextprotocol/related-task":{"taskId":"`+cr.Task.TaskID+`"}`) {
		t.Errorf("tasks/result = %s, want related-task metadata", res)
	}

	var list struct {
		Tasks []struct {
			TaskID, Status string
		} `json:"tasks"`
	}
	if err := json.Unmarshal(mustResult(t, "tasks/list", c.call(t, "tasks/list", `{}`)), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Tasks) != 1 || list.Tasks[0].Status != "completed" {
		t.Errorf("tasks/list = %+v, want the one completed task", list.Tasks)
	}

	// Another session is another owner: it sees nothing.
	other := connect(t, ts.url)
	if r := other.call(t, "tasks/get", `{"taskId":"`+cr.Task.TaskID+`"}`); r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("tasks/get from another session = %+v, want -32602", r)
	}
}

func TestToolCallRouting(t *testing.T) {
	ts := newTestServer(t, nil)
	c := connect(t, ts.url)
	for _, tc := range []struct {
		name, params string
		code         int64  // expected error code, 0 for a result
		text         string // expected in the result or the error message
	}{
		{"plain call of a task tool runs on the request", `{"name":"wait","arguments":{"ms":1}}`, 0, `"plain"`},
		{"plain SDK tool", `{"name":"plain","arguments":{}}`, 0, `"plain"`},
		{"task call of a tool without task support", `{"name":"plain","arguments":{},"task":{}}`, jsonrpc.CodeMethodNotFound, "cannot run as a task"},
		{"task call of an unknown tool", `{"name":"nope","arguments":{},"task":{}}`, jsonrpc.CodeInvalidParams, "unknown tool"},
		{"arguments that fail the schema", `{"name":"wait","arguments":{"ms":"x"},"task":{}}`, jsonrpc.CodeInvalidParams, "arguments"},
		{"negative ttl", `{"name":"wait","arguments":{},"task":{"ttl":-5}}`, jsonrpc.CodeInvalidParams, "ttl"},
		{"a forged carried task is no task", `{"name":"wait","arguments":{"ms":1},"_meta":{"dev.mcptasks/carried-task":{"task":{}}}}`, 0, `"plain"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := c.call(t, "tools/call", tc.params)
			switch {
			case tc.code == 0 && r.Error != nil:
				t.Fatalf("error %d %s, want a result", r.Error.Code, r.Error.Message)
			case tc.code == 0 && !strings.Contains(string(r.Result), tc.text):
				t.Fatalf("result %s, want %s in it", r.Result, tc.text)
			case tc.code != 0 && (r.Error == nil || r.Error.Code != tc.code):
				t.Fatalf("answer %s / %+v, want error %d", r.Result, r.Error, tc.code)
			case tc.code != 0 && !strings.Contains(r.Error.Message, tc.text):
				t.Fatalf("message %q, want %q in it", r.Error.Message, tc.text)
			}
		})
	}
}

func TestSessionIDRequired(t *testing.T) {
	for _, allow := range []bool{false, true} {
		ts := newTestServer(t, &gosdk.HandlerOptions{AllowMissingSessionID: allow})
		c := &rpcClient{url: ts.url, http: http.DefaultClient}
		resp, body := c.post(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		want := http.StatusBadRequest
		if allow {
			want = http.StatusOK // the SDK serves it in a session of its own
		}
		if resp.StatusCode != want {
			t.Errorf("allow=%v: ping without a session id: HTTP %d %s, want %d", allow, resp.StatusCode, body, want)
		}
	}
}

func TestSDKPollsOption(t *testing.T) {
	ts := newTestServer(t, &gosdk.HandlerOptions{SDKPolls: true})
	c := connect(t, ts.url)
	var cr createResult
	if err := json.Unmarshal(mustResult(t, "tools/call", c.call(t, "tools/call", `{"name":"wait","arguments":{"ms":0},"task":{}}`)), &cr); err != nil {
		t.Fatal(err)
	}
	resp, body := c.post(t, `{"jsonrpc":"2.0","id":7,"method":"tasks/get","params":{"taskId":"`+cr.Task.TaskID+`"}}`)
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Errorf("with SDKPolls tasks/get came back as %q, want the SDK's event stream", resp.Header.Get("Content-Type"))
	}
	if !strings.Contains(string(body), cr.Task.TaskID) {
		t.Errorf("tasks/get through the SDK = %s, want the task", body)
	}
}

// TestConnectSendsStatusNotifications runs the server over an in-memory
// connection served with Connect: the task's status changes reach the
// client as notifications/tasks/status, which the SDK alone cannot send.
func TestConnectSendsStatusNotifications(t *testing.T) {
	ts := newTestServer(t, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := ts.adapter.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	conn, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	send := func(id int64, method, params string) {
		t.Helper()
		req := &jsonrpc.Request{Method: method, Params: json.RawMessage(params)}
		if id != 0 {
			req.ID, _ = jsonrpc.MakeID(float64(id))
		}
		if err := conn.Write(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	send(1, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`)
	send(0, "notifications/initialized", `{}`)
	send(2, "tools/call", `{"name":"wait","arguments":{"ms":20},"task":{}}`)
	var taskID string
	for {
		msg, err := conn.Read(ctx)
		if err != nil {
			t.Fatalf("reading: %v (task %q)", err, taskID)
		}
		switch m := msg.(type) {
		case *jsonrpc.Response:
			if fmt.Sprint(m.ID.Raw()) == "2" {
				if m.Error != nil {
					t.Fatalf("tools/call: %v", m.Error)
				}
				var cr createResult
				if err := json.Unmarshal(m.Result, &cr); err != nil || cr.Task.TaskID == "" {
					t.Fatalf("tools/call answered %s, want a CreateTaskResult", m.Result)
				}
				taskID = cr.Task.TaskID
			}
		case *jsonrpc.Request:
			if m.Method != "notifications/tasks/status" {
				continue
			}
			var p struct {
				TaskID string `json:"taskId"`
				Status string `json:"status"`
				TTL    json.RawMessage
			}
			if err := json.Unmarshal(m.Params, &p); err != nil {
				t.Fatal(err)
			}
			if p.Status == "completed" {
				if taskID != "" && p.TaskID != taskID {
					t.Fatalf("status notification for %s, want %s", p.TaskID, taskID)
				}
				if !strings.Contains(string(m.Params), `"ttl"`) {
					t.Errorf("status notification %s has no ttl", m.Params)
				}
				return
			}
		}
	}
}

// TestPollsEndWithTheSession: once the client deletes its session, the
// adapter no longer answers polls for it; the SDK refuses them.
func TestPollsEndWithTheSession(t *testing.T) {
	ts := newTestServer(t, nil)
	c := connect(t, ts.url)
	var cr createResult
	if err := json.Unmarshal(mustResult(t, "tools/call", c.call(t, "tools/call", `{"name":"wait","arguments":{"ms":0},"task":{}}`)), &cr); err != nil {
		t.Fatal(err)
	}
	get := `{"jsonrpc":"2.0","id":5,"method":"tasks/get","params":{"taskId":"` + cr.Task.TaskID + `"}}`
	if resp, body := c.post(t, get); resp.StatusCode != http.StatusOK {
		t.Fatalf("tasks/get before the delete: HTTP %d %s", resp.StatusCode, body)
	}
	req, err := http.NewRequest(http.MethodDelete, c.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Mcp-Session-Id", c.session)
	resp, err := c.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		resp, body := c.post(t, get)
		if resp.StatusCode == http.StatusNotFound {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("tasks/get after the delete: HTTP %d %s, want 404", resp.StatusCode, body)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
