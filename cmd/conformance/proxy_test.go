package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// breakage makes a conforming server misbehave in one precise way. It sits
// in a reverse proxy in front of the reference server, so every other
// behaviour stays correct and the suite must single out the broken rule.
type breakage struct {
	// onRequest may answer a request itself (returning true) or change
	// its headers before it is forwarded.
	onRequest func(w http.ResponseWriter, r *http.Request, req *rpcRequest) bool
	// onMessage may change a message the server sends (answers and
	// server-initiated messages, JSON or SSE); method is the method of
	// the client request whose HTTP response carries it.
	onMessage func(method string, msg map[string]any)
}

// rpcRequest is the part of a posted JSON-RPC message the proxy reads.
type rpcRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

type methodKey struct{}

// brokenProxy forwards to target, applying b.
func brokenProxy(target string, b breakage) http.Handler {
	u, err := url.Parse(target)
	if err != nil {
		panic(err)
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(&url.URL{Scheme: u.Scheme, Host: u.Host})
			pr.Out.URL.Path = u.Path
			pr.Out.Host = u.Host
		},
		FlushInterval: -1,
		ModifyResponse: func(resp *http.Response) error {
			if b.onMessage == nil {
				return nil
			}
			method, _ := resp.Request.Context().Value(methodKey{}).(string)
			ct := resp.Header.Get("Content-Type")
			switch {
			case strings.HasPrefix(ct, "application/json"):
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil {
					return err
				}
				body = transform(body, method, b.onMessage)
				resp.Body = io.NopCloser(bytes.NewReader(body))
				resp.ContentLength = int64(len(body))
				resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
			case strings.HasPrefix(ct, "text/event-stream"):
				pr, pw := io.Pipe()
				src := resp.Body
				go func() {
					defer src.Close()
					br := bufio.NewReader(src)
					for {
						line, err := br.ReadString('\n')
						if strings.HasPrefix(line, "data:") {
							data := strings.TrimSpace(strings.TrimPrefix(line, "data:"))
							if data != "" {
								line = "data: " + string(transform([]byte(data), method, b.onMessage)) + "\n"
							}
						}
						if _, werr := io.WriteString(pw, line); werr != nil {
							return
						}
						if err != nil {
							pw.CloseWithError(err)
							return
						}
					}
				}()
				resp.Body = pr
				resp.ContentLength = -1
				resp.Header.Del("Content-Length")
			}
			return nil
		},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req rpcRequest
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body.Close()
			_ = json.Unmarshal(body, &req)
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
		}
		if b.onRequest != nil && b.onRequest(w, r, &req) {
			return
		}
		ctx := context.WithValue(r.Context(), methodKey{}, req.Method)
		rp.ServeHTTP(w, r.WithContext(ctx))
	})
}

// transform decodes one JSON-RPC message, lets f change it and re-encodes it.
func transform(raw []byte, method string, f func(string, map[string]any)) []byte {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return raw
	}
	f(method, m)
	out, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return out
}

// taskObjects returns the task objects inside a result: the CreateTaskResult
// task, a flat get/cancel result, or list items.
func taskObjects(result map[string]any) []map[string]any {
	var out []map[string]any
	if t, ok := result["task"].(map[string]any); ok {
		out = append(out, t)
	}
	if _, ok := result["taskId"]; ok {
		out = append(out, result)
	}
	if ts, ok := result["tasks"].([]any); ok {
		for _, t := range ts {
			if tm, ok := t.(map[string]any); ok {
				out = append(out, tm)
			}
		}
	}
	return out
}

func resultOf(msg map[string]any) map[string]any {
	r, _ := msg["result"].(map[string]any)
	return r
}

// breakages are the deliberately broken servers, each with the filter that
// keeps the run short and the requirement it must fail.
func breakages(tokA, tokB string) []struct {
	name    string
	b       breakage
	filter  string
	want    string
	wantMsg string
} {
	var (
		mu        sync.Mutex
		cancelled = map[string]time.Time{}
	)
	return []struct {
		name    string
		b       breakage
		filter  string
		want    string
		wantMsg string
	}{
		{
			// Only the schema check every spec runs on what it received
			// can see this one: no spec looks at _meta's type.
			name: "sends a _meta that is not an object", filter: "area:poll", want: "TASKS-LIFE-005", wantMsg: "wire:",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if r := resultOf(msg); r != nil && method == "tasks/get" {
					r["_meta"] = "not an object"
				}
			}},
		},
		{
			name: "drops ttl", filter: "area:poll", want: "TASKS-TTL-004",
			b: breakage{onMessage: func(_ string, msg map[string]any) {
				if r := resultOf(msg); r != nil {
					for _, t := range taskObjects(r) {
						delete(t, "ttl")
					}
				}
			}},
		},
		{
			name: "answers -32603 for a bad taskId", filter: "area:errors", want: "TASKS-ERR-001",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if e, ok := msg["error"].(map[string]any); ok && strings.HasPrefix(method, "tasks/") {
					if code, _ := e["code"].(float64); code == -32602 {
						e["code"] = -32603
					}
				}
			}},
		},
		{
			name: "leaks tasks across owners", filter: "area:isolation", want: "TASKS-SEC-006",
			b: breakage{onRequest: func(_ http.ResponseWriter, r *http.Request, _ *rpcRequest) bool {
				if r.Header.Get("Authorization") == "Bearer "+tokB {
					r.Header.Set("Authorization", "Bearer "+tokA)
				}
				return false
			}},
		},
		{
			name: "returns tasks/result before the task ends", filter: "area:result", want: "TASKS-RESULT-004",
			b: breakage{onRequest: func(w http.ResponseWriter, _ *http.Request, req *rpcRequest) bool {
				if req.Method != "tasks/result" {
					return false
				}
				var p struct {
					TaskID string `json:"taskId"`
				}
				_ = json.Unmarshal(req.Params, &p)
				w.Header().Set("Content-Type", "application/json")
				_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{
					"content": []any{map[string]any{"type": "text", "text": "not yet"}},
					"_meta":   map[string]any{"io.modelcontextprotocol/related-task": map[string]any{"taskId": p.TaskID}},
				}})
				return true
			}},
		},
		{
			name: "strips related-task metadata", filter: "area:result", want: "TASKS-META-007",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if r := resultOf(msg); r != nil && method == "tasks/result" {
					if meta, ok := r["_meta"].(map[string]any); ok {
						delete(meta, "io.modelcontextprotocol/related-task")
						if len(meta) == 0 {
							delete(r, "_meta")
						}
					}
				}
			}},
		},
		{
			name: "lets a cancelled task complete", filter: "area:cancel", want: "TASKS-CANCEL-004",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				r := resultOf(msg)
				if r == nil {
					return
				}
				id, _ := r["taskId"].(string)
				mu.Lock()
				defer mu.Unlock()
				switch method {
				case "tasks/cancel":
					if r["status"] == "cancelled" {
						cancelled[id] = time.Now()
					}
				case "tasks/get":
					if at, ok := cancelled[id]; ok && time.Since(at) > 200*time.Millisecond {
						r["status"] = "completed"
					}
				}
			}},
		},
	}
}
