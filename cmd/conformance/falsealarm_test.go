package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/suites/report"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/server"
	"github.com/mcptasks/mcptasks/tasks/server/reference"
)

// This file holds the regressions of the suite's false alarms: servers
// that behave like the two SDK trials (TypeScript SDK 1.32.2, mcp-go
// 1.2.1) in ways the spec allows, or in ways that break another rule than
// the one a spec judges. Each is the reference server behind a proxy that
// reproduces exactly that behaviour; the test checks the verdict the suite
// must reach, so a false alarm cannot come back.

// taskTracker remembers the tasks created by calls of one tool, so a proxy
// can change what the server says about them.
type taskTracker struct {
	tool string
	mu   sync.Mutex
	reqs map[string]bool // JSON-RPC ids of the creating tools/call requests
	ids  map[string]bool // task ids
}

func newTracker(tool string) *taskTracker {
	return &taskTracker{tool: tool, reqs: map[string]bool{}, ids: map[string]bool{}}
}

// onRequest notes a task-augmented tools/call of the tool.
func (tt *taskTracker) onRequest(req *rpcRequest) {
	if req.Method != "tools/call" {
		return
	}
	var p struct {
		Name string          `json:"name"`
		Task json.RawMessage `json:"task"`
	}
	if json.Unmarshal(req.Params, &p) == nil && p.Name == tt.tool && len(p.Task) > 0 {
		tt.mu.Lock()
		tt.reqs[string(req.ID)] = true
		tt.mu.Unlock()
	}
}

// tasksIn returns the tracked task objects a message carries (a
// CreateTaskResult answering a tracked request, a get/cancel result, list
// items, a status notification), noting new task ids on the way.
func (tt *taskTracker) tasksIn(msg map[string]any) []map[string]any {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	var cands []map[string]any
	if r := resultOf(msg); r != nil {
		if t, ok := r["task"].(map[string]any); ok {
			id, _ := json.Marshal(msg["id"])
			if tt.reqs[string(id)] {
				if tid, _ := t["taskId"].(string); tid != "" {
					tt.ids[tid] = true
				}
			}
		}
		cands = taskObjects(r)
	}
	if msg["method"] == "notifications/tasks/status" {
		if p, ok := msg["params"].(map[string]any); ok {
			cands = append(cands, p)
		}
	}
	var out []map[string]any
	for _, t := range cands {
		if id, _ := t["taskId"].(string); tt.ids[id] {
			out = append(out, t)
		}
	}
	return out
}

// tracked reports whether a task id belongs to the tool.
func (tt *taskTracker) tracked(id string) bool {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	return tt.ids[id]
}

// taskIDParam reads params.taskId of a request.
func taskIDParam(req *rpcRequest) string {
	var p struct {
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal(req.Params, &p)
	return p.TaskID
}

// replaceBody swaps the body of a request about to be forwarded.
func replaceBody(r *http.Request, body []byte) {
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
}

// entryOf finds a requirement among the requirements or the
// recommendations of a report.
func entryOf(r *report.Report, id string) (report.Entry, bool, bool) {
	for _, e := range r.Requirements {
		if e.ID == id {
			return e, true, false
		}
	}
	for _, e := range r.Recommendations {
		if e.ID == id {
			return e, true, true
		}
	}
	return report.Entry{}, false, false
}

// outcome is what one requirement must come out as.
type outcome struct {
	id     string
	status report.Status
	msg    string // a part of the message, if set
	apart  bool   // listed among the recommendations
}

func TestFalseAlarmsStayAway(t *testing.T) {
	ctx := context.Background()
	tokA, tokB := "token-a-"+randomToken(), "token-b-"+randomToken()
	authed, err := reference.Start(ctx, reference.Options{
		Config:        tasks.Config{PollInterval: 50 * time.Millisecond},
		ServerOptions: []server.Option{server.WithTokenVerifier(server.NewStaticTokens(map[string]string{tokA: "a", tokB: "b"}))},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer authed.Close(ctx)
	// A server without any authorization: every session owns its tasks.
	open, err := reference.Start(ctx, reference.Options{Config: tasks.Config{PollInterval: 50 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close(ctx)
	withTokens := []string{"--header", "Authorization: Bearer " + tokA, "--header-b", "Authorization: Bearer " + tokB}
	withHeaders := []string{"--header", "X-Identity: a", "--header-b", "X-Identity: b"}

	toolErr, rpcErr := newTracker("fixture_tool_error"), newTracker("fixture_rpc_error")
	var (
		ttlMu    sync.Mutex
		zeroReqs = map[string]bool{}
		lastA    string
	)
	cases := []struct {
		name   string
		target string
		b      breakage
		args   []string
		exit   int
		want   []outcome
	}{
		{
			// 2026-07-28 variants the extension allows: an inlined result
			// without resultType (EXT-DISC-13 makes it optional there), no
			// pollIntervalMs (optional), ttlMs null (no limit).
			name: "2026: inlines results without resultType, omits pollIntervalMs, grants unlimited ttlMs", target: authed.URL,
			args: append([]string{"--protocol", "2026-07-28", "--label-filter", "area:ext-create || area:ext-get || area:ext-wire || req:EXT-ERR-011"}, withTokens...), exit: 0,
			b: breakage{onMessage: func(method string, msg map[string]any) {
				r := resultOf(msg)
				if r == nil || (method != "tasks/get" && r["resultType"] != "task") {
					return
				}
				delete(r, "pollIntervalMs")
				r["ttlMs"] = nil
				if res, ok := r["result"].(map[string]any); ok {
					delete(res, "resultType")
				}
			}},
			want: []outcome{
				{id: "EXT-WIRE-013", status: report.StatusPass},
				{id: "EXT-WIRE-006", status: report.StatusPass},
				{id: "EXT-WIRE-005", status: report.StatusPass},
				{id: "EXT-GET-008", status: report.StatusPass},
				{id: "EXT-ERR-011", status: report.StatusPass},
				{id: "EXT-WIRE-010", status: report.StatusPass},
				{id: "EXT-WIRE-011", status: report.StatusPass},
			},
		},
		{
			// 2026-07-28 progress done differently but right: fractional
			// rising values without a total or message, under the
			// request's own token on its own stream, pass the progress
			// specs.
			name: "2026: sends fractional rising progress without a total", target: authed.URL,
			args: append([]string{"--protocol", "2026-07-28", "--label-filter", "req:EXT-PROG-004 || req:EXT-PROG-005 || req:EXT-PROG-006 || req:EXT-WIRE-042"}, withTokens...), exit: 0,
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if p, ok := msg["params"].(map[string]any); ok && method == "tools/call" && msg["method"] == "notifications/progress" {
					v, _ := p["progress"].(float64)
					p["progress"] = v/4 - 0.1
					delete(p, "total")
					delete(p, "message")
				}
			}},
			want: []outcome{
				{id: "EXT-PROG-004", status: report.StatusPass},
				{id: "EXT-PROG-005", status: report.StatusPass},
				{id: "EXT-PROG-006", status: report.StatusPass},
				{id: "EXT-WIRE-042", status: report.StatusPass},
			},
		},
		{
			// Event-stream answers that end with their response pass
			// EXT-XPORT-018 rather than leaving it not-applicable (the
			// reference server answers these requests as JSON).
			name: "2026: answers tools/call and tasks/get as event streams that end with the response", target: authed.URL,
			args: append([]string{"--protocol", "2026-07-28", "--label-filter", "req:EXT-XPORT-018"}, withTokens...), exit: 0,
			b: breakage{onResponse: func(method string, resp *http.Response) {
				if method == "tools/call" || method == "tasks/get" {
					asStream(resp)
				}
			}},
			want: []outcome{{id: "EXT-XPORT-018", status: report.StatusPass}},
		},
		{
			// A URL-mode elicitation done right passes EXT-INPUT-016
			// rather than leaving it not-applicable.
			name: "2026: asks a URL-mode elicitation with a message and an absolute url", target: authed.URL,
			args: append([]string{"--protocol", "2026-07-28", "--label-filter", "req:EXT-INPUT-016"}, withTokens...), exit: 0,
			b: breakage{onMessage: func(method string, msg map[string]any) {
				reqs, _ := resultOf(msg)["inputRequests"].(map[string]any)
				if method != "tasks/get" {
					return
				}
				for _, v := range reqs {
					if req, ok := v.(map[string]any); ok && req["method"] == "elicitation/create" {
						p := paramsOf(req)
						p["mode"] = "url"
						p["url"] = "https://example.com/consent?step=1"
						delete(p, "requestedSchema")
					}
				}
			}},
			want: []outcome{{id: "EXT-INPUT-016", status: report.StatusPass}},
		},
		{
			// A server certified in the 2025-11-25 profile only: every
			// EXT- requirement is out of scope, none fails.
			name: "2026 specs stay out of a --protocol 2025-11-25 run", target: authed.URL,
			args: append([]string{"--protocol", "2025-11-25", "--label-filter", "area:ext-get"}, withTokens...), exit: 0,
			b: breakage{},
			want: []outcome{
				{id: "EXT-GET-011", status: report.StatusNotApplicable, msg: "needs the feature ext-tasks"},
			},
		},
		{
			// Both SDKs grant a requested ttl of 0 as 0, which the spec
			// allows (a receiver may grant another ttl than asked); only the toolkit's rule frowns on it.
			name: "grants a requested ttl of 0 as 0", target: authed.URL,
			args: append([]string{"--label-filter", "req:MCPT-TTLREQ-001"}, withTokens...), exit: 0,
			b: breakage{
				onRequest: func(_ http.ResponseWriter, r *http.Request, req *rpcRequest) bool {
					var m map[string]any
					if req.Method != "tools/call" || json.Unmarshal(req.Params, &m) != nil {
						return false
					}
					if task, ok := m["task"].(map[string]any); ok && task["ttl"] == float64(0) {
						task["ttl"] = 60000
						ttlMu.Lock()
						zeroReqs[string(req.ID)] = true
						ttlMu.Unlock()
						body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "method": req.Method, "params": m})
						replaceBody(r, body)
					}
					return false
				},
				onMessage: func(method string, msg map[string]any) {
					id, _ := json.Marshal(msg["id"])
					ttlMu.Lock()
					zero := method == "tools/call" && zeroReqs[string(id)]
					ttlMu.Unlock()
					if r := resultOf(msg); zero && r != nil {
						if t, ok := r["task"].(map[string]any); ok {
							t["ttl"] = 0
						}
					}
				},
			},
			want: []outcome{{id: "MCPT-TTLREQ-001", status: report.StatusFail, apart: true, msg: "granted as 0"}},
		},
		{
			// mcp-go ends an isError tool task completed. tasks/result still
			// hands back the isError result, which is all RESULT-003 asks;
			// the failed status is the lower-case should of ERR-007.
			name: "ends an isError tool task completed", target: authed.URL,
			args: append([]string{"--label-filter", "req:TASKS-RESULT-003 || req:TASKS-ERR-006 || req:TASKS-ERR-007"}, withTokens...), exit: 0,
			b: breakage{
				onRequest: func(_ http.ResponseWriter, _ *http.Request, req *rpcRequest) bool {
					toolErr.onRequest(req)
					return false
				},
				onMessage: func(_ string, msg map[string]any) {
					for _, t := range toolErr.tasksIn(msg) {
						if t["status"] == "failed" {
							t["status"] = "completed"
							delete(t, "statusMessage")
						}
					}
				},
			},
			want: []outcome{
				{id: "TASKS-RESULT-003", status: report.StatusPass},
				{id: "TASKS-ERR-006", status: report.StatusPass}, // judged on the JSON-RPC error task, which fails with a message
				{id: "TASKS-ERR-007", status: report.StatusFail, msg: "ended completed"},
			},
		},
		{
			// mcp-go cancels a task's work when the response that created
			// it ends (its bug #897): the rpc_error task ends cancelled on
			// its own and tasks/result says so. ERR-008 cannot be judged.
			name: "cancels the work of a task on its own", target: authed.URL,
			args: append([]string{"--label-filter", "req:TASKS-ERR-008"}, withTokens...), exit: 0,
			b: breakage{
				onRequest: func(w http.ResponseWriter, _ *http.Request, req *rpcRequest) bool {
					rpcErr.onRequest(req)
					if req.Method == "tasks/result" && rpcErr.tracked(taskIDParam(req)) {
						w.Header().Set("Content-Type", "application/json")
						_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID,
							"error": map[string]any{"code": -32603, "message": "context canceled"}})
						return true
					}
					return false
				},
				onMessage: func(_ string, msg map[string]any) {
					for _, t := range rpcErr.tasksIn(msg) {
						t["status"] = "cancelled"
						t["statusMessage"] = "context canceled"
					}
				},
			},
			want: []outcome{{id: "TASKS-ERR-008", status: report.StatusNotSupported, msg: "on its own"}},
		},
		{
			// mcp-go refuses a plain call of an "optional" task tool with
			// -32601: the tool never runs, so its error cannot be compared.
			name: "refuses plain calls of an optional task tool", target: authed.URL,
			args: append([]string{"--label-filter", "req:TASKS-ERR-008"}, withTokens...), exit: 0,
			b: breakage{onRequest: func(w http.ResponseWriter, _ *http.Request, req *rpcRequest) bool {
				var p struct {
					Name string          `json:"name"`
					Task json.RawMessage `json:"task"`
				}
				if req.Method != "tools/call" || json.Unmarshal(req.Params, &p) != nil || len(p.Task) > 0 || p.Name != "fixture_rpc_error" {
					return false
				}
				w.Header().Set("Content-Type", "application/json")
				_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID,
					"error": map[string]any{"code": -32601, "message": "tool does not support synchronous execution"}})
				return true
			}},
			want: []outcome{{id: "TASKS-ERR-008", status: report.StatusNotSupported, msg: "refused with -32601"}},
		},
		{
			// mcp-go has no authorization at all; identity B is only a
			// second header. The MUSTs binding tasks to an authorization
			// context cannot be judged; session isolation can.
			name: "has no authorization, identity B is another header", target: open.URL,
			args: append([]string{"--label-filter", "area:isolation"}, withHeaders...), exit: 0,
			want: []outcome{
				{id: "TASKS-SEC-001", status: report.StatusNotSupported, msg: "no authorization"},
				{id: "TASKS-SEC-006", status: report.StatusNotSupported, msg: "no authorization"},
				{id: "TASKS-SEC-007", status: report.StatusNotSupported, msg: "no authorization"},
				{id: "TASKS-SEC-005", status: report.StatusPass},
				{id: "MCPT-SESSION-001", status: report.StatusPass, apart: true},
			},
		},
		{
			// The same, with tasks shared by every session (B's task
			// requests land in A's session): a SHOULD finding and a
			// recommendation, never the authorization MUSTs.
			name: "has no authorization and shares tasks across sessions", target: open.URL,
			args: append([]string{"--label-filter", "area:isolation"}, withHeaders...), exit: 0,
			b: breakage{onRequest: func(_ http.ResponseWriter, r *http.Request, req *rpcRequest) bool {
				sid := r.Header.Get("Mcp-Session-Id")
				ttlMu.Lock()
				defer ttlMu.Unlock()
				switch r.Header.Get("X-Identity") {
				case "a":
					if sid != "" {
						lastA = sid
					}
				case "b":
					if strings.HasPrefix(req.Method, "tasks/") && lastA != "" {
						r.Header.Set("Mcp-Session-Id", lastA)
					}
				}
				return false
			}},
			want: []outcome{
				{id: "TASKS-SEC-001", status: report.StatusNotSupported, msg: "no authorization"},
				{id: "TASKS-SEC-006", status: report.StatusNotSupported, msg: "no authorization"},
				{id: "TASKS-SEC-005", status: report.StatusFail, msg: "listed task"},
				{id: "MCPT-SESSION-001", status: report.StatusFail, apart: true, msg: "second session"},
			},
		},
		{
			// Removing capabilities.tasks while the tools still advertise
			// taskSupport: CAP-001 fails, and the task specs still run
			// instead of turning not-applicable.
			name: "declares no tasks capability but lists task tools", target: authed.URL,
			args: append([]string{"--label-filter", "area:handshake || area:result || req:TASKS-RESULT-005 || req:TASKS-ERR-008"}, withTokens...), exit: 1,
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if r := resultOf(msg); r != nil && method == "initialize" {
					if caps, ok := r["capabilities"].(map[string]any); ok {
						delete(caps, "tasks")
					}
				}
			}},
			want: []outcome{
				{id: "TASKS-CAP-001", status: report.StatusFail, msg: "no capabilities.tasks"},
				{id: "TASKS-RESULT-004", status: report.StatusPass},
				{id: "TASKS-RESULT-005", status: report.StatusPass},
				{id: "TASKS-ERR-008", status: report.StatusPass},
			},
		},
		{
			// mcp-go answers 202 to any posted body without an id or a
			// method. The transport's refusal rule covers notifications
			// and responses only, so accepting them is never XPORT-009's
			// failure.
			name: "accepts every message without a method with 202", target: authed.URL,
			args: append([]string{"--label-filter", "req:TASKS-XPORT-009"}, withTokens...), exit: 0,
			b: breakage{onRequest: func(w http.ResponseWriter, r *http.Request, req *rpcRequest) bool {
				if r.Method != http.MethodPost || req.Method != "" {
					return false
				}
				w.WriteHeader(http.StatusAccepted)
				return true
			}},
			want: []outcome{{id: "TASKS-XPORT-009", status: report.StatusPass}},
		},
		{
			// The control of the case above: refusing a response with a
			// JSON-RPC error body but HTTP 200 is what XPORT-009 forbids.
			name: "refuses a stray response with HTTP 200", target: authed.URL,
			args: append([]string{"--label-filter", "req:TASKS-XPORT-009"}, withTokens...), exit: 1,
			b: breakage{onRequest: func(w http.ResponseWriter, r *http.Request, req *rpcRequest) bool {
				if r.Method != http.MethodPost || req.Method != "" {
					return false
				}
				w.Header().Set("Content-Type", "application/json")
				_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "error": map[string]any{"code": -32600, "message": "unexpected response"}})
				return true
			}},
			want: []outcome{{id: "TASKS-XPORT-009", status: report.StatusFail, msg: "HTTP 200"}},
		},
		{
			// A tasks/result payload that is no CallToolResult is judged
			// once, by WIRE-CALLRESULT-001; the result specs only judge
			// what they are about (blocking, the isError outcome).
			name: "serves tasks/result payloads that are no CallToolResult", target: authed.URL,
			args: append([]string{"--label-filter", "req:TASKS-RESULT-003 || req:TASKS-RESULT-004 || req:TASKS-WIRE-CALLRESULT-001"}, withTokens...), exit: 1,
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if r := resultOf(msg); r != nil && method == "tasks/result" {
					r["content"] = "not a list of content blocks"
				}
			}},
			want: []outcome{
				{id: "TASKS-RESULT-003", status: report.StatusPass},
				{id: "TASKS-RESULT-004", status: report.StatusPass},
				{id: "TASKS-WIRE-CALLRESULT-001", status: report.StatusFail, msg: "sleep task"},
			},
		},
		{
			// Only the isError tool's payload is malformed: still judged
			// by WIRE-CALLRESULT-001, not by RESULT-003.
			name: "serves a malformed isError payload through tasks/result", target: authed.URL,
			args: append([]string{"--label-filter", "req:TASKS-RESULT-003 || req:TASKS-WIRE-CALLRESULT-001"}, withTokens...), exit: 1,
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if r := resultOf(msg); method == "tasks/result" && r != nil && r["isError"] == true {
					r["content"] = "not a list of content blocks"
				}
			}},
			want: []outcome{
				{id: "TASKS-RESULT-003", status: report.StatusPass},
				{id: "TASKS-WIRE-CALLRESULT-001", status: report.StatusFail, msg: "isError tool task"},
			},
		},
		{
			// The TypeScript SDK example dies when the work of a task it
			// already dropped (odd ttl: 0, negative, above 2^31-1 ms) ends.
			// The ttl specs run long probe tasks, so they never make it
			// store such a result: here the "crash" is a dropped
			// connection, and none of them may end in an error.
			name: "dies when a short task with an odd ttl ends", target: authed.URL,
			args: append([]string{"--label-filter", "req:MCPT-TTLREQ-001 || req:TASKS-RSRC-002 || req:TASKS-TTL-004"}, withTokens...), exit: 0,
			b: breakage{onRequest: func(w http.ResponseWriter, _ *http.Request, req *rpcRequest) bool {
				ttl, ok := requestedTTL(req)
				if req.Method != "tools/call" || !ok || (ttl > 0 && ttl < 1<<31) || callArg(req, "ms") >= 60000 {
					return false
				}
				if hj, ok := w.(http.Hijacker); ok {
					if conn, _, err := hj.Hijack(); err == nil {
						conn.Close()
						return true
					}
				}
				w.WriteHeader(http.StatusBadGateway)
				return true
			}},
			want: []outcome{
				{id: "MCPT-TTLREQ-001", status: report.StatusPass, apart: true},
				{id: "TASKS-RSRC-002", status: report.StatusPass},
				{id: "TASKS-TTL-004", status: report.StatusPass},
			},
		},
		{
			// The TypeScript SDK queues the answer to a tasks/get whose
			// related-task metadata names another task for that task's
			// stream: no answer comes back. The metadata was not ignored
			// (META-005); which task the answer would name (META-003)
			// cannot be seen.
			name: "lets related-task metadata decide where a tasks/get answer goes", target: authed.URL,
			args: append([]string{"--label-filter", "req:TASKS-META-003 || req:TASKS-META-005"}, withTokens...), exit: 1,
			b: breakage{onRequest: func(w http.ResponseWriter, _ *http.Request, req *rpcRequest) bool {
				var p struct {
					TaskID string `json:"taskId"`
					Meta   map[string]struct {
						TaskID string `json:"taskId"`
					} `json:"_meta"`
				}
				if req.Method != "tasks/get" || json.Unmarshal(req.Params, &p) != nil {
					return false
				}
				rel, ok := p.Meta["io.modelcontextprotocol/related-task"]
				if !ok || rel.TaskID == p.TaskID || rel.TaskID == "mcptasks-no-such-task" {
					return false
				}
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusOK)
				return true
			}},
			want: []outcome{
				{id: "TASKS-META-003", status: report.StatusNotSupported, msg: "judged by TASKS-META-005"},
				{id: "TASKS-META-005", status: report.StatusFail, msg: "not answered on its own stream"},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var h http.Handler = brokenProxy(tc.target, tc.b)
			proxy := httptest.NewServer(h)
			defer proxy.Close()
			dir := t.TempDir()
			args := append([]string{"--server", proxy.URL + "/mcp", "--report-dir", dir}, tc.args...)
			code, stdout, stderr := runCLI(t, args...)
			if code != tc.exit {
				t.Errorf("exit %d, want %d\n%s\n%s", code, tc.exit, stdout, stderr)
			}
			r := readReport(t, dir)
			for _, w := range tc.want {
				e, found, apart := entryOf(r, w.id)
				switch {
				case !found:
					t.Errorf("%s is not in the report", w.id)
				case e.Status != w.status:
					t.Errorf("%s is %s (%s), want %s", w.id, e.Status, e.Message, w.status)
				case apart != w.apart:
					t.Errorf("%s listed among the recommendations: %v, want %v", w.id, apart, w.apart)
				case w.msg != "" && !strings.Contains(e.Message, w.msg):
					t.Errorf("%s message %q lacks %q", w.id, e.Message, w.msg)
				}
			}
		})
	}
}

// TestStrictBindsToolkitRules checks that --strict makes a toolkit rule
// decide the verdict against a server the default profile lets pass, and
// that the mcptasks profile lists it among the requirements.
func TestStrictBindsToolkitRules(t *testing.T) {
	ctx := context.Background()
	inst, err := reference.Start(ctx, reference.Options{Config: tasks.Config{PollInterval: 50 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close(ctx)
	// Report every created task's ttl as 0: the toolkit's ttl rule is
	// broken, no rule of the spec is.
	proxy := httptest.NewServer(brokenProxy(inst.URL, breakage{onMessage: func(method string, msg map[string]any) {
		if r := resultOf(msg); r != nil && method == "tools/call" {
			if t, ok := r["task"].(map[string]any); ok {
				t["ttl"] = 0
			}
		}
	}}))
	defer proxy.Close()
	for _, tc := range []struct {
		args  []string
		exit  int
		apart bool
	}{
		{nil, 0, true},
		{[]string{"--strict"}, 1, false},
		// Bound, but a SHOULD: listed among the requirements, and only
		// strict mode lets a SHOULD decide the verdict.
		{[]string{"--profile", "mcptasks"}, 0, false},
	} {
		dir := t.TempDir()
		args := append([]string{"--server", proxy.URL + "/mcp", "--report-dir", dir, "--label-filter", "req:MCPT-TTLREQ-001"}, tc.args...)
		code, stdout, stderr := runCLI(t, args...)
		if code != tc.exit {
			t.Errorf("%v: exit %d, want %d\n%s\n%s", tc.args, code, tc.exit, stdout, stderr)
		}
		r := readReport(t, dir)
		e, found, apart := entryOf(r, "MCPT-TTLREQ-001")
		if !found || e.Status != report.StatusFail || apart != tc.apart {
			t.Errorf("%v: MCPT-TTLREQ-001 found %v status %s apart %v, want fail apart %v", tc.args, found, e.Status, apart, tc.apart)
		}
		if tc.apart && !strings.Contains(stdout, "Recommendations") {
			t.Errorf("%v: the console does not show the recommendations apart:\n%s", tc.args, stdout)
		}
	}
}
