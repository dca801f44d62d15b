package suites

import (
	"context"
	"errors"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/tasks/client"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// Specs for requirements the other areas touched only in passing: request
// ids the server picks, requests without a protocol version header, and
// cancellation notifications that name nothing cancellable.
var _ = describeServer("Session hygiene", "transport", func(env *ServerEnv) {
	env.It("answers a request that carries no MCP-Protocol-Version header", "TASKS-XPORT-046", func(ctx SpecContext) {
		_, err := env.A.Call(ctx, wire.MethodPing, nil, client.WithCallHeader(client.HeaderProtocolVersion, ""))
		var he *client.HTTPError
		if errors.As(err, &he) {
			env.failf("ping without an MCP-Protocol-Version header was refused with HTTP %d; without the header the server should assume the 2025-03-26 revision, in which ping exists", he.StatusCode)
		}
		Expect(err).NotTo(HaveOccurred(), "ping without an MCP-Protocol-Version header")
	})

	env.It("hands every session its own id", "TASKS-XPORT-034", func(ctx SpecContext) {
		seen := map[string]int{}
		if id := env.A.SessionID(); id != "" {
			seen[id]++
		}
		for i := 0; i < 3; i++ {
			c := env.Connect(ctx, env.Config.URLs[0], env.Config.Headers)
			if id := c.SessionID(); id != "" {
				seen[id]++
			}
		}
		if len(seen) == 0 {
			NotApplicable("the server hands out no session ids")
		}
		for id, n := range seen {
			Expect(n).To(Equal(1), "the session id %q was handed to %d of 4 sessions", id, n)
		}
	})

	env.It("ignores cancellation notifications for unknown requests or with malformed params", "TASKS-NCANCEL-009", func(ctx SpecContext) {
		running := env.Running(ctx, 2000)
		for what, params := range map[string]any{
			"an unknown request id": map[string]any{"requestId": "mcptasks-never-sent", "reason": "probe"},
			"a malformed requestId": map[string]any{"requestId": map[string]any{"not": "an id"}},
			"no requestId at all":   map[string]any{"reason": "probe"},
		} {
			rr, err := env.A.NotifyRaw(ctx, wire.NotificationCancelled, params)
			var he *client.HTTPError
			if errors.As(err, &he) && he.StatusCode >= 500 {
				env.failf("notifications/cancelled with %s broke the server: HTTP %d", what, he.StatusCode)
			}
			if err == nil && rr != nil {
				Expect(strings.TrimSpace(string(rr.Body))).NotTo(ContainSubstring(`"error"`),
					"notifications/cancelled with %s was answered with a JSON-RPC error", what)
			}
		}
		_, err := env.A.Call(ctx, wire.MethodPing, nil)
		Expect(err).NotTo(HaveOccurred(), "ping after the invalid cancellation notifications")
		t, err := env.A.GetTask(ctx, running.Task.TaskID)
		checkCall(err, "tasks/get %s", running.Task.TaskID)
		Expect(t.Status).NotTo(Equal(schema.TaskStatusCancelled), "an invalid cancellation notification cancelled an unrelated task")
	})
})

var _ = describeServer("Server request ids", "input", func(env *ServerEnv) {
	env.It("never reuses a request id within a session", "TASKS-JSONRPC-003", func(ctx SpecContext) {
		env.Fixture(FixtureInput)
		var (
			mu  sync.Mutex
			ids = map[string]int{}
		)
		handler := func(hctx context.Context, req *client.Message) (any, error) {
			mu.Lock()
			ids[strings.TrimSpace(string(req.ID))]++
			mu.Unlock()
			return answerElicitation(hctx, req)
		}
		c := env.Connect(ctx, env.Config.URLs[0], env.Config.Headers, client.WithRequestHandler(handler))
		_ = c.OpenStream(ctx)
		for i := 0; i < 2; i++ {
			created := env.CreateOn(ctx, c, FixtureInput, map[string]any{"question": "Which colour?"}, nil)
			rctx, cancel := context.WithTimeout(ctx, env.Config.TaskTimeout)
			_, _ = c.Result(rctx, created.Task.TaskID)
			cancel()
			env.AwaitOn(ctx, c, created.Task.TaskID, nil)
		}
		mu.Lock()
		defer mu.Unlock()
		total := 0
		for id, n := range ids {
			total += n
			Expect(n).To(Equal(1), "the server sent %d requests with the id %s in one session", n, id)
		}
		if total < 2 {
			NotSupported("only %d server request arrived for two input tasks; ids cannot be compared", total)
		}
	})
})
