package suites

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/schema/exttasks"
	"github.com/mcptasks/mcptasks/schema/v20260728"
	"github.com/mcptasks/mcptasks/tasks/client"
)

// The 2026-07-28 profile has no initialize and no session: every spec of
// an EXT- requirement speaks to the server with raw HTTP requests that
// carry the per-request _meta and the routing headers, so each spec sees
// the status codes, headers and bodies the rules are about.

// extState is what the running EXT- spec has done: the tasks it created
// (cancelled at the end when still running) and every reply it received.
type extState struct {
	mu      sync.Mutex
	created []extCreated
	replies []*extReply
}

type extCreated struct {
	id      string
	headers http.Header
}

var extSeq atomic.Int64

// extRequest is one 2026-07-28 request as the spec wants it sent.
type extRequest struct {
	Method string
	// Params are the request's own parameters; _meta is added.
	Params map[string]any
	// Caps are the declared client capabilities (default: the tasks
	// extension and form elicitation).
	Caps json.RawMessage
	// Version is the protocol version of _meta and of the header
	// (default 2026-07-28).
	Version string
	// NoMeta sends the params without any _meta.
	NoMeta bool
	// Meta replaces the whole _meta when not nil.
	Meta map[string]any
	// Headers are set after the defaults; an empty value removes one.
	Headers map[string]string
	// Identity are the identity's headers (default A's).
	Identity http.Header
	// URL defaults to the first URL.
	URL string
	// Client, when set, sends the request instead of the harness's client
	// (a fresh connection, say).
	Client *http.Client
	// Tail, when set, is called once an event-stream answer has yielded
	// its response, with what is left of the stream and its closer, before
	// the body is closed.
	Tail func(rest io.Reader, body io.Closer)
}

// extReply is the server's answer to one request.
type extReply struct {
	Method string
	// ID is the JSON-RPC id the harness gave the request.
	ID          string
	Status      int
	Header      http.Header
	ContentType string
	// Message is the JSON-RPC response (nil when none came).
	Message json.RawMessage
	Result  json.RawMessage
	Error   *client.RPCError
	// Notifications are the messages without id that came on the same
	// SSE stream before the response.
	Notifications []json.RawMessage
	// Requests are JSON-RPC requests (method and id) the server sent on
	// the stream: the 2026-07-28 core has none.
	Requests []json.RawMessage
}

// field reads a top-level member of the result.
func (r *extReply) field(name string) json.RawMessage {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(r.Result, &m)
	return m[name]
}

// str reads a top-level string member of the result ("" when absent).
func (r *extReply) str(name string) string {
	var s string
	_ = json.Unmarshal(r.field(name), &s)
	return s
}

// has reports whether the result has a top-level member name.
func (r *extReply) has(name string) bool { return r.field(name) != nil }

// members lists the result's top-level member names.
func (r *extReply) members() []string {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(r.Result, &m)
	return sortedKeys(m)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func (r *extReply) String() string {
	return fmt.Sprintf("%s → HTTP %d %s", r.Method, r.Status, bytes.TrimSpace(r.Message))
}

// extCaps builds client capabilities: the tasks extension when ext,
// form elicitation when elicit.
func extCaps(ext, elicit bool) json.RawMessage {
	m := map[string]any{}
	if ext {
		m["extensions"] = map[string]any{exttasks.ExtensionID: map[string]any{}}
	}
	if elicit {
		m["elicitation"] = map[string]any{"form": map[string]any{}}
	}
	b, _ := json.Marshal(m)
	return b
}

var (
	capsFull  = extCaps(true, true)
	capsNoExt = extCaps(false, true)
)

// extSetup starts an EXT- spec: nothing to connect, only state to reset
// and tasks to cancel at the end.
func (env *ServerEnv) extSetup(context.Context) {
	env.ext = &extState{}
	env.mu.Lock()
	env.last = nil // the evidence of a 2025-11-25 spec says nothing here
	env.mu.Unlock()
	if r, _ := Lookup(currentRequirement()); env.Config.Stdio() && !r.FeaturesIn(ModeServer).Names(FeatureStdio) {
		NotSupported("the 2026-07-28 specs speak Streamable HTTP only in this version of the suite")
	}
	ginkgo.DeferCleanup(env.extTeardown)
}

// extTeardown cancels the spec's tasks that are still running.
func (env *ServerEnv) extTeardown(ctx ginkgo.SpecContext) {
	st := env.ext
	st.mu.Lock()
	created := st.created
	st.mu.Unlock()
	bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), env.scaled(5*time.Second))
	defer cancel()
	for _, t := range created {
		r, err := env.extSend(bg, extRequest{Method: exttasks.MethodGet, Params: map[string]any{"taskId": t.id}, Identity: t.headers})
		if err == nil && r.Result != nil && !extTerminal(r.str("status")) {
			_, _ = env.extSend(bg, extRequest{Method: exttasks.MethodCancel, Params: map[string]any{"taskId": t.id}, Identity: t.headers})
		}
	}
}

// The five task statuses of the extension, as the wire spells them.
const (
	stWorking       = string(exttasks.TaskStatusWorking)
	stInputRequired = string(exttasks.TaskStatusInputRequired)
	stCompleted     = string(exttasks.TaskStatusCompleted)
	stFailed        = string(exttasks.TaskStatusFailed)
	stCancelled     = string(exttasks.TaskStatusCancelled)
)

func extTerminal(status string) bool {
	switch status {
	case stCompleted, stFailed, stCancelled:
		return true
	}
	return false
}

// extSend posts one request and reads the answer.
// extMeta is the per-request _meta of the 2026-07-28 profile: the
// protocol version, the client's capabilities and its identity.
func extMeta(version string, caps json.RawMessage) map[string]any {
	return map[string]any{
		v20260728.ProtocolVersionMetaKey:    version,
		v20260728.ClientCapabilitiesMetaKey: caps,
		v20260728.ClientInfoMetaKey:         map[string]string{"name": "mcptasks-conformance", "version": "suite"},
	}
}

// extHTTPRequest builds a request to url carrying identity's headers (A's
// when identity is nil), for the specs that speak HTTP themselves.
func (env *ServerEnv) extHTTPRequest(ctx context.Context, verb, url string, body io.Reader, identity http.Header) (*http.Request, error) {
	hr, err := http.NewRequestWithContext(ctx, verb, url, body)
	if err != nil {
		return nil, err
	}
	if identity == nil {
		identity = env.Config.Headers
	}
	for k, vs := range identity {
		for _, v := range vs {
			hr.Header.Add(k, v)
		}
	}
	return hr, nil
}

// setExtPostHeaders sets the headers of a 2026-07-28 POST of method at
// version: JSON in, JSON or an event stream back, the version and the
// method.
func setExtPostHeaders(h http.Header, version, method string) {
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set(client.HeaderProtocolVersion, version)
	h.Set("Mcp-Method", method)
}

func (env *ServerEnv) extSend(ctx context.Context, req extRequest) (*extReply, error) {
	version := req.Version
	if version == "" {
		version = string(Protocol2026)
	}
	caps := req.Caps
	if caps == nil {
		caps = capsFull
	}
	params := map[string]any{}
	maps.Copy(params, req.Params)
	switch {
	case req.NoMeta:
	case req.Meta != nil:
		params["_meta"] = req.Meta
	default:
		params["_meta"] = extMeta(version, caps)
	}
	id := fmt.Sprintf("ext-%d", extSeq.Add(1))
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": req.Method, "params": params})
	if err != nil {
		return nil, err
	}
	u := req.URL
	if u == "" {
		u = env.Config.URLs[0]
	}
	hr, err := env.extHTTPRequest(ctx, http.MethodPost, u, bytes.NewReader(body), req.Identity)
	if err != nil {
		return nil, err
	}
	setExtPostHeaders(hr.Header, version, req.Method)
	if tid, ok := req.Params["taskId"].(string); ok && strings.HasPrefix(req.Method, "tasks/") {
		hr.Header.Set("Mcp-Name", tid)
	}
	if req.Method == "tools/call" {
		if name, ok := req.Params["name"].(string); ok {
			hr.Header.Set("Mcp-Name", name)
		}
	}
	overrideHeaders(hr.Header, req.Headers)
	hc := env.httpClient()
	if req.Client != nil {
		hc = req.Client
	}
	resp, err := hc.Do(hr)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	r := &extReply{Method: req.Method, ID: id, Status: resp.StatusCode, Header: resp.Header, ContentType: resp.Header.Get("Content-Type")}
	if strings.HasPrefix(r.ContentType, "text/event-stream") {
		br := bufio.NewReaderSize(resp.Body, 64<<10)
		err = readSSEMessages(br, func(msg json.RawMessage) bool {
			var probe struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			_ = json.Unmarshal(msg, &probe)
			switch {
			case probe.ID == nil:
				r.Notifications = append(r.Notifications, msg)
				return true
			case probe.Method != "":
				r.Requests = append(r.Requests, msg)
				return true
			}
			r.Message = msg
			return false
		})
		if req.Tail != nil && r.Message != nil {
			req.Tail(br, resp.Body)
		}
	} else {
		var b []byte
		b, err = io.ReadAll(io.LimitReader(resp.Body, 4<<20))
		if len(bytes.TrimSpace(b)) > 0 {
			r.Message = b
		}
	}
	if err != nil && r.Message == nil {
		return r, fmt.Errorf("%s: reading the answer: %w", req.Method, err)
	}
	if r.Message != nil {
		var env struct {
			Result json.RawMessage  `json:"result"`
			Error  *client.RPCError `json:"error"`
		}
		if json.Unmarshal(r.Message, &env) == nil {
			r.Result, r.Error = env.Result, env.Error
		}
	}
	if env.ext != nil {
		env.ext.mu.Lock()
		env.ext.replies = append(env.ext.replies, r)
		env.ext.mu.Unlock()
	}
	// The evidence of a failed assertion: what was sent, what came back.
	x := &client.Exchange{Method: req.Method, Sent: body, HTTPStatus: r.Status, ContentType: r.ContentType, Body: r.Message, At: time.Now()}
	if len(x.Body) > client.MaxExchangeBody {
		x.Body = x.Body[:client.MaxExchangeBody]
	}
	env.mu.Lock()
	env.last = x
	env.mu.Unlock()
	return r, nil
}

// readSSEMessages calls each with every data payload of an event stream
// until it returns false or the stream ends. It reads no further than the
// line that ends the event it stopped at, so the rest of the stream stays
// in br.
func readSSEMessages(br *bufio.Reader, each func(json.RawMessage) bool) error {
	var data []string
	for {
		raw, err := br.ReadString('\n')
		if raw != "" || err == nil {
			line := strings.TrimRight(raw, "\r\n")
			switch {
			case line == "":
				// An event without data (a priming event carrying only an
				// id, say) is no message.
				if joined := strings.TrimSpace(strings.Join(data, "\n")); joined != "" {
					data = nil
					if !each(json.RawMessage(joined)) {
						return nil
					}
				}
				data = nil
			case strings.HasPrefix(line, "data:"):
				data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
			}
		}
		if err != nil {
			if joined := strings.TrimSpace(strings.Join(data, "\n")); joined != "" {
				each(json.RawMessage(joined))
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// extDo sends a request and makes a transport failure a harness error.
func (env *ServerEnv) extDo(ctx context.Context, req extRequest) *extReply {
	ginkgo.GinkgoHelper()
	r, err := env.extSend(ctx, req)
	if err != nil {
		if ctx.Err() == nil && connectionLost(err) {
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the server dropped the connection while answering %s", req.Method)
		}
		HarnessError("%s: %v", req.Method, err)
	}
	return r
}

// extCall sends method with params, the extension and form elicitation
// declared, as identity A.
func (env *ServerEnv) extCall(ctx context.Context, method string, params map[string]any) *extReply {
	ginkgo.GinkgoHelper()
	return env.extDo(ctx, extRequest{Method: method, Params: params})
}

// extTool returns the server's tool name for role, or reports the spec
// not-supported.
func (env *ServerEnv) extTool(role Role) string {
	ginkgo.GinkgoHelper()
	name := env.Config.ToolName(role)
	if name == "" {
		NotSupported("no %s fixture tool is configured (map one with --fixture %s=<tool>)", role, role)
	}
	return name
}

// extToolCall calls the fixture of role with the extension declared
// (caps nil) or with the given capabilities.
func (env *ServerEnv) extToolCall(ctx context.Context, role Role, args map[string]any, caps json.RawMessage) *extReply {
	ginkgo.GinkgoHelper()
	name := env.extTool(role)
	r := env.extDo(ctx, extRequest{Method: "tools/call", Caps: caps,
		Params: map[string]any{"name": name, "arguments": env.Config.FixtureArguments(role, args)}})
	if r.Error != nil && r.Error.Code == -32602 && strings.Contains(strings.ToLower(r.Error.Message), "unknown tool") {
		NotSupported("the server has no %s fixture tool %q: %s", role, name, r.Error.Message)
	}
	return r
}

// extCreate calls the fixture of role with the extension declared and
// returns the task it answered with. A synchronous answer makes the spec
// not-supported: creating a task is the server's choice.
func (env *ServerEnv) extCreate(ctx context.Context, role Role, args map[string]any) (string, *extReply) {
	ginkgo.GinkgoHelper()
	r := env.extToolCall(ctx, role, args, nil)
	gomega.Expect(r.Error).To(gomega.BeNil(), "tools/call of the %s fixture with the extension declared failed: %s", role, r)
	if r.str("resultType") != exttasks.ResultTypeTask {
		NotSupported("the server answered the %s fixture synchronously (resultType %q): creating a task is its choice, and the spec needs one", role, r.str("resultType"))
	}
	id := r.str("taskId")
	gomega.Expect(id).NotTo(gomega.BeEmpty(), "a CreateTaskResult without a string taskId: %s", r)
	env.ext.mu.Lock()
	env.ext.created = append(env.ext.created, extCreated{id: id, headers: env.Config.Headers})
	env.ext.mu.Unlock()
	return id, r
}

// extGet polls a task once as identity A.
func (env *ServerEnv) extGet(ctx context.Context, id string) *extReply {
	ginkgo.GinkgoHelper()
	return env.extCall(ctx, exttasks.MethodGet, map[string]any{"taskId": id})
}

// extPollUntil polls until done(status) holds or the task timeout ends,
// honouring pollIntervalMs within bounds, and returns every reply.
func (env *ServerEnv) extPollUntil(ctx context.Context, id string, done func(string) bool) []*extReply {
	ginkgo.GinkgoHelper()
	var out []*extReply
	deadline := time.Now().Add(env.Config.TaskTimeout)
	for {
		r := env.extGet(ctx, id)
		out = append(out, r)
		gomega.Expect(r.Error).To(gomega.BeNil(), "tasks/get of a task the harness created failed: %s", r)
		if done(r.str("status")) {
			return out
		}
		if time.Now().After(deadline) {
			gomega.Expect(done(r.str("status"))).To(gomega.BeTrue(), "the task did not reach the awaited status within %s; last: %s", env.Config.TaskTimeout, r)
			return out
		}
		wait := 25 * time.Millisecond
		var ms int64
		if json.Unmarshal(r.field("pollIntervalMs"), &ms) == nil && ms > 0 {
			wait = min(max(time.Duration(ms)*time.Millisecond, wait), env.Config.MaxPoll)
		}
		select {
		case <-ctx.Done():
			return out
		case <-time.After(wait):
		}
	}
}

// extTerminalReply polls until the task is terminal and returns the last
// reply.
func (env *ServerEnv) extTerminalReply(ctx context.Context, id string) *extReply {
	ginkgo.GinkgoHelper()
	rs := env.extPollUntil(ctx, id, extTerminal)
	return rs[len(rs)-1]
}

// extReplies returns every reply the spec received so far.
func (env *ServerEnv) extReplies() []*extReply {
	env.ext.mu.Lock()
	defer env.ext.mu.Unlock()
	return append([]*extReply(nil), env.ext.replies...)
}

// expectExtError asserts a JSON-RPC error with code (and, when status is
// not 0, that HTTP status).
func expectExtError(r *extReply, code int64, status int, what string) {
	ginkgo.GinkgoHelper()
	gomega.Expect(r.Error).NotTo(gomega.BeNil(), "%s: expected JSON-RPC error %d, got %s", what, code, r)
	gomega.Expect(r.Error.Code).To(gomega.Equal(code), "%s: wrong JSON-RPC error code: %s", what, r)
	if status != 0 {
		gomega.Expect(r.Status).To(gomega.Equal(status), "%s: wrong HTTP status: %s", what, r)
	}
}

// requiredExtension reads data.requiredCapabilities.extensions[tasks]
// of a -32021 error.
func requiredExtension(e *client.RPCError) (json.RawMessage, bool) {
	if e == nil {
		return nil, false
	}
	var d struct {
		RequiredCapabilities struct {
			Extensions map[string]json.RawMessage `json:"extensions"`
		} `json:"requiredCapabilities"`
	}
	if json.Unmarshal(e.Data, &d) != nil {
		return nil, false
	}
	v, ok := d.RequiredCapabilities.Extensions[exttasks.ExtensionID]
	return v, ok
}

// isObject reports whether raw is a JSON object.
func isObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{'
}

// overrideHeaders sets each of overrides on h; an empty value removes the
// header instead.
func overrideHeaders(h http.Header, overrides map[string]string) {
	for k, v := range overrides {
		if v == "" {
			h.Del(k)
		} else {
			h.Set(k, v)
		}
	}
}

// httpClient is the harness's HTTP client, http.DefaultClient when the
// configuration names none.
func (env *ServerEnv) httpClient() *http.Client {
	if env.Config.HTTPClient != nil {
		return env.Config.HTTPClient
	}
	return http.DefaultClient
}
