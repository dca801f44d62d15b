package main

import (
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// sharedInvariantBreakages are servers that break one invariant the two
// protocol profiles share, the same way on both wires. The specs of that
// invariant are written once (suites/shared_invariants.go) and run once
// per profile, so each breakage must fail exactly the invariant's
// requirement in both profiles: want lists the two.
func sharedInvariantBreakages(tokA, tokB string) []struct {
	name   string
	filter string
	want   []string
	b      breakage
} {
	type tc = struct {
		name   string
		filter string
		want   []string
		b      breakage
	}
	return []tc{
		{
			// The first terminal tasks/get of a task is true; every later
			// one shows it working again.
			name:   "reopens a task after it ended",
			filter: "area:invariants",
			want:   []string{"EXT-LIFE-009", "TASKS-LIFE-002", "TASKS-NCANCEL-008"},
			b:      reopenAfterEnd(),
		},
		{
			// tasks/get of a task created more than 300 ms ago is answered
			// as unknown, whatever ttl the task reported.
			name:   "drops a task long before its ttl",
			filter: "req:TASKS-TTL-004 || req:EXT-TTL-007",
			want:   []string{"EXT-TTL-007", "TASKS-TTL-004"},
			b:      dropAfter(300 * time.Millisecond),
		},
		{
			// The result a task holds is not the one the call gives.
			name:   "hands back another result than the call gives",
			filter: "req:TASKS-RESULT-005 || req:EXT-ERR-011",
			want:   []string{"EXT-ERR-011", "TASKS-RESULT-005"},
			b: breakage{onMessage: func(method string, msg map[string]any) {
				r := resultOf(msg)
				switch {
				case r != nil && method == "tasks/result":
					markContent(r)
				case r != nil && method == "tasks/get":
					if res, ok := r["result"].(map[string]any); ok {
						markContent(res)
					}
				}
			}},
		},
		{
			// The error a task holds is not the one the call raises.
			name:   "hands back another error than the call raises",
			filter: "req:TASKS-ERR-008 || req:EXT-ERR-008",
			want:   []string{"EXT-ERR-008", "TASKS-ERR-008"},
			b: breakage{onMessage: func(method string, msg map[string]any) {
				var e map[string]any
				switch method {
				case "tasks/result":
					e, _ = msg["error"].(map[string]any)
				case "tasks/get":
					e, _ = resultOf(msg)["error"].(map[string]any)
				}
				if e != nil {
					e["message"] = "the task failed"
				}
			}},
		},
		{
			// Identity B's requests reach the server as identity A's.
			name:   "serves identity B as identity A",
			filter: "req:TASKS-SEC-006 || req:EXT-SEC-003",
			want:   []string{"EXT-SEC-003", "TASKS-SEC-006"},
			b: breakage{onRequest: func(_ http.ResponseWriter, r *http.Request, _ *rpcRequest) bool {
				if r.Header.Get("Authorization") == "Bearer "+tokB {
					r.Header.Set("Authorization", "Bearer "+tokA)
				}
				return false
			}},
		},
	}
}

// markContent changes the text of a CallToolResult's first content block.
func markContent(res map[string]any) {
	if cs, ok := res["content"].([]any); ok && len(cs) > 0 {
		if c, ok := cs[0].(map[string]any); ok {
			c["text"] = "changed by the proxy"
		}
	}
}

// taskIDOf returns the id of the task a CreateTaskResult (either wire)
// or a flat tasks/get result names.
func taskIDOf(r map[string]any) string {
	ts := taskObjects(r)
	if len(ts) == 0 {
		return ""
	}
	id, _ := ts[0]["taskId"].(string)
	return id
}

// reopenAfterEnd shows every task as working on each tasks/get after the
// first that showed it terminal.
func reopenAfterEnd() breakage {
	var mu sync.Mutex
	ended := map[string]bool{}
	return breakage{onMessage: func(method string, msg map[string]any) {
		r := resultOf(msg)
		if r == nil || method != "tasks/get" {
			return
		}
		id := taskIDOf(r)
		st, _ := r["status"].(string)
		if st != "completed" && st != "failed" && st != "cancelled" {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if ended[id] {
			r["status"] = "working"
			delete(r, "result")
			delete(r, "error")
			return
		}
		ended[id] = true
	}}
}

// dropAfter answers tasks/get with -32602 for a task created more than
// age ago.
func dropAfter(age time.Duration) breakage {
	var mu sync.Mutex
	born := map[string]time.Time{}
	return breakage{
		onMessage: func(method string, msg map[string]any) {
			r := resultOf(msg)
			if r == nil || method != "tools/call" {
				return
			}
			if _, legacy := r["task"]; !legacy && r["resultType"] != "task" {
				return
			}
			mu.Lock()
			born[taskIDOf(r)] = time.Now()
			mu.Unlock()
		},
		onRequest: func(w http.ResponseWriter, _ *http.Request, req *rpcRequest) bool {
			if req.Method != "tasks/get" {
				return false
			}
			mu.Lock()
			t, ok := born[req.param("taskId")]
			mu.Unlock()
			if !ok || time.Since(t) < age {
				return false
			}
			return answer(w, req, nil, map[string]any{"code": -32602, "message": "task not found"})
		},
	}
}

// TestSharedInvariantsFailInBothProfiles: each breakage of an invariant
// shared by 2025-11-25 and 2026-07-28 fails exactly that invariant's
// requirement in both profiles, and the run is non-conformant.
func TestSharedInvariantsFailInBothProfiles(t *testing.T) {
	if testing.Short() {
		t.Skip("certifies broken servers")
	}
	tokA, tokB := proxyTokens()
	for _, bc := range sharedInvariantBreakages(tokA, tokB) {
		t.Run(bc.name, func(t *testing.T) {
			t.Parallel()
			run := certifyThrough(t, bc.b, bc.filter)
			if run.report == nil {
				t.Fatalf("exit %d, no report\n%s\n%s", run.code, run.stdout, run.stderr)
			}
			var ids []string
			for _, e := range failing(run.report) {
				ids = append(ids, e.ID)
				if !strings.Contains(e.Message, "\nspec: ") {
					t.Errorf("%s failed without naming its spec section: %s", e.ID, e.Message)
				}
			}
			slices.Sort(ids)
			if !slices.Equal(ids, bc.want) {
				t.Fatalf("failing %v, want exactly %v\n%s", ids, bc.want, run.stdout)
			}
			if run.code != 1 {
				t.Errorf("exit %d; a failed MUST makes the server non-conformant", run.code)
			}
		})
	}
}
