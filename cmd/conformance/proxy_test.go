package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/suites"
	"github.com/mcptasks/mcptasks/suites/report"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/server"
	"github.com/mcptasks/mcptasks/tasks/server/reference"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// breakage makes a conforming server misbehave in one precise way. It sits
// in a reverse proxy in front of the reference server, so every other
// behaviour stays correct and the suite must single out the broken rule.
type breakage struct {
	// onRequest may answer a request itself (returning true), change its
	// headers, or change its params with setParams, before it is
	// forwarded.
	onRequest func(w http.ResponseWriter, r *http.Request, req *rpcRequest) bool
	// onMessage may change a message the server sends (answers and
	// server-initiated messages, JSON or SSE); method is the method of
	// the client request whose HTTP response carries it ("" on the GET
	// stream).
	onMessage func(method string, msg map[string]any)
	// onResponse may change the HTTP response itself (status, headers)
	// before its body is rewritten.
	onResponse func(method string, resp *http.Response)
	// onEventID may change the id of every SSE event ("" for an event
	// that has none, which then gets the id returned).
	onEventID func(id string) string
}

// rpcRequest is the part of a posted JSON-RPC message the proxy reads.
type rpcRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// mustJSON encodes a request as the JSON-RPC message it came in.
func mustJSON(req *rpcRequest) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "method": req.Method, "params": req.Params})
	return b
}

// modernRequest reports whether req is a 2026-07-28 request (its _meta
// names a protocol version, or it is server/discover).
func modernRequest(req *rpcRequest) bool {
	return req.Method == "server/discover" || strings.Contains(string(req.Params), "io.modelcontextprotocol/protocolVersion")
}

// param decodes one member of the request's params ("" if absent).
func (req *rpcRequest) param(key string) string {
	var p map[string]json.RawMessage
	_ = json.Unmarshal(req.Params, &p)
	var s string
	_ = json.Unmarshal(p[key], &s)
	return s
}

// setParams rewrites the params of the request about to be forwarded.
func setParams(r *http.Request, req *rpcRequest, f func(p map[string]any)) {
	var p map[string]any
	_ = json.Unmarshal(req.Params, &p)
	if p == nil {
		p = map[string]any{}
	}
	f(p)
	raw, _ := json.Marshal(p)
	req.Params = raw
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "method": req.Method, "params": p})
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
}

// answer writes a JSON-RPC answer to req in place of the server.
func answer(w http.ResponseWriter, req *rpcRequest, result any, rpcErr map[string]any) bool {
	msg := map[string]any{"jsonrpc": "2.0", "id": req.ID}
	if rpcErr != nil {
		msg["error"] = rpcErr
	} else {
		msg["result"] = result
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(msg)
	return true
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
			method, _ := resp.Request.Context().Value(methodKey{}).(string)
			ct := resp.Header.Get("Content-Type")
			if b.onResponse != nil {
				b.onResponse(method, resp)
			}
			if b.onMessage == nil && b.onEventID == nil {
				return nil
			}
			onMessage := b.onMessage
			if onMessage == nil {
				onMessage = func(string, map[string]any) {}
			}
			switch {
			case strings.HasPrefix(ct, "application/json"):
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil {
					return err
				}
				body = transform(body, method, onMessage)
				resp.Body = io.NopCloser(bytes.NewReader(body))
				resp.ContentLength = int64(len(body))
				resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
			case strings.HasPrefix(ct, "text/event-stream"):
				pr, pw := io.Pipe()
				src := resp.Body
				go func() {
					defer src.Close()
					br := bufio.NewReader(src)
					hasID := false
					for {
						line, err := br.ReadString('\n')
						switch {
						case strings.HasPrefix(line, "data:"):
							data := strings.TrimSpace(strings.TrimPrefix(line, "data:"))
							if data != "" {
								line = "data: " + string(transform([]byte(data), method, onMessage)) + "\n"
							}
							if b.onEventID != nil && !hasID {
								// An event without an id gets one.
								line = "id: " + b.onEventID("") + "\n" + line
								hasID = true
							}
						case strings.HasPrefix(line, "id:") && b.onEventID != nil:
							line = "id: " + b.onEventID(strings.TrimSpace(strings.TrimPrefix(line, "id:"))) + "\n"
							hasID = true
						case strings.TrimSpace(line) == "":
							hasID = false
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

func paramsOf(msg map[string]any) map[string]any {
	p, _ := msg["params"].(map[string]any)
	return p
}

// everyTask applies f to every task in every answer and status
// notification.
func everyTask(f func(t map[string]any)) func(string, map[string]any) {
	return func(_ string, msg map[string]any) {
		if r := resultOf(msg); r != nil {
			for _, t := range taskObjects(r) {
				f(t)
			}
		}
		if msg["method"] == "notifications/tasks/status" {
			if p := paramsOf(msg); p != nil {
				f(p)
			}
		}
	}
}

func dropRelated(obj map[string]any) {
	if meta, ok := obj["_meta"].(map[string]any); ok {
		delete(meta, wire.MetaRelatedTask)
		if len(meta) == 0 {
			delete(obj, "_meta")
		}
	}
}

func addRelated(obj map[string]any, id any) {
	meta, ok := obj["_meta"].(map[string]any)
	if !ok {
		meta = map[string]any{}
		obj["_meta"] = meta
	}
	meta[wire.MetaRelatedTask] = map[string]any{"taskId": id}
}

// progressTokenHeader carries, from onRequest to onResponse, the
// progressToken of a 2026-07-28 tools/call ("-" when it has none).
const progressTokenHeader = "X-Broken-Progress-Token"

// markProgressToken is an onRequest that notes the progressToken of a
// 2026-07-28 tools/call for onResponse.
func markProgressToken(_ http.ResponseWriter, r *http.Request, req *rpcRequest) bool {
	if req.Method != "tools/call" || !modernRequest(req) {
		return false
	}
	var p struct {
		Meta struct {
			Token json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(req.Params, &p)
	tok := "-"
	if len(p.Meta.Token) > 0 {
		tok = string(p.Meta.Token)
	}
	r.Header.Set(progressTokenHeader, tok)
	return false
}

// asStream turns a JSON answer into an event stream that carries notes
// (JSON-RPC notifications) before the answer.
func asStream(resp *http.Response, notes ...map[string]any) {
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var b bytes.Buffer
	for _, n := range notes {
		j, _ := json.Marshal(n)
		fmt.Fprintf(&b, "data: %s\n\n", j)
	}
	fmt.Fprintf(&b, "data: %s\n\n", bytes.TrimSpace(body))
	resp.Body = io.NopCloser(&b)
	resp.ContentLength = int64(b.Len())
	resp.Header.Set("Content-Length", strconv.Itoa(b.Len()))
	resp.Header.Set("Content-Type", "text/event-stream")
}

// brokenServer is one deliberately broken server: the breakage, the label
// filter that keeps its run short, and the requirement it must fail.
type brokenServer struct {
	name   string
	filter string
	want   string
	// wantMsg, when set, must appear in the failure message of want.
	wantMsg string
	b       breakage
	// serverOpts configure the reference server behind the proxy beyond
	// the two identities (server.WithModernOnly, say).
	serverOpts []server.Option
}

// isCreate reports whether msg is the CreateTaskResult answering a
// task-augmented tools/call.
func isCreate(method string, msg map[string]any) bool {
	r := resultOf(msg)
	_, ok := r["task"].(map[string]any)
	return method == "tools/call" && ok
}

// jsonID renders a JSON-RPC id the same way whether it came from a request
// (raw bytes) or a decoded answer.
func jsonID(v any) string {
	if raw, ok := v.(json.RawMessage); ok {
		return strings.TrimSpace(string(raw))
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// callArg reads a numeric argument of a tools/call request.
func callArg(req *rpcRequest, name string) float64 {
	var p struct {
		Arguments map[string]any `json:"arguments"`
	}
	_ = json.Unmarshal(req.Params, &p)
	f, _ := p.Arguments[name].(float64)
	return f
}

// requestedTTL returns params.task.ttl of a tools/call, if any.
func requestedTTL(req *rpcRequest) (float64, bool) {
	var p struct {
		Task *struct {
			TTL *float64 `json:"ttl"`
		} `json:"task"`
	}
	_ = json.Unmarshal(req.Params, &p)
	if p.Task == nil || p.Task.TTL == nil {
		return 0, false
	}
	return *p.Task.TTL, true
}

func hasTaskParam(req *rpcRequest) bool {
	var p map[string]json.RawMessage
	_ = json.Unmarshal(req.Params, &p)
	_, ok := p["task"]
	return ok
}

// bareInputRequired strips both inputRequests and requestState from
// every InputRequiredResult.
var bareInputRequired = breakage{onMessage: func(method string, msg map[string]any) {
	if r := resultOf(msg); r != nil && method == "tools/call" && r["resultType"] == "input_required" {
		delete(r, "inputRequests")
		delete(r, "requestState")
	}
}}

// positionalInputKeys is a 2026-07-28 server that names the input
// requests of a task by their position among those outstanding
// (input-0, input-1, ...), translating answers back: once the first is
// answered, input-0 names the request that was input-1.
func positionalInputKeys(want string) brokenServer {
	var mu sync.Mutex
	byTask := map[string]map[string]string{} // task -> shown key -> real key
	return brokenServer{
		name: "2026: names input requests by position, so a key comes to name another request (" + want + ")", filter: "area:ext-input", want: want,
		b: breakage{
			onMessage: func(method string, msg map[string]any) {
				r := resultOf(msg)
				reqs, ok := r["inputRequests"].(map[string]any)
				if method != "tasks/get" || !ok {
					return
				}
				id, _ := r["taskId"].(string)
				real := slices.Sorted(maps.Keys(reqs))
				shown, back := map[string]any{}, map[string]string{}
				for i, k := range real {
					key := fmt.Sprintf("input-%d", i)
					shown[key], back[key] = reqs[k], k
				}
				r["inputRequests"] = shown
				mu.Lock()
				byTask[id] = back
				mu.Unlock()
			},
			onRequest: func(_ http.ResponseWriter, r *http.Request, req *rpcRequest) bool {
				if req.Method != "tasks/update" || !modernRequest(req) {
					return false
				}
				mu.Lock()
				back := byTask[req.param("taskId")]
				mu.Unlock()
				setParams(r, req, func(p map[string]any) {
					resp, _ := p["inputResponses"].(map[string]any)
					out := map[string]any{}
					for k, v := range resp {
						if realKey, ok := back[k]; ok {
							k = realKey
						}
						out[k] = v
					}
					p["inputResponses"] = out
				})
				return false
			},
		},
	}
}

// heldOpen is an event-stream body that, once the server's stream has
// ended, sends one keep-alive comment and then holds the stream open
// until the client goes away.
type heldOpen struct {
	io.ReadCloser
	ctx   context.Context
	state int // 0: passing the server's stream, 1: comment due, 2: holding
}

func (h *heldOpen) Read(p []byte) (int, error) {
	switch h.state {
	case 0:
		n, err := h.ReadCloser.Read(p)
		if err == io.EOF {
			h.state, err = 1, nil
		}
		return n, err
	case 1:
		h.state = 2
		return copy(p, ": keep-alive\n\n"), nil
	}
	<-h.ctx.Done()
	return 0, io.EOF
}

// connHeader carries, from onRequest to onResponse, the client address
// (one per TCP connection) of the request being forwarded.
const connHeader = "X-Broken-Conn"

var taskIDPattern = regexp.MustCompile(`"taskId":"([^"]+)"`)

// connBoundTasks is a 2026-07-28 server that knows a task only on the TCP
// connection that created it: tasks/get arriving on any other connection
// is answered as for an unknown task.
func connBoundTasks() brokenServer {
	var mu sync.Mutex
	home := map[string]string{} // taskId -> client address of the creating tools/call
	return brokenServer{
		name: "2026: knows a task only on the connection that created it", filter: "req:EXT-GET-015", want: "EXT-GET-015",
		b: breakage{
			onRequest: func(w http.ResponseWriter, r *http.Request, req *rpcRequest) bool {
				if !modernRequest(req) {
					return false
				}
				r.Header.Set(connHeader, r.RemoteAddr)
				if req.Method != "tasks/get" {
					return false
				}
				mu.Lock()
				addr, ok := home[req.param("taskId")]
				mu.Unlock()
				if ok && addr != r.RemoteAddr {
					return answer(w, req, nil, map[string]any{"code": -32602, "message": "unknown task"})
				}
				return false
			},
			onResponse: func(method string, resp *http.Response) {
				if method != "tools/call" {
					return
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if m := taskIDPattern.FindSubmatch(body); m != nil {
					mu.Lock()
					home[string(m[1])] = resp.Request.Header.Get(connHeader)
					mu.Unlock()
				}
				resp.Body = io.NopCloser(bytes.NewReader(body))
			},
		},
	}
}

// cancelOnAnswer is a 2026-07-28 server that ties a task's work to the
// request that created it: once the CreateTaskResult has gone out, it
// cancels the task upstream, as if the end of the tools/call had ended the
// work.
func cancelOnAnswer() brokenServer {
	return brokenServer{
		name: "2026: cancels a task once the tools/call that created it is answered", filter: "req:EXT-XPORT-019", want: "EXT-XPORT-019",
		b: breakage{onResponse: func(method string, resp *http.Response) {
			if method != "tools/call" || resp.Request.Header.Get("Mcp-Protocol-Version") == "" {
				return
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			resp.Body = io.NopCloser(bytes.NewReader(body))
			m := taskIDPattern.FindSubmatch(body)
			if m == nil || !bytes.Contains(body, []byte(`"resultType":"task"`)) {
				return
			}
			id := string(m[1])
			up, hdr := resp.Request.URL.String(), resp.Request.Header.Clone()
			go func() {
				time.Sleep(50 * time.Millisecond)
				raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "proxy-cancel", "method": "tasks/cancel", "params": map[string]any{
					"taskId": id,
					"_meta": map[string]any{
						"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
						"io.modelcontextprotocol/clientCapabilities": map[string]any{"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}},
					},
				}})
				req, err := http.NewRequest(http.MethodPost, up, bytes.NewReader(raw))
				if err != nil {
					return
				}
				req.Header = hdr
				req.Header.Set("Mcp-Method", "tasks/cancel")
				req.Header.Set("Mcp-Name", id)
				req.Header.Del("Content-Length")
				if r, err := http.DefaultClient.Do(req); err == nil {
					_, _ = io.Copy(io.Discard, r.Body)
					r.Body.Close()
				}
			}()
		}},
	}
}

// brokenServers is the catalogue of deliberately broken servers. Each
// entry is built fresh (its state is its own) and names the requirement the
// suite must fail for it.
func brokenServers(tokA, tokB string) []brokenServer {
	invalidParams := func(msg string) map[string]any { return map[string]any{"code": -32602, "message": msg} }
	return []brokenServer{
		// The 2026-07-28 profile.
		{
			name: "2026: answers tasks/get with resultType task", filter: "area:ext-get", want: "EXT-GET-011",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if r := resultOf(msg); r != nil && method == "tasks/get" && r["resultType"] != nil {
					r["resultType"] = "task"
				}
			}},
		},
		{
			name: "2026: nests the task in the CreateTaskResult", filter: "area:ext-create", want: "EXT-CREATE-006",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if r := resultOf(msg); r != nil && method == "tools/call" && r["resultType"] == "task" {
					r["task"] = map[string]any{"taskId": r["taskId"], "status": r["status"]}
				}
			}},
		},
		{
			name: "2026: shows an isError task as failed", filter: "area:ext-get", want: "EXT-ERR-010",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if r := resultOf(msg); r != nil && method == "tasks/get" && r["status"] == "completed" {
					if res, ok := r["result"].(map[string]any); ok && res["isError"] == true {
						r["status"] = "failed"
					}
				}
			}},
		},
		{
			name: "2026: turns a tool's isError result into a JSON-RPC error", filter: "area:ext-get", want: "EXT-ERR-016",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if r := resultOf(msg); r != nil && method == "tools/call" && r["resultType"] != "task" && r["isError"] == true {
					delete(msg, "result")
					msg["error"] = map[string]any{"code": -32603, "message": "the tool failed"}
				}
			}},
		},
		{
			name: "2026: refuses an answer carrying a member it does not know", filter: "area:ext-input", want: "EXT-UPDATE-012",
			b: breakage{onRequest: func(w http.ResponseWriter, _ *http.Request, req *rpcRequest) bool {
				if req.Method != "tasks/update" || !modernRequest(req) {
					return false
				}
				var p struct {
					InputResponses map[string]map[string]json.RawMessage `json:"inputResponses"`
				}
				if json.Unmarshal(req.Params, &p) != nil {
					return false
				}
				for _, a := range p.InputResponses {
					for k := range a {
						if k != "action" && k != "content" && k != "_meta" {
							return answer(w, req, nil, invalidParams("unknown member "+k))
						}
					}
				}
				return false
			}},
		},
		{
			name: "2026: refuses initialize without naming a version", filter: "area:ext-compat", want: "EXT-COMPAT-016",
			b: breakage{onRequest: func(w http.ResponseWriter, _ *http.Request, req *rpcRequest) bool {
				if req.Method == "initialize" {
					return answer(w, req, nil, map[string]any{"code": -32600, "message": "initialize is not supported here"})
				}
				return false
			}},
		},
		{
			name: "2026: answers synchronously when clientInfo is not its own client", filter: "area:ext-create", want: "EXT-BASE-014",
			b: breakage{onRequest: func(w http.ResponseWriter, _ *http.Request, req *rpcRequest) bool {
				if req.Method == "tools/call" && modernRequest(req) && strings.Contains(string(req.Params), "another-client") {
					return answer(w, req, map[string]any{"resultType": "complete", "content": []any{}}, nil)
				}
				return false
			}},
		},
		{
			name: "2026: drops ttlMs", filter: "area:ext-create", want: "EXT-WIRE-001",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if r := resultOf(msg); r != nil && (method == "tasks/get" || r["resultType"] == "task") {
					delete(r, "ttlMs")
				}
			}},
		},
		{
			name: "2026: still answers tasks/list", filter: "area:ext-compat", want: "EXT-COMPAT-006",
			b: breakage{onRequest: func(w http.ResponseWriter, _ *http.Request, req *rpcRequest) bool {
				if req.Method == "tasks/list" && modernRequest(req) {
					return answer(w, req, map[string]any{"resultType": "complete", "tasks": []any{}}, nil)
				}
				return false
			}},
		},
		{
			name: "2026: does not compare Mcp-Name with the taskId", filter: "area:ext-discover", want: "EXT-XPORT-003",
			b: breakage{onRequest: func(_ http.ResponseWriter, r *http.Request, req *rpcRequest) bool {
				if strings.HasPrefix(req.Method, "tasks/") && modernRequest(req) {
					if id := req.param("taskId"); id != "" {
						r.Header.Set("Mcp-Name", id)
					}
				}
				return false
			}},
		},
		{
			name: "2026: answers tasks/* without the extension", filter: "area:ext-get", want: "EXT-ERR-004",
			b: breakage{onRequest: func(_ http.ResponseWriter, r *http.Request, req *rpcRequest) bool {
				if !strings.HasPrefix(req.Method, "tasks/") || !modernRequest(req) || strings.Contains(string(req.Params), "io.modelcontextprotocol/tasks") {
					return false
				}
				body := strings.Replace(string(mustJSON(req)), `"io.modelcontextprotocol/clientCapabilities":{}`,
					`"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}`, 1)
				replaceBody(r, []byte(body))
				return false
			}},
		},
		{
			name: "2026: lists only one of two outstanding input requests", filter: "area:ext-input", want: "EXT-GET-007",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if r := resultOf(msg); r != nil && method == "tasks/get" {
					if reqs, ok := r["inputRequests"].(map[string]any); ok && len(reqs) > 1 {
						keep := slices.Max(slices.Collect(maps.Keys(reqs)))
						r["inputRequests"] = map[string]any{keep: reqs[keep]}
					}
				}
			}},
		},
		positionalInputKeys("EXT-INPUT-006"),
		positionalInputKeys("EXT-INPUT-008"),
		{
			name: "2026: sends an InputRequiredResult with neither inputRequests nor requestState", filter: "area:ext-mrtr", want: "EXT-MRTR-003",
			b: bareInputRequired,
		},
		{
			name: "2026: sends an InputRequiredResult the core schema refuses", filter: "area:ext-mrtr", want: "EXT-WIRE-038",
			b: bareInputRequired,
		},
		{
			name: "2026: leaks the requestState into the CreateTaskResult", filter: "area:ext-mrtr", want: "EXT-MRTR-001",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if r := resultOf(msg); r != nil && method == "tools/call" && r["resultType"] == "task" {
					r["requestState"] = "leaked"
				}
			}},
		},
		{
			name: "2026: refuses a retry that lacks answers", filter: "area:ext-mrtr", want: "EXT-MRTR-012",
			b: breakage{onRequest: func(w http.ResponseWriter, _ *http.Request, req *rpcRequest) bool {
				var p map[string]json.RawMessage
				_ = json.Unmarshal(req.Params, &p)
				if req.Method == "tools/call" && modernRequest(req) && p["requestState"] != nil && p["inputResponses"] == nil {
					return answer(w, req, nil, invalidParams("inputResponses is required on a retry"))
				}
				return false
			}},
		},
		{
			name: "2026: answers an unknown taskId with a home-made -32030", filter: "area:ext-get", want: "EXT-ERR-012",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if e, ok := msg["error"].(map[string]any); ok && method == "tasks/get" && e["code"] == float64(-32602) {
					e["code"] = -32030
				}
			}},
		},
		{
			name: "2026: answers tasks/cancel of an unknown task with the retired -32002", filter: "area:ext-get", want: "EXT-ERR-013",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if e, ok := msg["error"].(map[string]any); ok && method == "tasks/cancel" && e["code"] == float64(-32602) {
					e["code"] = -32002
				}
			}},
		},
		{
			name: "2026: serves a POST without MCP-Protocol-Version", filter: "area:ext-discover", want: "EXT-XPORT-013",
			b: breakage{onRequest: func(_ http.ResponseWriter, r *http.Request, req *rpcRequest) bool {
				if modernRequest(req) && r.Header.Get("Mcp-Protocol-Version") == "" {
					r.Header.Set("Mcp-Protocol-Version", "2026-07-28")
				}
				return false
			}},
		},
		{
			name: "2026: answers a POSTed notification with 200 and a JSON body", filter: "area:ext-discover", want: "EXT-XPORT-017",
			b: breakage{onRequest: func(w http.ResponseWriter, _ *http.Request, req *rpcRequest) bool {
				if len(req.ID) > 0 || !strings.HasPrefix(req.Method, "notifications/") || !modernRequest(req) {
					return false
				}
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"jsonrpc":"2.0","result":{"resultType":"complete"}}`))
				return true
			}},
		},
		{
			name: "2026: takes another identity's answers to a task's input", filter: "area:ext-input", want: "EXT-SEC-007",
			b: breakage{onRequest: func(_ http.ResponseWriter, r *http.Request, req *rpcRequest) bool {
				if req.Method == "tasks/update" && modernRequest(req) && r.Header.Get("Authorization") == "Bearer "+tokB {
					r.Header.Set("Authorization", "Bearer "+tokA)
				}
				return false
			}},
		},
		{
			name: "2026: sends log messages on a task's listen stream", filter: "req:EXT-NOTIFY-007", want: "EXT-NOTIFY-007",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if method == "subscriptions/listen" && msg["method"] == "notifications/tasks" {
					msg["method"] = "notifications/message"
					msg["params"] = map[string]any{"level": "info", "data": "task news"}
				}
			}},
		},
		func() brokenServer {
			// Every listen stream is made to follow the tasks created so far.
			var mu sync.Mutex
			var seen []string
			return brokenServer{
				name: "2026: sends task notifications to a listen stream that asked for none", filter: "area:ext-notify", want: "EXT-NOTIFY-008",
				b: breakage{
					onMessage: func(method string, msg map[string]any) {
						if r := resultOf(msg); r != nil && method == "tools/call" && r["resultType"] == "task" {
							if id, ok := r["taskId"].(string); ok {
								mu.Lock()
								seen = append(seen, id)
								mu.Unlock()
							}
						}
					},
					onRequest: func(_ http.ResponseWriter, r *http.Request, req *rpcRequest) bool {
						if req.Method != "subscriptions/listen" || strings.Contains(string(req.Params), "taskIds") {
							return false
						}
						mu.Lock()
						ids := slices.Clone(seen)
						mu.Unlock()
						setParams(r, req, func(p map[string]any) {
							n, _ := p["notifications"].(map[string]any)
							if n == nil {
								n = map[string]any{}
							}
							n["taskIds"] = ids
							p["notifications"] = n
						})
						return false
					},
				},
			}
		}(),
		{
			name: "2026: logs on a tools/call stream that set no log level", filter: "req:EXT-PROG-005", want: "EXT-PROG-005",
			b: breakage{onRequest: markProgressToken, onResponse: func(method string, resp *http.Response) {
				if method == "tools/call" && resp.Request.Header.Get(progressTokenHeader) != "" {
					asStream(resp, map[string]any{"jsonrpc": "2.0", "method": "notifications/message", "params": map[string]any{"level": "info", "data": "unasked"}})
				}
			}},
		},
		{
			// The reference server streams the progress of a synchronous
			// call; these two break what it sends.
			name: "2026: sends another request's progress on a tools/call stream", filter: "req:EXT-PROG-006", want: "EXT-PROG-006",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if p, ok := msg["params"].(map[string]any); ok && method == "tools/call" && msg["method"] == "notifications/progress" {
					p["progressToken"] = "someone-else"
				}
			}},
		},
		{
			name: "2026: lets progress go down", filter: "req:EXT-PROG-004", want: "EXT-PROG-004",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if p, ok := msg["params"].(map[string]any); ok && method == "tools/call" && msg["method"] == "notifications/progress" {
					v, _ := p["progress"].(float64)
					p["progress"] = 100 - v
				}
			}},
		},
		{
			name: "2026: does not implement subscriptions/listen", filter: "req:EXT-BASE-001", want: "EXT-BASE-001",
			b: breakage{onRequest: func(w http.ResponseWriter, _ *http.Request, req *rpcRequest) bool {
				if req.Method != "subscriptions/listen" || !modernRequest(req) {
					return false
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusNotFound)
				_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32601, "message": "method not found"}})
				return true
			}},
		},
		{
			name: "2026: sends a tasks/get answer that is not UTF-8", filter: "req:EXT-XPORT-021", want: "EXT-XPORT-021",
			b: breakage{onResponse: func(method string, resp *http.Response) {
				if method != "tasks/get" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
					return
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				body = bytes.Replace(body, []byte(`"resultType":"complete"`), []byte("\"resultType\":\"complete\",\"x-note\":\"caf\xe9\""), 1)
				resp.Body = io.NopCloser(bytes.NewReader(body))
				resp.ContentLength = int64(len(body))
				resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
			}},
		},
		{
			name: "2026: asks a URL-mode elicitation without a valid url", filter: "req:EXT-INPUT-016", want: "EXT-INPUT-016",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				r := resultOf(msg)
				reqs, _ := r["inputRequests"].(map[string]any)
				if method != "tasks/get" {
					return
				}
				for _, v := range reqs {
					if req, ok := v.(map[string]any); ok && req["method"] == "elicitation/create" {
						p := paramsOf(req)
						p["mode"] = "url"
						p["url"] = "no scheme here"
						delete(p, "requestedSchema")
					}
				}
			}},
		},
		connBoundTasks(),
		cancelOnAnswer(),
		{
			name: "2026-only: opens a stream for GET on the endpoint", filter: "area:ext-compat", want: "EXT-COMPAT-015",
			serverOpts: []server.Option{server.WithModernOnly()},
			b: breakage{onRequest: func(w http.ResponseWriter, r *http.Request, _ *rpcRequest) bool {
				if r.Method != http.MethodGet {
					return false
				}
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusOK)
				_, _ = io.WriteString(w, ": stream\n\n")
				return true
			}},
		},
		{
			// A refusal of initialize that names nothing: HTTP 400 with an
			// empty body, no JSON-RPC error at all.
			name: "2026-only: refuses initialize with a bare HTTP 400", filter: "area:ext-compat", want: "EXT-COMPAT-016",
			serverOpts: []server.Option{server.WithModernOnly()},
			b: breakage{onRequest: func(w http.ResponseWriter, _ *http.Request, req *rpcRequest) bool {
				if req.Method != "initialize" {
					return false
				}
				w.WriteHeader(http.StatusBadRequest)
				return true
			}},
		},
		{
			name: "2026-only: mints an Mcp-Session-Id", filter: "area:ext-compat", want: "EXT-COMPAT-015",
			serverOpts: []server.Option{server.WithModernOnly()},
			b: breakage{onResponse: func(method string, resp *http.Response) {
				if method == "tools/call" || method == "tasks/get" {
					resp.Header.Set("Mcp-Session-Id", "minted-"+method)
				}
			}},
		},
		{
			name: "2026: keeps the event stream open after the final response", filter: "req:EXT-XPORT-018", want: "EXT-XPORT-018",
			b: breakage{onResponse: func(method string, resp *http.Response) {
				if method != "tools/call" && method != "tasks/get" {
					return
				}
				asStream(resp)
				if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
					resp.Body = &heldOpen{ReadCloser: resp.Body, ctx: resp.Request.Context()}
					resp.ContentLength = -1
					resp.Header.Del("Content-Length")
				}
			}},
		},
		{
			name: "sends a _meta that is not an object in tasks/get", filter: "area:poll", want: "TASKS-WIRE-GET-001", wantMsg: "GetTaskResult",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if r := resultOf(msg); r != nil && method == "tasks/get" {
					r["_meta"] = "not an object"
				}
			}},
		},
		{
			name: "drops ttl", filter: "area:poll", want: "TASKS-TTL-004",
			b: breakage{onMessage: everyTask(func(t map[string]any) { delete(t, "ttl") })},
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
			name: "lists another identity's tasks", filter: "area:isolation", want: "TASKS-SEC-007",
			b: breakage{onRequest: func(_ http.ResponseWriter, r *http.Request, req *rpcRequest) bool {
				if req.Method == "tasks/list" && r.Header.Get("Authorization") == "Bearer "+tokB {
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
				return answer(w, req, map[string]any{
					"content": []any{map[string]any{"type": "text", "text": "not yet"}},
					"_meta":   map[string]any{wire.MetaRelatedTask: map[string]any{"taskId": req.param("taskId")}},
				}, nil)
			}},
		},
		{
			name: "strips related-task metadata from tasks/result", filter: "area:result", want: "TASKS-META-007",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if r := resultOf(msg); r != nil && method == "tasks/result" {
					dropRelated(r)
				}
			}},
		},
		{
			name: "changes the result a task hands back", filter: "req:TASKS-RESULT-005", want: "TASKS-RESULT-005",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if r := resultOf(msg); r != nil && method == "tasks/result" {
					if cs, ok := r["content"].([]any); ok && len(cs) > 0 {
						if c, ok := cs[0].(map[string]any); ok {
							c["text"] = fmt.Sprint(c["text"], " (as a task)")
						}
					}
				}
			}},
		},
		{
			name: "gives tasks/result a content that is not an array", filter: "area:result", want: "TASKS-WIRE-CALLRESULT-001",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if r := resultOf(msg); r != nil && method == "tasks/result" {
					r["content"] = "done"
				}
			}},
		},
		func() brokenServer {
			var mu sync.Mutex
			cancelled := map[string]time.Time{}
			return brokenServer{
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
			}
		}(),
		{
			name: "answers tasks/cancel before the task is cancelled", filter: "area:cancel", want: "TASKS-CANCEL-003",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if r := resultOf(msg); r != nil && method == "tasks/cancel" {
					r["status"] = "working"
				}
			}},
		},
		{
			name: "cancels a task that already ended", filter: "area:cancel", want: "TASKS-CANCEL-001",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if _, isErr := msg["error"]; isErr && method == "tasks/cancel" {
					delete(msg, "error")
					now := time.Now().UTC().Format(time.RFC3339Nano)
					msg["result"] = map[string]any{"taskId": "ended", "status": "completed", "createdAt": now, "lastUpdatedAt": now, "ttl": nil}
				}
			}},
		},
		{
			name: "wraps the tasks/cancel result in a task member", filter: "area:cancel", want: "TASKS-WIRE-CANCEL-001",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if r := resultOf(msg); r != nil && method == "tasks/cancel" {
					msg["result"] = map[string]any{"task": r}
				}
			}},
		},
		{
			name: "sends createdAt in a made-up format", filter: "area:create", want: "TASKS-TTL-001",
			b: breakage{onMessage: everyTask(func(t map[string]any) { t["createdAt"] = "yesterday" })},
		},
		{
			name: "stamps every task as created in 2001", filter: "area:create", want: "TASKS-TTL-001",
			b: breakage{onMessage: everyTask(func(t map[string]any) { t["createdAt"] = "2001-01-01T00:00:00Z" })},
		},
		{
			name: "never moves lastUpdatedAt", filter: "area:poll", want: "TASKS-TTL-002",
			b: breakage{onMessage: everyTask(func(t map[string]any) { t["lastUpdatedAt"] = t["createdAt"] })},
		},
		{
			name: "sends lastUpdatedAt in a made-up format", filter: "area:poll", want: "TASKS-TTL-002",
			b: breakage{onMessage: everyTask(func(t map[string]any) { t["lastUpdatedAt"] = "a moment ago" })},
		},
		{
			name: "sends a lastUpdatedAt before createdAt", filter: "area:poll", want: "TASKS-TTL-002",
			b: breakage{onMessage: everyTask(func(t map[string]any) { t["lastUpdatedAt"] = "2000-01-01T00:00:00Z" })},
		},
		{
			name: "moves a terminal task back to working", filter: "area:poll", want: "TASKS-LIFE-005",
			b: func() breakage {
				var mu sync.Mutex
				seen := map[string]int{}
				return breakage{onMessage: func(method string, msg map[string]any) {
					r := resultOf(msg)
					if r == nil || method != "tasks/get" || r["status"] != "completed" {
						return
					}
					id, _ := r["taskId"].(string)
					mu.Lock()
					defer mu.Unlock()
					seen[id]++
					if seen[id] > 1 {
						r["status"] = "working"
					}
				}}
			}(),
		},
		{
			name: "suggests a negative pollInterval", filter: "area:poll", want: "TASKS-TTL-006",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if r := resultOf(msg); r != nil && method == "tasks/get" {
					r["pollInterval"] = -5
				}
			}},
		},
		{
			name: "puts related-task metadata in tasks/get results", filter: "area:poll", want: "TASKS-META-006",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if r := resultOf(msg); r != nil && method == "tasks/get" {
					addRelated(r, r["taskId"])
				}
			}},
		},
		{
			name: "follows related-task metadata instead of taskId", filter: "area:poll", want: "TASKS-META-003",
			b: breakage{onRequest: func(_ http.ResponseWriter, r *http.Request, req *rpcRequest) bool {
				if req.Method != "tasks/get" {
					return false
				}
				setParams(r, req, func(p map[string]any) {
					if meta, ok := p["_meta"].(map[string]any); ok {
						if rt, ok := meta[wire.MetaRelatedTask].(map[string]any); ok {
							p["taskId"] = rt["taskId"]
						}
					}
				})
				return false
			}},
		},
		{
			name: "answers tasks/get with another task's data", filter: "area:poll", want: "TASKS-META-003",
			b: func() breakage {
				var mu sync.Mutex
				last := map[string]any{}
				return breakage{onMessage: func(method string, msg map[string]any) {
					r := resultOf(msg)
					if r == nil || method != "tasks/get" {
						return
					}
					mu.Lock()
					defer mu.Unlock()
					prev := last
					last = map[string]any{"taskId": r["taskId"], "createdAt": r["createdAt"], "status": r["status"]}
					if prev["taskId"] != nil && prev["taskId"] != r["taskId"] {
						r["createdAt"], r["status"] = prev["createdAt"], prev["status"]
					}
				}}
			}(),
		},
		{
			name: "wraps the tasks/get result in a task member", filter: "area:poll", want: "TASKS-WIRE-GET-001",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if r := resultOf(msg); r != nil && method == "tasks/get" {
					msg["result"] = map[string]any{"task": r}
				}
			}},
		},
		{
			name: "answers with a text/plain Content-Type", filter: "area:wire", want: "TASKS-XPORT-010",
			b: breakage{onResponse: func(_ string, resp *http.Response) {
				if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
					resp.Header.Set("Content-Type", "text/plain; charset=utf-8")
				}
			}},
		},
		{
			name: "uses a _meta key that breaks the key grammar", filter: "area:wire", want: "TASKS-JSONRPC-007",
			b: breakage{onMessage: func(_ string, msg map[string]any) {
				if r := resultOf(msg); r != nil {
					r["_meta"] = map[string]any{"-not a key-": true}
				}
			}},
		},
		{
			name: "reuses one SSE event id for every event", filter: "area:wire", want: "TASKS-XPORT-028",
			b: breakage{onEventID: func(string) string { return "1" }},
		},
		{
			name: "sends a task status outside the enum in tasks/list", filter: "area:wire", want: "TASKS-WIRE-STATUS-001",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if r := resultOf(msg); r != nil && method == "tasks/list" {
					for _, t := range taskObjects(r) {
						t["status"] = "done"
					}
				}
			}},
		},
		{
			name: "flattens the CreateTaskResult", filter: "area:create", want: "TASKS-WIRE-CREATE-001",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if r := resultOf(msg); r != nil && isCreate(method, msg) {
					t := r["task"].(map[string]any)
					delete(r, "task")
					for k, v := range t {
						r[k] = v
					}
				}
			}},
		},
		{
			name: "creates tasks already completed", filter: "area:create", want: "TASKS-LIFE-001",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if isCreate(method, msg) {
					resultOf(msg)["task"].(map[string]any)["status"] = "completed"
				}
			}},
		},
		{
			name: "issues numeric task ids", filter: "area:create", want: "TASKS-ID-001",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if isCreate(method, msg) {
					resultOf(msg)["task"].(map[string]any)["taskId"] = 42
				}
			}},
		},
		func() brokenServer {
			var mu sync.Mutex
			proposed := map[string]any{}
			return brokenServer{
				name: "takes the task id the client proposes", filter: "area:create", want: "TASKS-ID-002",
				b: breakage{
					onRequest: func(_ http.ResponseWriter, _ *http.Request, req *rpcRequest) bool {
						var p struct {
							Task map[string]any `json:"task"`
						}
						_ = json.Unmarshal(req.Params, &p)
						if id, ok := p.Task["taskId"]; ok && req.Method == "tools/call" {
							mu.Lock()
							proposed[jsonID(req.ID)] = id
							mu.Unlock()
						}
						return false
					},
					onMessage: func(method string, msg map[string]any) {
						if !isCreate(method, msg) {
							return
						}
						mu.Lock()
						defer mu.Unlock()
						if id, ok := proposed[jsonID(msg["id"])]; ok {
							resultOf(msg)["task"].(map[string]any)["taskId"] = id
						}
					},
				},
			}
		}(),
		func() brokenServer {
			var mu sync.Mutex
			var prev any
			n := 0
			return brokenServer{
				name: "hands out a task id twice", filter: "area:create", want: "TASKS-ID-003",
				b: breakage{onMessage: func(method string, msg map[string]any) {
					if !isCreate(method, msg) {
						return
					}
					t := resultOf(msg)["task"].(map[string]any)
					mu.Lock()
					defer mu.Unlock()
					n++
					if n%2 == 0 && prev != nil {
						t["taskId"] = prev
					}
					prev = t["taskId"]
				}},
			}
		}(),
		{
			name: "holds the CreateTaskResult until the work is nearly done", filter: "area:create", want: "TASKS-RESULT-002",
			b: breakage{onRequest: func(_ http.ResponseWriter, _ *http.Request, req *rpcRequest) bool {
				if req.Method == "tools/call" && hasTaskParam(req) && callArg(req, "ms") >= 2000 {
					time.Sleep(1500 * time.Millisecond)
				}
				return false
			}},
		},
		func() brokenServer {
			// The TypeScript SDK 1.32.2 pattern: a ttl its timer cannot hold
			// is reported back verbatim, and the task is gone at once.
			var mu sync.Mutex
			asked := map[string]float64{}
			gone := map[string]bool{}
			return brokenServer{
				name: "reports a ttl it cannot hold and drops the task at once", filter: "area:ttl", want: "TASKS-TTL-004", wantMsg: "gone",
				b: breakage{
					onRequest: func(w http.ResponseWriter, r *http.Request, req *rpcRequest) bool {
						mu.Lock()
						defer mu.Unlock()
						switch req.Method {
						case "tools/call":
							if ttl, ok := requestedTTL(req); ok && (ttl > 1<<31-1 || ttl < 0) {
								asked[jsonID(req.ID)] = ttl
								setParams(r, req, func(p map[string]any) { delete(p["task"].(map[string]any), "ttl") })
							}
						case "tasks/get", "tasks/result", "tasks/cancel":
							if gone[req.param("taskId")] {
								return answer(w, req, nil, invalidParams("task not found"))
							}
						}
						return false
					},
					onMessage: func(method string, msg map[string]any) {
						if !isCreate(method, msg) {
							return
						}
						mu.Lock()
						defer mu.Unlock()
						// Request ids repeat across sessions: each one is
						// consumed by the answer that follows it.
						if ttl, ok := asked[jsonID(msg["id"])]; ok {
							delete(asked, jsonID(msg["id"]))
							t := resultOf(msg)["task"].(map[string]any)
							t["ttl"] = ttl
							id, _ := t["taskId"].(string)
							gone[id] = true
						}
					},
				},
			}
		}(),
		{
			name: "reports the ttl left instead of the ttl granted", filter: "area:ttl", want: "TASKS-TTL-004",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				r := resultOf(msg)
				if r == nil || method != "tasks/get" {
					return
				}
				ttl, ok := r["ttl"].(float64)
				created, err := time.Parse(time.RFC3339Nano, fmt.Sprint(r["createdAt"]))
				if ok && err == nil {
					r["ttl"] = max(0, int64(ttl)-time.Since(created).Milliseconds()-1)
				}
			}},
		},
		{
			name: "grants a ten-year ttl in full", filter: "area:ttl", want: "TASKS-RSRC-002",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if isCreate(method, msg) {
					resultOf(msg)["task"].(map[string]any)["ttl"] = 315360000000
				}
			}},
		},
		{
			name: "accepts a cursor it never issued with an empty page", filter: "area:list", want: "TASKS-ERR-002",
			b: breakage{onRequest: func(w http.ResponseWriter, _ *http.Request, req *rpcRequest) bool {
				if c := req.param("cursor"); req.Method == "tasks/list" && c != "" && !strings.HasPrefix(c, "c1.") {
					return answer(w, req, map[string]any{"tasks": []any{}}, nil)
				}
				return false
			}},
		},
		{
			name: "ends the listing at any cursor it cannot read", filter: "area:list", want: "TASKS-ERR-002",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if _, isErr := msg["error"]; isErr && method == "tasks/list" {
					delete(msg, "error")
					msg["result"] = map[string]any{"tasks": []any{}}
				}
			}},
		},
		func() brokenServer {
			var mu sync.Mutex
			n := 0
			return brokenServer{
				name: "skips every fifth task in tasks/list", filter: "area:list", want: "TASKS-LIST-004",
				b: breakage{onMessage: func(method string, msg map[string]any) {
					r := resultOf(msg)
					ts, ok := r["tasks"].([]any)
					if !ok || method != "tasks/list" {
						return
					}
					mu.Lock()
					defer mu.Unlock()
					var kept []any
					for _, t := range ts {
						n++
						if n%5 != 0 {
							kept = append(kept, t)
						}
					}
					r["tasks"] = append([]any{}, kept...)
				}},
			}
		}(),
		{
			name: "drops nextCursor", filter: "area:list", want: "TASKS-LIST-002",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if r := resultOf(msg); r != nil && method == "tasks/list" {
					delete(r, "nextCursor")
				}
			}},
		},
		{
			name: "lists the first task of every page again at its end", filter: "area:list", want: "TASKS-LIST-002",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if r := resultOf(msg); r != nil && method == "tasks/list" {
					if ts, ok := r["tasks"].([]any); ok && len(ts) > 1 && r["nextCursor"] != nil {
						r["tasks"] = append(ts, ts[0])
					}
				}
			}},
		},
		{
			name: "lists tasks without createdAt", filter: "area:list", want: "TASKS-WIRE-LIST-001",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if r := resultOf(msg); r != nil && method == "tasks/list" {
					for _, t := range taskObjects(r) {
						delete(t, "createdAt")
					}
				}
			}},
		},
		{
			name: "answers errors without the request id", filter: "area:errors", want: "TASKS-JSONRPC-005",
			b: breakage{onMessage: func(_ string, msg map[string]any) {
				if _, isErr := msg["error"]; isErr {
					msg["id"] = nil
				}
			}},
		},
		{
			name: "explains errors with a generic message", filter: "area:errors", want: "TASKS-ERR-005",
			b: breakage{onMessage: func(_ string, msg map[string]any) {
				if e, ok := msg["error"].(map[string]any); ok {
					e["message"] = "Invalid params"
				}
			}},
		},
		{
			name: "strips related-task metadata from progress notifications", filter: "area:progress", want: "TASKS-META-001",
			b: breakage{onMessage: func(_ string, msg map[string]any) {
				if p := paramsOf(msg); p != nil && msg["method"] == "notifications/progress" {
					dropRelated(p)
				}
			}},
		},
		{
			name: "sends progress values that go down", filter: "area:progress", want: "TASKS-PROG-003",
			b: breakage{onMessage: func(_ string, msg map[string]any) {
				if p := paramsOf(msg); p != nil && msg["method"] == "notifications/progress" {
					if v, ok := p["progress"].(float64); ok {
						p["progress"] = 1000 - v
					}
				}
			}},
		},
		{
			name: "sends progress under a token the client never sent", filter: "area:progress", want: "TASKS-PROG-007",
			b: breakage{onMessage: func(_ string, msg map[string]any) {
				if p := paramsOf(msg); p != nil && msg["method"] == "notifications/progress" {
					p["progressToken"] = "not-the-clients"
				}
			}},
		},
		{
			name: "puts related-task metadata in status notifications", filter: "area:notifications", want: "TASKS-NOTIF-005",
			b: breakage{onMessage: func(_ string, msg map[string]any) {
				if p := paramsOf(msg); p != nil && msg["method"] == "notifications/tasks/status" {
					addRelated(p, p["taskId"])
				}
			}},
		},
		{
			name: "sends status notifications without ttl", filter: "area:notifications", want: "TASKS-WIRE-NOTIF-002",
			b: breakage{onMessage: func(_ string, msg map[string]any) {
				if p := paramsOf(msg); p != nil && msg["method"] == "notifications/tasks/status" {
					delete(p, "ttl")
				}
			}},
		},
		{
			name: "strips related-task metadata from elicitations", filter: "area:input", want: "TASKS-META-002",
			b: breakage{onMessage: func(_ string, msg map[string]any) {
				if p := paramsOf(msg); p != nil && msg["method"] == "elicitation/create" {
					dropRelated(p)
				}
			}},
		},
		{
			name: "never shows input_required", filter: "area:input", want: "TASKS-INPUT-003",
			b: breakage{onMessage: everyTask(func(t map[string]any) {
				if t["status"] == "input_required" {
					t["status"] = "working"
				}
			})},
		},
		{
			name: "declares taskSupport values outside the enum", filter: "area:tools", want: "TASKS-WIRE-TOOLEXEC-001",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if r := resultOf(msg); r != nil && method == "tools/list" {
					if ts, ok := r["tools"].([]any); ok && len(ts) > 0 {
						ts[0].(map[string]any)["execution"] = map[string]any{"taskSupport": "sometimes"}
					}
				}
			}},
		},
		{
			name: "runs a tool that requires tasks as a plain call", filter: "area:tools", want: "TASKS-TOOLNEG-006",
			b: breakage{onRequest: func(w http.ResponseWriter, _ *http.Request, req *rpcRequest) bool {
				if req.Method == "tools/call" && req.param("name") == "fixture_sleep_required" && !hasTaskParam(req) {
					return answer(w, req, map[string]any{"content": []any{map[string]any{"type": "text", "text": "ran"}}}, nil)
				}
				return false
			}},
		},
		{
			name: "makes a task of a tool without task support", filter: "area:tools", want: "TASKS-TOOLNEG-003",
			b: breakage{onRequest: func(w http.ResponseWriter, r *http.Request, req *rpcRequest) bool {
				if req.Method == "tools/call" && req.param("name") == "fixture_forbidden" && hasTaskParam(req) {
					setParams(r, req, func(p map[string]any) { p["name"] = "fixture_sleep"; p["arguments"] = map[string]any{"ms": 0} })
				}
				return false
			}},
		},
		{
			name: "makes a task of an unknown tool", filter: "area:tools", want: "TASKS-TOOLDEF-006",
			b: breakage{onRequest: func(w http.ResponseWriter, r *http.Request, req *rpcRequest) bool {
				if req.Method == "tools/call" && strings.Contains(req.param("name"), "no_such_tool") {
					setParams(r, req, func(p map[string]any) { p["name"] = "fixture_sleep"; p["arguments"] = map[string]any{"ms": 0} })
				}
				return false
			}},
		},
		{
			name: "declares tasks.list as true instead of an object", filter: "area:handshake", want: "TASKS-WIRE-SCAP-001",
			b: breakage{onMessage: func(method string, msg map[string]any) {
				if r := resultOf(msg); r != nil && method == "initialize" {
					if caps, ok := r["capabilities"].(map[string]any); ok {
						if tk, ok := caps["tasks"].(map[string]any); ok {
							tk["list"] = true
						}
					}
				}
			}},
		},
		{
			name: "answers the 2025-11-25 proposal with an older version", filter: "area:handshake", want: "TASKS-INIT-009",
			b: breakage{
				onRequest: func(_ http.ResponseWriter, r *http.Request, _ *rpcRequest) bool {
					if r.Header.Get("Mcp-Protocol-Version") == "2025-06-18" {
						r.Header.Set("Mcp-Protocol-Version", "2025-11-25")
					}
					return false
				},
				onMessage: func(method string, msg map[string]any) {
					if r := resultOf(msg); r != nil && method == "initialize" && r["protocolVersion"] == "2025-11-25" {
						r["protocolVersion"] = "2025-06-18"
					}
				},
			},
		},
		{
			name: "ignores an unknown MCP-Protocol-Version header", filter: "area:handshake", want: "TASKS-XPORT-047",
			b: breakage{onRequest: func(_ http.ResponseWriter, r *http.Request, _ *rpcRequest) bool {
				if v := r.Header.Get("Mcp-Protocol-Version"); v != "" && v != "2025-11-25" {
					r.Header.Set("Mcp-Protocol-Version", "2025-11-25")
				}
				return false
			}},
		},
		{
			name: "answers a GET on the endpoint with HTTP 500", filter: "area:handshake", want: "TASKS-XPORT-023",
			b: breakage{onRequest: func(w http.ResponseWriter, r *http.Request, _ *rpcRequest) bool {
				if r.Method == http.MethodGet {
					http.Error(w, "no", http.StatusInternalServerError)
					return true
				}
				return false
			}},
		},
		{
			name: "answers notifications with HTTP 200 and a body", filter: "area:handshake", want: "TASKS-XPORT-008",
			b: breakage{onResponse: func(method string, resp *http.Response) {
				if strings.HasPrefix(method, "notifications/") && resp.StatusCode == http.StatusAccepted {
					resp.StatusCode, resp.Status = http.StatusOK, "200 OK"
					resp.Header.Set("Content-Type", "application/json")
					resp.Body = io.NopCloser(strings.NewReader(`{"ok":true}`))
					resp.ContentLength = int64(len(`{"ok":true}`))
					resp.Header.Set("Content-Length", strconv.Itoa(len(`{"ok":true}`)))
				}
			}},
		},
		{
			name: "accepts requests from any Origin", filter: "area:transport", want: "TASKS-XPORT-004",
			b: breakage{onRequest: func(_ http.ResponseWriter, r *http.Request, _ *rpcRequest) bool {
				r.Header.Del("Origin")
				return false
			}},
		},
	}
}

// brokenRun is the outcome of certifying one server through the CLI.
type brokenRun struct {
	code    int
	stdout  string
	stderr  string
	report  *report.Report
	elapsed time.Duration
}

// certifyThrough starts a fresh reference server with two identities,
// puts b in front of it, and certifies the proxy with the CLI.
func certifyThrough(t *testing.T, b breakage, filter string, opts ...server.Option) brokenRun {
	t.Helper()
	ctx := context.Background()
	tokA, tokB := proxyTokens()
	inst, err := reference.Start(ctx, reference.Options{
		Config:        tasks.Config{PollInterval: 50 * time.Millisecond},
		ServerOptions: append([]server.Option{server.WithTokenVerifier(server.NewStaticTokens(map[string]string{tokA: "a", tokB: "b"})), server.WithAllowAnonymous(false)}, opts...),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close(ctx)
	proxy := httptest.NewServer(brokenProxy(inst.URL, b))
	defer proxy.Close()
	dir := t.TempDir()
	args := []string{"--server", proxy.URL + "/mcp",
		"--header", "Authorization: Bearer " + tokA, "--header-b", "Authorization: Bearer " + tokB, "--report-dir", dir}
	if filter != "" {
		args = append(args, "--label-filter", filter)
	}
	start := time.Now()
	code, stdout, stderr := runCLI(t, args...)
	run := brokenRun{code: code, stdout: stdout, stderr: stderr, elapsed: time.Since(start)}
	if code == 0 || code == 1 {
		run.report = readReport(t, dir)
	}
	return run
}

// proxyTokens are the bearer tokens of identities A and B for the broken
// servers (each run has its own reference server, so they may be shared).
func proxyTokens() (string, string) { return "token-a-broken", "token-b-broken" }

// failing lists the requirements a report failed, most binding first.
func failing(r *report.Report) []report.Entry {
	var out []report.Entry
	for _, e := range r.Failing() {
		if e.Status == report.StatusFail {
			out = append(out, e)
		}
	}
	return out
}

// TestBrokenServersFailTheRightRequirement certifies every broken server
// of the catalogue, a few at a time, and checks that the suite fails the
// requirement the breakage violates (and calls the server non-conformant
// when that requirement is a MUST). It prints the catalogue with each
// behaviour's first failing requirement.
func TestBrokenServersFailTheRightRequirement(t *testing.T) {
	if testing.Short() {
		t.Skip("certifies dozens of broken servers")
	}
	tokA, tokB := proxyTokens()
	cat := brokenServers(tokA, tokB)
	// MCPTASKS_BROKEN narrows the run to the broken servers whose name
	// contains it (while writing a new one).
	if only := os.Getenv("MCPTASKS_BROKEN"); only != "" {
		cat = slices.DeleteFunc(cat, func(b brokenServer) bool { return !strings.Contains(b.name, only) })
	} else if len(cat) < 40 {
		t.Errorf("only %d broken servers in the catalogue, want at least 40", len(cat))
	}
	runs := make([]brokenRun, len(cat))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i := range cat {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			runs[i] = certifyThrough(t, cat[i].b, cat[i].filter, cat[i].serverOpts...)
		}()
	}
	wg.Wait()

	var table strings.Builder
	for i, bs := range cat {
		run := runs[i]
		first := "(none)"
		var ids []string
		if run.report != nil {
			for _, e := range failing(run.report) {
				ids = append(ids, e.ID)
			}
			if len(ids) > 0 {
				first = ids[0]
			}
		}
		fmt.Fprintf(&table, "%-62s want %-26s first failing %-26s (%d failing, %.1fs)\n", bs.name, bs.want, first, len(ids), run.elapsed.Seconds())
		t.Run(bs.name, func(t *testing.T) {
			if run.report == nil {
				t.Fatalf("exit %d, no report\n%s\n%s", run.code, run.stdout, run.stderr)
			}
			if !slices.Contains(ids, bs.want) {
				t.Fatalf("%s is %q, want fail; failing: %v\n%s", bs.want, statusOf(run.report, bs.want), ids, run.stdout)
			}
			msg := messageOf(run.report, bs.want)
			if bs.wantMsg != "" && !strings.Contains(msg, bs.wantMsg) {
				t.Errorf("%s failed with %q, want a message containing %q", bs.want, msg, bs.wantMsg)
			}
			if !strings.Contains(msg, "came back:") || !strings.Contains(msg, "\nspec: ") {
				t.Errorf("%s failed without evidence (what was sent, what came back, the spec section): %s", bs.want, msg)
			}
			if strings.Contains(msg, "<nil>") {
				t.Errorf("%s failed with a message that shows <nil> instead of what came back: %s", bs.want, msg)
			}
			if req, _ := suites.Lookup(bs.want); req.Level == suites.LevelMust {
				if run.code != 1 || run.report.Summary.Verdict != report.VerdictNonConformant {
					t.Errorf("exit %d, verdict %s; a failed MUST makes the server non-conformant", run.code, run.report.Summary.Verdict)
				}
			}
		})
	}
	t.Logf("broken servers and the requirement each one first fails:\n%s", table.String())
}

// TestTransparentProxyPasses is the control: the same proxy without a
// breakage keeps the reference server conformant on every area the
// catalogue uses, so the failures come from the breakages.
func TestTransparentProxyPasses(t *testing.T) {
	n := 0
	var mu sync.Mutex
	run := certifyThrough(t, breakage{onMessage: func(string, map[string]any) {}, onEventID: func(id string) string {
		if id != "" {
			return id
		}
		mu.Lock()
		defer mu.Unlock()
		n++
		return "proxy-" + strconv.Itoa(n)
	}}, "")
	if run.code != 0 {
		var bad []string
		if run.report != nil {
			for _, e := range run.report.Failing() {
				bad = append(bad, fmt.Sprintf("%s %s: %s", e.ID, e.Status, e.Message))
			}
		}
		t.Fatalf("exit %d through a transparent proxy:\n%s\n%s", run.code, strings.Join(bad, "\n"), run.stderr)
	}
}

// TestUnknownStatusFailsFast: a server that reports a status outside the
// enum fails at TASKS-WIRE-STATUS-001 and the whole run ends within a
// minute, since no spec keeps waiting for a status it cannot recognise.
func TestUnknownStatusFailsFast(t *testing.T) {
	// Only tasks/get answers say "pending": creation looks fine, so every
	// spec that polls would wait for a terminal status without the check.
	run := certifyThrough(t, breakage{onMessage: func(method string, msg map[string]any) {
		if r := resultOf(msg); r != nil && method == "tasks/get" && r["status"] == "working" {
			r["status"] = "pending"
		}
	}}, "")
	if run.report == nil {
		t.Fatalf("exit %d, no report\n%s", run.code, run.stderr)
	}
	if got := statusOf(run.report, "TASKS-WIRE-STATUS-001"); got != report.StatusFail {
		t.Errorf("TASKS-WIRE-STATUS-001 is %q, want fail", got)
	}
	if run.elapsed > time.Minute {
		t.Errorf("the run took %s, want under a minute", run.elapsed)
	}
	t.Logf("unknown status: %d requirements failed, run took %s", len(failing(run.report)), run.elapsed.Round(time.Second))
}

// TestOneMalformedAnswerTypeIsJudgedOnce: a tasks/get result whose _meta
// is not an object breaks one message type; the full run fails the
// requirement of that message type and not the dozens of specs that
// merely received such an answer.
func TestOneMalformedAnswerTypeIsJudgedOnce(t *testing.T) {
	run := certifyThrough(t, breakage{onMessage: func(method string, msg map[string]any) {
		if r := resultOf(msg); r != nil && method == "tasks/get" {
			r["_meta"] = "not an object"
		}
	}}, "")
	if run.report == nil {
		t.Fatalf("exit %d, no report\n%s", run.code, run.stderr)
	}
	// Only MUST failures are counted: a SHOULD that a loaded machine
	// makes slow must not turn this test red.
	var ids []string
	for _, e := range failing(run.report) {
		if e.Level == string(suites.LevelMust) {
			ids = append(ids, e.ID)
		}
	}
	if !slices.Contains(ids, "TASKS-WIRE-GET-001") {
		t.Errorf("TASKS-WIRE-GET-001 did not fail; failing MUSTs: %v", ids)
	}
	if len(ids) > 2 {
		t.Errorf("one malformed answer type failed %d MUST requirements: %v", len(ids), ids)
	}
}

// TestUndeclaredListIsNotApplicable: a server that does not declare
// tasks.list gets its list specs not-applicable, not failed.
func TestUndeclaredListIsNotApplicable(t *testing.T) {
	run := certifyThrough(t, breakage{onMessage: func(method string, msg map[string]any) {
		if r := resultOf(msg); r != nil && method == "initialize" {
			if caps, ok := r["capabilities"].(map[string]any); ok {
				if tk, ok := caps["tasks"].(map[string]any); ok {
					delete(tk, "list")
				}
			}
		}
	}}, "area:list")
	if run.report == nil {
		t.Fatalf("exit %d, no report\n%s", run.code, run.stderr)
	}
	for _, id := range []string{"TASKS-LIST-002", "TASKS-LIST-004", "TASKS-ERR-002"} {
		if got := statusOf(run.report, id); got != report.StatusNotApplicable {
			t.Errorf("%s is %q, want not-applicable", id, got)
		}
	}
	// Partial, not conformant: the label filter left the other MUSTs out.
	if run.report.Summary.Verdict == report.VerdictNonConformant {
		t.Errorf("verdict %s", run.report.Summary.Verdict)
	}
}
