package suites

import (
	"context"
	"net/http"
	"net/http/httptrace"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/schema/exttasks"
)

// freshConnClient returns a copy of the harness's HTTP client whose every
// request opens a TCP connection of its own (keep-alives off), or false
// when the configured transport is not an *http.Transport the harness can
// copy.
func (env *ServerEnv) freshConnClient() (*http.Client, bool) {
	base := env.httpClient()
	var t *http.Transport
	switch rt := base.Transport.(type) {
	case nil:
		dt, ok := http.DefaultTransport.(*http.Transport)
		if !ok {
			return nil, false
		}
		t = dt.Clone()
	case *http.Transport:
		t = rt.Clone()
	default:
		return nil, false
	}
	t.DisableKeepAlives = true
	c := *base
	c.Transport = t
	return &c, true
}

// onNewConn returns ctx with a trace that notes whether the request sent
// under it went out on a connection used before.
func onNewConn(ctx context.Context, reused *bool) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		*reused = info.Reused
	}})
}

// refusedReply reports whether the server declined a request: a JSON-RPC
// error or an HTTP status outside 2xx.
func refusedReply(r *extReply) bool { return r.Error != nil || r.Status < 200 || r.Status >= 300 }

var _ = describeServer("2026-07-28: statelessness across connections", "ext-get", func(env *ServerEnv) {
	env.It("serves tasks/get, tasks/update and tasks/cancel that arrive on a connection other than the creating one", "EXT-GET-015", func(ctx SpecContext) {
		fresh, ok := env.freshConnClient()
		if !ok {
			NotApplicable("the configured HTTP client's transport is not an *http.Transport, so the harness cannot force a new connection per request")
		}
		// elsewhere sends req over a connection of its own; when the
		// server declines it there, the same request goes once more over
		// the harness's kept-alive connection. Only a refusal on the new
		// connection that the kept-alive one does not share breaks the
		// rule: a refusal on both is some other spec's business.
		elsewhere := func(req extRequest, what string) *extReply {
			GinkgoHelper()
			reused := false
			req.Client = fresh
			got := env.extDo(onNewConn(ctx, &reused), req)
			if reused {
				HarnessError("%s meant for a new connection went out on a kept-alive one", what)
			}
			if !refusedReply(got) {
				return got
			}
			req.Client = nil
			same := env.extDo(ctx, req)
			Expect(refusedReply(same)).To(BeTrue(),
				"%s was refused on a new connection but served on the kept-alive one that created the task: new connection %s; kept-alive connection %s", what, got, same)
			return got
		}

		id, _ := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 3000})
		got := elsewhere(extRequest{Method: exttasks.MethodGet, Params: map[string]any{"taskId": id}}, "tasks/get of a running task")
		if !refusedReply(got) {
			Expect(got.str("taskId")).To(Equal(id), "tasks/get over a new connection answered for another task: %s", got)
		}

		if env.Config.ToolName(FixtureInput) == "" {
			AddReportEntry("tasks/update not checked", "no input fixture is configured")
		} else {
			in, _ := env.extCreate(ctx, FixtureInput, map[string]any{"question": "conformance?"})
			rs := env.extPollUntil(ctx, in, func(s string) bool { return s == stInputRequired || extTerminal(s) })
			parked := rs[len(rs)-1]
			if asked := inputRequests(parked); parked.str("status") == stInputRequired && len(asked) > 0 {
				answers := map[string]any{}
				for k, req := range asked {
					answers[k] = map[string]any{"action": "accept", "content": formAnswer(req.Params)}
				}
				elsewhere(extRequest{Method: exttasks.MethodUpdate, Params: map[string]any{"taskId": in, "inputResponses": answers}}, "tasks/update answering a task's input")
			} else {
				AddReportEntry("tasks/update not checked", "the input fixture's task never waited with input requests")
			}
		}

		elsewhere(extRequest{Method: exttasks.MethodCancel, Params: map[string]any{"taskId": id}}, "tasks/cancel of a running task")
	})

	env.It("keeps a task going when the connections of the call that created it and of a poll close", "EXT-XPORT-019", func(ctx SpecContext) {
		fresh, ok := env.freshConnClient()
		if !ok {
			NotApplicable("the configured HTTP client's transport is not an *http.Transport, so the harness cannot give a request a connection of its own to close")
		}
		// Keep-alives are off in fresh: each connection closes once its
		// answer has been read, which ends the request's stream.
		name := env.extTool(FixtureSleep)
		reused := false
		r := env.extDo(onNewConn(ctx, &reused), extRequest{Method: "tools/call", Client: fresh,
			Params: map[string]any{"name": name, "arguments": env.Config.FixtureArguments(FixtureSleep, map[string]any{"ms": 400})}})
		if reused {
			HarnessError("the tools/call meant for a connection of its own went out on a kept-alive one")
		}
		Expect(r.Error).To(BeNil(), "tools/call of the sleep fixture with the extension declared failed: %s", r)
		if r.str("resultType") != exttasks.ResultTypeTask {
			NotSupported("the server answered the sleep fixture synchronously (resultType %q): creating a task is its choice, and the spec needs one", r.str("resultType"))
		}
		id := r.str("taskId")
		Expect(id).NotTo(BeEmpty(), "a CreateTaskResult without a string taskId: %s", r)
		env.ext.mu.Lock()
		env.ext.created = append(env.ext.created, extCreated{id: id, headers: env.Config.Headers})
		env.ext.mu.Unlock()
		env.extDo(ctx, extRequest{Method: exttasks.MethodGet, Client: fresh, Params: map[string]any{"taskId": id}})
		fresh.CloseIdleConnections()
		last := env.extTerminalReply(ctx, id)
		Expect(last.str("status")).NotTo(Equal(stCancelled),
			"the task ended cancelled although nobody sent tasks/cancel; the connections of the tools/call that created it and of a tasks/get had closed, which ends those requests, not the task: %s", last)
	})
})
