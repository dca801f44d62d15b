package suites

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/tasks/client"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// httpStatus returns the HTTP status of a *client.HTTPError, or 0.
func httpStatus(err error) int {
	var he *client.HTTPError
	if errors.As(err, &he) {
		return he.StatusCode
	}
	return 0
}

var _ = describeServer("Streamable HTTP transport", "transport", func(env *ServerEnv) {
	env.It("refuses a request whose Origin header is not acceptable with HTTP 403", "TASKS-XPORT-004", func(ctx SpecContext) {
		_, err := env.A.Call(ctx, wire.MethodPing, nil, client.WithCallHeader("Origin", "http://evil.invalid"))
		Expect(httpStatus(err)).To(Equal(http.StatusForbidden), "a request from Origin http://evil.invalid got %s", outcome(err))
	})

	env.It("rejects task requests sent before initialize", "TASKS-INIT-001", func(ctx SpecContext) {
		fresh := env.NewClient(env.Config.URLs[0], env.Config.Headers)
		for _, m := range []string{wire.MethodTasksGet, wire.MethodTasksList} {
			params := map[string]any{}
			if m == wire.MethodTasksGet {
				params["taskId"] = "00000000-0000-4000-8000-000000000000"
			}
			raw, err := fresh.Call(ctx, m, params)
			Expect(err).To(HaveOccurred(), "%s before initialize was answered with data: %s (initialization has to be the first exchange, "+
				"and both sides may use only capabilities negotiated there, so a server serves no task method before it)", m, truncateRaw(raw))
			_, isRPC := rpcCode(err)
			status := httpStatus(err)
			Expect(isRPC || (status >= 400 && status < 500)).To(BeTrue(),
				"%s before initialize should get a JSON-RPC error or an HTTP 4xx, got %s", m, outcome(err))
		}
	})

	env.It("answers requests that lack the session id with HTTP 400 when it uses sessions", "TASKS-XPORT-038", func(ctx SpecContext) {
		if env.A.SessionID() == "" {
			NotApplicable("the server assigns no Mcp-Session-Id")
		}
		_, err := env.A.Call(ctx, wire.MethodPing, nil, client.WithCallHeader(client.HeaderSessionID, ""))
		Expect(httpStatus(err)).To(Equal(http.StatusBadRequest), "a request without Mcp-Session-Id got %s", outcome(err))
	})

	env.It("answers requests on a terminated session with HTTP 404", "TASKS-XPORT-040", func(ctx SpecContext) {
		c := env.Connect(ctx, env.Config.URLs[0], env.Config.Headers)
		if c.SessionID() == "" {
			NotApplicable("the server assigns no Mcp-Session-Id")
		}
		status, err := c.DeleteSession(ctx)
		Expect(err).NotTo(HaveOccurred())
		if status == http.StatusMethodNotAllowed {
			NotApplicable("the server does not let clients end sessions (DELETE answered 405)")
		}
		Expect(status).To(BeNumerically("~", 200, 99), "DELETE of the session answered %d", status)
		_, err = c.Call(ctx, wire.MethodPing, nil)
		Expect(httpStatus(err)).To(Equal(http.StatusNotFound), "a request on the ended session got %s", outcome(err))
	})

	// The transport rule covers notifications and responses only: the
	// server either accepts one (202, judged by TASKS-XPORT-008) or refuses
	// it with an HTTP error status. A body that is neither (no method, no
	// id) is outside the sentence, so it is not posted here. What breaks
	// this rule is a refusal without an error status: a JSON-RPC error
	// served with 2xx.
	env.It("refuses a notification or response it cannot accept only with an HTTP error status", "TASKS-XPORT-009", func(ctx SpecContext) {
		for _, body := range []string{
			`{"jsonrpc":"2.0","id":"mcptasks-never-sent","result":{}}`,
			`{"jsonrpc":"2.0","id":"mcptasks-never-sent-either","error":{"code":-32603,"message":"no such request"}}`,
			`{"jsonrpc":"2.0","method":"notifications/mcptasks/unknown","params":{}}`,
		} {
			rr, err := env.A.PostRaw(ctx, []byte(body))
			if status := httpStatus(err); status >= 400 {
				continue // refused with an HTTP error status
			}
			checkCall(err, "POST %s", body)
			if rr.StatusCode == http.StatusAccepted {
				continue // accepted; the empty body is TASKS-XPORT-008's rule
			}
			var msg struct {
				Error json.RawMessage `json:"error"`
			}
			if json.Unmarshal(rr.Body, &msg) == nil && len(msg.Error) > 0 {
				env.failf("the server refused %s with a JSON-RPC error but HTTP %d; a notification or response it cannot accept must get an HTTP error status (e.g. 400): %s",
					body, rr.StatusCode, truncateRaw(rr.Body))
			}
			AddReportEntry("not 202", fmt.Sprintf("%s was answered with HTTP %d and no JSON-RPC error (accepted; the 202 rule is TASKS-XPORT-008's)", body, rr.StatusCode),
				ReportEntryVisibilityFailureOrVerbose)
		}
	})

	env.It("keeps a task running when the client drops a pending tasks/result", "TASKS-XPORT-021", func(ctx SpecContext) {
		created := env.Sleep(ctx, 600)
		rctx, cancel := context.WithTimeout(ctx, 150*time.Millisecond)
		_, err := env.A.Result(rctx, created.Task.TaskID)
		cancel()
		final := env.Await(ctx, created.Task.TaskID)
		if err == nil {
			// tasks/result came back before the client dropped anything:
			// the task ended early on its own, when the request that
			// created it finished.
			Expect(final.Status).To(Equal(schema.TaskStatusCompleted),
				"the task ended %s (%q) as soon as the tools/call that created it was answered: the end of a request was taken as a cancellation", final.Status, final.Message())
			return
		}
		Expect(final.Status).To(Equal(schema.TaskStatusCompleted), "dropping the tasks/result connection changed the task's fate (statusMessage %q)", final.Message())
	})

	env.It("sends no JSON-RPC response on the GET stream", "TASKS-XPORT-026", func(ctx SpecContext) {
		if err := env.A.OpenStream(ctx); err != nil {
			NotApplicable("the server offers no GET stream: %v", err)
		}
		created := env.Sleep(ctx, 50)
		env.Await(ctx, created.Task.TaskID)
		_, err := env.A.Result(ctx, created.Task.TaskID)
		Expect(err).NotTo(HaveOccurred())
		time.Sleep(env.scaled(100 * time.Millisecond))
		for _, m := range env.Messages() {
			if m.Stream == client.StreamGET {
				Expect(m.IsResponse()).To(BeFalse(), "a response arrived on the GET stream: %s", truncateRaw(m.Raw))
			}
		}
	})
})
