package suites

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/schema/exttasks"
	"github.com/mcptasks/mcptasks/tasks/client"
)

var _ = describeServer("2026-07-28: backward compatibility with 2025-11-25", "ext-compat", func(env *ServerEnv) {
	env.It("answers the removed tasks/result with -32601 and HTTP 404", "EXT-COMPAT-005", func(ctx SpecContext) {
		id, _ := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 100})
		r := env.extCall(ctx, "tasks/result", map[string]any{"taskId": id})
		expectExtError(r, -32601, http.StatusNotFound, "tasks/result")
	})

	env.It("answers the removed tasks/list with -32601 and HTTP 404", "EXT-COMPAT-006", func(ctx SpecContext) {
		r := env.extCall(ctx, "tasks/list", map[string]any{})
		expectExtError(r, -32601, http.StatusNotFound, "tasks/list")
	})

	env.It("ignores a legacy params.task on tools/call", "EXT-COMPAT-007", func(ctx SpecContext) {
		legacy := map[string]any{"ttl": 60000, "pollInterval": 1000}
		forbidden := env.extTool(FixtureForbidden)
		for _, caps := range []json.RawMessage{capsFull, capsNoExt} {
			r := env.extDo(ctx, extRequest{Method: "tools/call", Caps: caps, Params: map[string]any{"name": forbidden, "arguments": map[string]any{}, "task": legacy}})
			Expect(r.Error).To(BeNil(), "tools/call of the forbidden fixture with a legacy task member: %s", r)
			if r.str("resultType") == exttasks.ResultTypeTask && string(caps) == string(capsFull) {
				NotApplicable("the server makes tasks of the forbidden fixture")
			}
			expectNoTask(r, "tools/call of the forbidden fixture with a legacy task member")
		}
		sleep := env.extTool(FixtureSleep)
		r := env.extDo(ctx, extRequest{Method: "tools/call", Caps: capsNoExt, Params: map[string]any{"name": sleep,
			"arguments": env.Config.FixtureArguments(FixtureSleep, map[string]any{"ms": 100}), "task": legacy}})
		Expect(r.Error).To(BeNil(), "tools/call of the sleep fixture with a legacy task member and no extension: %s", r)
		expectNoTask(r, "tools/call of the sleep fixture with a legacy task member and no extension")
	})

	env.It("counts a request declaring only the legacy tasks capability as not declaring the extension", "EXT-COMPAT-003", func(ctx SpecContext) {
		legacyCaps := json.RawMessage(`{"tasks":{"requests":{"elicitation":{"create":{}}}},"elicitation":{"form":{}}}`)
		r := env.extToolCall(ctx, FixtureSleep, map[string]any{"ms": 100}, legacyCaps)
		expectNoTask(r, "tools/call declaring only the legacy tasks capability")
		g := env.extDo(ctx, extRequest{Method: exttasks.MethodGet, Caps: legacyCaps, Params: map[string]any{"taskId": "gate-test"}})
		expectExtError(g, -32021, 0, "tasks/get declaring only the legacy tasks capability")
	})

	env.It("refuses initialize with an error naming 2026-07-28 when it speaks only 2026-07-28", "EXT-COMPAT-016", func(ctx SpecContext) {
		r := env.extLegacyInitialize(ctx)
		if !refusedReply(r) {
			NotApplicable("the server accepts a 2025-11-25 initialize, so it speaks 2025-11-25 too; the rule is for a server that speaks only 2026-07-28: %s", r)
		}
		Expect(r.Error).NotTo(BeNil(), "initialize was refused (HTTP %d) without a JSON-RPC error to name the supported version 2026-07-28: %s", r.Status, r)
		said := r.Error.Message + " " + string(r.Error.Data)
		Expect(said).To(ContainSubstring(string(Protocol2026)), "initialize was refused without naming the supported version 2026-07-28: %s", r)
	})

	env.It("answers GET and DELETE with 405 and ignores session and Last-Event-ID headers when it speaks only 2026-07-28", "EXT-COMPAT-015", func(ctx SpecContext) {
		if r := env.extLegacyInitialize(ctx); !refusedReply(r) && r.Result != nil {
			NotApplicable("the server accepts a 2025-11-25 initialize, so it speaks 2025-11-25 too, whose sessions, GET streams and DELETE it may serve; the rule is for a server that speaks only 2026-07-28: %s", r)
		}
		for _, method := range []string{http.MethodGet, http.MethodDelete} {
			status := env.extBareRequest(ctx, method)
			Expect(status).To(Equal(http.StatusMethodNotAllowed), "a %s on the MCP endpoint of a server speaking only 2026-07-28 was answered with HTTP %d, not 405", method, status)
		}
		legacy := map[string]string{"Mcp-Session-Id": "mcptasks-conformance-legacy-session", "Last-Event-ID": "1"}
		// served sends req with the legacy headers; a refusal counts only
		// when the same request without them is served.
		served := func(req extRequest, what string) *extReply {
			GinkgoHelper()
			plain := req
			req.Headers = legacy
			r := env.extDo(ctx, req)
			Expect(r.Header.Get("Mcp-Session-Id")).To(BeEmpty(), "%s carrying Mcp-Session-Id and Last-Event-ID came back with an Mcp-Session-Id header: %s", what, r)
			if refusedReply(r) {
				without := env.extDo(ctx, plain)
				Expect(refusedReply(without)).To(BeTrue(), "%s was refused with Mcp-Session-Id and Last-Event-ID but served without them: with %s; without %s", what, r, without)
			}
			return r
		}
		sleep := env.extTool(FixtureSleep)
		r := served(extRequest{Method: "tools/call", Params: map[string]any{"name": sleep,
			"arguments": env.Config.FixtureArguments(FixtureSleep, map[string]any{"ms": 100})}}, "tools/call of the sleep fixture")
		if id := r.str("taskId"); r.str("resultType") == exttasks.ResultTypeTask && id != "" {
			env.ext.mu.Lock()
			env.ext.created = append(env.ext.created, extCreated{id: id, headers: env.Config.Headers})
			env.ext.mu.Unlock()
			g := served(extRequest{Method: exttasks.MethodGet, Params: map[string]any{"taskId": id}}, "tasks/get of the task")
			if !refusedReply(g) {
				Expect(g.str("taskId")).To(Equal(id), "tasks/get carrying Mcp-Session-Id and Last-Event-ID answered for another task: %s", g)
			}
		}
	})

	env.It("does not switch extension tasks on inside a 2025-11-25 session", "EXT-COMPAT-001", func(ctx SpecContext) {
		c := env.NewClient(env.Config.URLs[0], env.Config.Headers, client.WithCapabilities(json.RawMessage(
			`{"extensions":{"`+exttasks.ExtensionID+`":{}},"elicitation":{}}`)))
		if _, err := c.Connect(ctx); err != nil {
			HarnessError("cannot initialize a 2025-11-25 session: %v", err)
		}
		raw, err := c.Call(ctx, "tools/call", map[string]any{"name": env.extTool(FixtureSleep),
			"arguments": env.Config.FixtureArguments(FixtureSleep, map[string]any{"ms": 100})})
		Expect(err).NotTo(HaveOccurred(), "a plain tools/call on a 2025-11-25 session")
		var m map[string]json.RawMessage
		Expect(json.Unmarshal(raw, &m)).To(Succeed())
		Expect(m).NotTo(HaveKey("taskId"), "a 2025-11-25 session got a flat extension task: %s", raw)
		Expect(m).NotTo(HaveKey("task"), "a plain 2025-11-25 call got a task: %s", raw)
		Expect(string(m["resultType"])).NotTo(Equal(`"task"`), "a 2025-11-25 session got resultType task: %s", raw)
	})

})

// extLegacyInitialize sends a 2025-11-25 initialize the way a client of
// that revision does: no _meta and none of the 2026-07-28 headers.
func (env *ServerEnv) extLegacyInitialize(ctx context.Context) *extReply {
	GinkgoHelper()
	return env.extDo(ctx, extRequest{Method: "initialize", NoMeta: true,
		Params: map[string]any{"protocolVersion": string(Protocol2025), "capabilities": map[string]any{},
			"clientInfo": map[string]string{"name": "mcptasks-conformance", "version": "suite"}},
		Headers: map[string]string{client.HeaderProtocolVersion: "", "Mcp-Method": ""}})
}

// extBareRequest sends method (GET or DELETE) to the endpoint the way a
// 2025-11-25 client would (identity A's headers, a session id, an event
// stream accepted), records it as evidence and returns the HTTP status.
// The body is not read: a GET the server serves may be a stream that
// never ends.
func (env *ServerEnv) extBareRequest(ctx context.Context, method string) int {
	GinkgoHelper()
	ctx, cancel := context.WithTimeout(ctx, env.scaled(10*time.Second))
	defer cancel()
	hr, err := env.extHTTPRequest(ctx, method, env.Config.URLs[0], nil, nil)
	if err != nil {
		HarnessError("%s: %v", method, err)
	}
	hr.Header.Set("Accept", "text/event-stream")
	hr.Header.Set("Mcp-Session-Id", "mcptasks-conformance-legacy-session")
	resp, err := env.httpClient().Do(hr)
	if err != nil {
		HarnessError("%s: %v", method, err)
	}
	_ = resp.Body.Close()
	env.recordExchange(client.Exchange{Method: method + " " + env.Config.URLs[0], HTTPStatus: resp.StatusCode,
		ContentType: resp.Header.Get("Content-Type"), At: time.Now()})
	return resp.StatusCode
}
