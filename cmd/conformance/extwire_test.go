package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/mcptasks/mcptasks/suites/report"
)

// errorOf returns the error object of a JSON-RPC error response.
func errorOf(msg map[string]any) map[string]any {
	e, _ := msg["error"].(map[string]any)
	return e
}

// hasCode reports whether msg is an error response with code.
func hasCode(msg map[string]any, code float64) bool {
	e := errorOf(msg)
	return e != nil && e["code"] == code
}

// progressAnswer answers a tools/call of the progress fixture that carries
// a progressToken with an event stream of one progress notification
// (params as given) and a plain result, in place of the server.
func progressAnswer(w http.ResponseWriter, req *rpcRequest, params map[string]any) bool {
	var p struct {
		Name string `json:"name"`
		Meta struct {
			Token any `json:"progressToken"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(req.Params, &p)
	if req.Method != "tools/call" || !modernRequest(req) || p.Name != "fixture_progress" || p.Meta.Token == nil {
		return false
	}
	params["progressToken"] = p.Meta.Token
	note, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress", "params": params})
	res, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{
		"resultType": "complete", "content": []any{map[string]any{"type": "text", "text": "done"}}}})
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, "data: %s\n\ndata: %s\n\n", note, res)
	return true
}

// TestExtWireSpecsFailExactlyTheBrokenRule certifies, in the area
// ext-wire only, the reference server behind proxies that each break one
// wire shape of the 2026-07-28 profile, and checks that exactly the
// requirements that shape breaks fail (no other fails or errs), and that
// the clean proxy and a server sending a valid progress notification fail
// nothing.
func TestExtWireSpecsFailExactlyTheBrokenRule(t *testing.T) {
	if testing.Short() {
		t.Skip("certifies two dozen broken servers")
	}
	getResult := func(f func(r map[string]any)) breakage {
		return breakage{onMessage: func(method string, msg map[string]any) {
			if r := resultOf(msg); r != nil && method == "tasks/get" {
				f(r)
			}
		}}
	}
	onError := func(code float64, f func(msg, e map[string]any)) breakage {
		return breakage{onMessage: func(_ string, msg map[string]any) {
			if hasCode(msg, code) {
				f(msg, errorOf(msg))
			}
		}}
	}
	cases := []struct {
		name string
		b    breakage
		want []string
		// pass lists requirements that must pass (not be not-applicable).
		pass []string
	}{
		{name: "clean proxy", b: breakage{onMessage: func(string, map[string]any) {}},
			pass: []string{"EXT-WIRE-011", "EXT-WIRE-012", "EXT-WIRE-014", "EXT-WIRE-019", "EXT-WIRE-024", "EXT-WIRE-026", "EXT-WIRE-030", "EXT-WIRE-031", "EXT-WIRE-032", "EXT-WIRE-040", "EXT-WIRE-042"}},
		{name: "numeric taskId in tasks/get", b: getResult(func(r map[string]any) { r["taskId"] = 12345 }),
			want: []string{"EXT-WIRE-002", "EXT-WIRE-011"}},
		{name: "status done instead of working in tasks/get", b: getResult(func(r map[string]any) {
			if r["status"] == "working" {
				r["status"] = "done"
			}
		}), want: []string{"EXT-WIRE-003", "EXT-WIRE-011"}},
		{name: "lastUpdatedAt as epoch milliseconds in tasks/get", b: getResult(func(r map[string]any) { r["lastUpdatedAt"] = 1764378000000 }),
			want: []string{"EXT-WIRE-004", "EXT-WIRE-011"}},
		{name: "statusMessage as a number in tasks/get", b: getResult(func(r map[string]any) { r["statusMessage"] = 42 }),
			want: []string{"EXT-WIRE-007", "EXT-WIRE-011"}},
		{name: "ttlMs as a string in the CreateTaskResult", b: breakage{onMessage: func(method string, msg map[string]any) {
			if r := resultOf(msg); r != nil && method == "tools/call" && r["resultType"] == "task" {
				r["ttlMs"] = "60000"
			}
		}}, want: []string{"EXT-WIRE-010"}},
		{name: "resultType task in tasks/get", b: getResult(func(r map[string]any) { r["resultType"] = "task" }),
			want: []string{"EXT-WIRE-011"}},
		{name: "input_required without inputRequests", b: getResult(func(r map[string]any) {
			if r["status"] == "input_required" {
				delete(r, "inputRequests")
			}
		}), want: []string{"EXT-WIRE-011", "EXT-WIRE-012"}},
		{name: "input_required with an empty inputRequests", b: getResult(func(r map[string]any) {
			if r["status"] == "input_required" {
				r["inputRequests"] = map[string]any{}
			}
		}), want: []string{"EXT-WIRE-012"}},
		{name: "input request with an unknown method", b: getResult(func(r map[string]any) {
			reqs, _ := r["inputRequests"].(map[string]any)
			for _, v := range reqs {
				if q, ok := v.(map[string]any); ok {
					q["method"] = "elicitation/ask"
				}
			}
		}), want: []string{"EXT-WIRE-011", "EXT-WIRE-026"}},
		{name: "failed task whose error lacks a message", b: getResult(func(r map[string]any) {
			if e, ok := r["error"].(map[string]any); ok {
				delete(e, "message")
			}
		}), want: []string{"EXT-WIRE-011", "EXT-WIRE-014", "EXT-WIRE-043"}},
		{name: "tasks/update acknowledged without resultType", b: breakage{onMessage: func(method string, msg map[string]any) {
			if r := resultOf(msg); r != nil && method == "tasks/update" {
				delete(r, "resultType")
			}
		}}, want: []string{"EXT-BASE-006", "EXT-WIRE-019"}},
		{name: "tasks/cancel acknowledged with resultType cancelled", b: breakage{onMessage: func(method string, msg map[string]any) {
			if r := resultOf(msg); r != nil && method == "tasks/cancel" {
				r["resultType"] = "cancelled"
			}
		}}, want: []string{"EXT-WIRE-021"}},
		{name: "listen acknowledgement with numeric taskIds", b: breakage{onMessage: func(_ string, msg map[string]any) {
			if msg["method"] == "notifications/subscriptions/acknowledged" {
				if n, ok := paramsOf(msg)["notifications"].(map[string]any); ok {
					n["taskIds"] = []any{1, 2}
				}
			}
		}}, want: []string{"EXT-WIRE-024"}},
		{name: "task notifications with a boolean subscriptionId", b: breakage{onMessage: func(_ string, msg map[string]any) {
			if msg["method"] == "notifications/tasks" {
				if meta, ok := paramsOf(msg)["_meta"].(map[string]any); ok {
					meta["io.modelcontextprotocol/subscriptionId"] = true
				}
			}
		}}, want: []string{"EXT-WIRE-040"}},
		{name: "server/discover advertising an extension whose value is not an object", b: breakage{onMessage: func(method string, msg map[string]any) {
			if r := resultOf(msg); r != nil && method == "server/discover" {
				if caps, ok := r["capabilities"].(map[string]any); ok {
					if ext, ok := caps["extensions"].(map[string]any); ok {
						ext["com.example/flag"] = true
					}
				}
			}
		}}, want: []string{"EXT-WIRE-029"}},
		{name: "server/discover without ttlMs", b: breakage{onMessage: func(method string, msg map[string]any) {
			if r := resultOf(msg); r != nil && method == "server/discover" {
				delete(r, "ttlMs")
			}
		}}, want: []string{"EXT-WIRE-034"}},
		{name: "-32021 without data", b: onError(-32021, func(_, e map[string]any) { delete(e, "data") }),
			want: []string{"EXT-WIRE-030"}},
		{name: "-32020 without a message", b: onError(-32020, func(_, e map[string]any) { delete(e, "message") }),
			want: []string{"EXT-ERR-015", "EXT-WIRE-031", "EXT-WIRE-043"}},
		{name: "-32022 without data.requested", b: onError(-32022, func(_, e map[string]any) {
			if d, ok := e["data"].(map[string]any); ok {
				delete(d, "requested")
			}
		}), want: []string{"EXT-WIRE-032"}},
		{name: "-32602 answered under another id", b: onError(-32602, func(msg, _ map[string]any) { msg["id"] = "not-the-request-id" }),
			want: []string{"EXT-ERR-015"}},
		{name: "tools/list answered under another id", b: breakage{onMessage: func(method string, msg map[string]any) {
			if resultOf(msg) != nil && method == "tools/list" {
				msg["id"] = "not-the-request-id"
			}
		}}, want: []string{"EXT-BASE-005"}},
		{name: "tools/list answered as JSON-RPC 1.0", b: breakage{onMessage: func(method string, msg map[string]any) {
			if resultOf(msg) != nil && method == "tools/list" {
				msg["jsonrpc"] = "1.0"
			}
		}}, want: []string{"EXT-BASE-002"}},
		{name: "tools/list result without resultType", b: breakage{onMessage: func(method string, msg map[string]any) {
			if r := resultOf(msg); r != nil && method == "tools/list" {
				delete(r, "resultType")
			}
		}}, want: []string{"EXT-BASE-006"}},
		{name: "a _meta key outside the key grammar in tasks/get", b: getResult(func(r map[string]any) {
			meta, ok := r["_meta"].(map[string]any)
			if !ok {
				meta = map[string]any{}
				r["_meta"] = meta
			}
			meta["-bad key-"] = true
		}), want: []string{"EXT-BASE-009"}},
		{name: "progress notification without progress", b: breakage{onRequest: func(w http.ResponseWriter, _ *http.Request, req *rpcRequest) bool {
			return progressAnswer(w, req, map[string]any{"message": "halfway"})
		}}, want: []string{"EXT-WIRE-042"}},
		{name: "valid progress notification", b: breakage{onRequest: func(w http.ResponseWriter, _ *http.Request, req *rpcRequest) bool {
			return progressAnswer(w, req, map[string]any{"progress": 1, "total": 2})
		}}, pass: []string{"EXT-WIRE-042"}},
		{name: "the server's own progress as a string", b: breakage{onMessage: func(method string, msg map[string]any) {
			if p, ok := msg["params"].(map[string]any); ok && method == "tools/call" && msg["method"] == "notifications/progress" {
				p["progress"] = fmt.Sprint(p["progress"])
			}
		}}, want: []string{"EXT-WIRE-042"}},
	}
	runs := make([]brokenRun, len(cases))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 3)
	for i := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			runs[i] = certifyThrough(t, cases[i].b, "area:ext-wire")
		}()
	}
	wg.Wait()
	var table strings.Builder
	for i, tc := range cases {
		run := runs[i]
		var bad []string
		if run.report != nil {
			for _, e := range run.report.Requirements {
				if e.Status == report.StatusFail || e.Status == report.StatusError {
					bad = append(bad, e.ID)
				}
			}
		}
		sort.Strings(bad)
		fmt.Fprintf(&table, "%-72s failing %v (%.1fs)\n", tc.name, bad, run.elapsed.Seconds())
		t.Run(tc.name, func(t *testing.T) {
			if run.report == nil {
				t.Fatalf("exit %d, no report\n%s\n%s", run.code, run.stdout, run.stderr)
			}
			want := slices.Clone(tc.want)
			sort.Strings(want)
			if !slices.Equal(bad, want) {
				for _, id := range bad {
					t.Logf("%s %s: %s", id, statusOf(run.report, id), messageOf(run.report, id))
				}
				t.Fatalf("failing %v, want exactly %v", bad, want)
			}
			for _, id := range tc.pass {
				if got := statusOf(run.report, id); got != report.StatusPass {
					t.Errorf("%s is %s (%s), want pass", id, got, messageOf(run.report, id))
				}
			}
			if len(want) > 0 && (run.code != 1 || run.report.Summary.Verdict != report.VerdictNonConformant) {
				t.Errorf("exit %d, verdict %s; a failed MUST makes the server non-conformant", run.code, run.report.Summary.Verdict)
			}
		})
	}
	t.Logf("ext-wire breakages and what failed:\n%s", table.String())
}
