package gosdk_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// openStream opens the session's standalone GET stream and returns the
// JSON-RPC messages it carries.
func openStream(t *testing.T, ctx context.Context, c *rpcClient) <-chan json.RawMessage {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", c.session)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := c.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: HTTP %d", resp.StatusCode)
	}
	out := make(chan json.RawMessage, 16)
	go func() {
		defer resp.Body.Close()
		defer close(out)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if d, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:")); ok {
				out <- json.RawMessage(bytes.TrimSpace(append([]byte(nil), d...)))
			}
		}
	}()
	return out
}

// TestInputOnTheGETStream is a client that only polls: the task's input
// request reaches it on its GET stream, with related-task metadata,
// whether the stream was open before the task asked or opened after, and
// its answer (posted back) completes the task.
func TestInputOnTheGETStream(t *testing.T) {
	for _, streamFirst := range []bool{true, false} {
		name := "stream opened after the task asked"
		if streamFirst {
			name = "stream open before the task"
		}
		t.Run(name, func(t *testing.T) { inputOnTheGETStream(t, streamFirst) })
	}
}

func inputOnTheGETStream(t *testing.T, streamFirst bool) {
	ts := newTestServer(t, nil)
	c := connect(t, ts.url)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var stream <-chan json.RawMessage
	if streamFirst {
		stream = openStream(t, ctx, c)
	}

	var cr createResult
	if err := json.Unmarshal(mustResult(t, "tools/call", c.call(t, "tools/call", `{"name":"ask","arguments":{},"task":{}}`)), &cr); err != nil {
		t.Fatal(err)
	}
	// A poll-only client learns of the input request from tasks/get; the
	// request goes out on the GET stream only once a poll has shown it.
	awaitInputRequired(t, ctx, c, cr.Task.TaskID)
	if !streamFirst {
		stream = openStream(t, ctx, c)
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Message string `json:"message"`
			Meta    map[string]struct {
				TaskID string `json:"taskId"`
			} `json:"_meta"`
		} `json:"params"`
	}
	for req.Method != "elicitation/create" {
		select {
		case msg, ok := <-stream:
			if !ok {
				t.Fatal("the GET stream ended without the input request")
			}
			if err := json.Unmarshal(msg, &req); err != nil {
				t.Fatal(err)
			}
		case <-ctx.Done():
			t.Fatal("no input request on the GET stream")
		}
	}
	if got := req.Params.Meta["io.modelcontextprotocol/related-task"].TaskID; got != cr.Task.TaskID {
		t.Errorf("input request names task %q, want %q", got, cr.Task.TaskID)
	}
	var st struct{ Status string }
	_ = json.Unmarshal(mustResult(t, "tasks/get", c.call(t, "tasks/get", `{"taskId":"`+cr.Task.TaskID+`"}`)), &st)
	if st.Status != "input_required" {
		t.Errorf("status while asking = %q, want input_required", st.Status)
	}
	resp, body := c.post(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"action":"accept","content":{"name":"Ada"}}}`)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("posting the answer: HTTP %d %s", resp.StatusCode, body)
	}
	res := mustResult(t, "tasks/result", c.call(t, "tasks/result", `{"taskId":"`+cr.Task.TaskID+`"}`))
	if !strings.Contains(string(res), `Ada`) {
		t.Errorf("tasks/result = %s, want the answer", res)
	}
}

// TestElicitAnswerAgainstTheSchema: an accepted answer whose content does
// not match the requested schema (the SDK checks it) ends the task's wait
// with an error, so the task fails instead of asking again forever.
func TestElicitAnswerAgainstTheSchema(t *testing.T) {
	ts := newTestServer(t, nil)
	c := connect(t, ts.url)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	stream := openStream(t, ctx, c)
	var cr createResult
	if err := json.Unmarshal(mustResult(t, "tools/call", c.call(t, "tools/call", `{"name":"ask","arguments":{},"task":{}}`)), &cr); err != nil {
		t.Fatal(err)
	}
	awaitInputRequired(t, ctx, c, cr.Task.TaskID)
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	for req.Method != "elicitation/create" {
		select {
		case msg, ok := <-stream:
			if !ok {
				t.Fatal("the GET stream ended without the input request")
			}
			_ = json.Unmarshal(msg, &req)
		case <-ctx.Done():
			t.Fatal("no input request on the GET stream")
		}
	}
	// "name" must be a string.
	c.post(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"action":"accept","content":{"name":5}}}`)
	res := mustResult(t, "tasks/result", c.call(t, "tasks/result", `{"taskId":"`+cr.Task.TaskID+`"}`))
	if !strings.Contains(string(res), "does not match the requested schema") {
		t.Errorf("tasks/result = %s, want the task to have failed on the mismatching answer", res)
	}
	var st struct{ Status string }
	_ = json.Unmarshal(mustResult(t, "tasks/get", c.call(t, "tasks/get", `{"taskId":"`+cr.Task.TaskID+`"}`)), &st)
	if st.Status != "failed" {
		t.Errorf("status = %q, want failed", st.Status)
	}
}

// awaitInputRequired polls tasks/get until the task reports input_required,
// as a client that never calls tasks/result does.
func awaitInputRequired(t *testing.T, ctx context.Context, c *rpcClient, taskID string) {
	t.Helper()
	for {
		var st struct{ Status string }
		_ = json.Unmarshal(mustResult(t, "tasks/get", c.call(t, "tasks/get", `{"taskId":"`+taskID+`"}`)), &st)
		if st.Status == "input_required" {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatal("the task never asked")
		case <-time.After(10 * time.Millisecond):
		}
	}
}
