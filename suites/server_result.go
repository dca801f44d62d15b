package suites

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/tasks/client"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

var _ = describeServer("Result retrieval with tasks/result", "result", func(env *ServerEnv) {
	env.It("blocks tasks/result until the task is terminal", "TASKS-RESULT-004", func(ctx SpecContext) {
		const ms = 800
		created := env.Sleep(ctx, ms)
		id := created.Task.TaskID
		start := time.Now()
		var done atomic.Bool
		// tasks/get keeps being answered while tasks/result is pending,
		// and tasks/result must not return while the task still runs.
		pollErr := make(chan error, 1)
		go func() {
			defer GinkgoRecover()
			pctx, cancel := context.WithTimeout(ctx, env.Config.TaskTimeout)
			defer cancel()
			for !done.Load() {
				if _, err := env.A.GetTask(pctx, id); err != nil {
					pollErr <- err
					return
				}
				time.Sleep(env.scaled(50 * time.Millisecond))
			}
			pollErr <- nil
		}()
		_, err := env.A.Result(ctx, id) // the payload's shape is TASKS-WIRE-CALLRESULT-001's rule
		done.Store(true)
		elapsed := time.Since(start)
		Expect(err).NotTo(HaveOccurred(), wire.MethodTasksResult)
		Expect(<-pollErr).NotTo(HaveOccurred(), "tasks/get while tasks/result was pending")
		t, err := env.A.GetTask(ctx, id)
		Expect(err).NotTo(HaveOccurred())
		Expect(t.Terminal()).To(BeTrue(), "tasks/result returned while tasks/get still says %s", t.Status)
		if t.Status == "completed" {
			// A completed sleep cannot have finished before its time; a
			// task the server ended early for another reason may answer
			// at once.
			Expect(elapsed).To(BeNumerically(">=", (ms-100)*time.Millisecond), "tasks/result returned after %s for a %d ms task", elapsed, ms)
		}
	})

	env.It("tags the tasks/result payload with related-task metadata naming the task", "TASKS-META-007", func(ctx SpecContext) {
		created := env.Sleep(ctx, 0)
		env.AwaitCompleted(ctx, env.A, created.Task.TaskID)
		payload, err := env.A.Result(ctx, created.Task.TaskID)
		Expect(err).NotTo(HaveOccurred())
		id, ok := client.RelatedTaskID(payload)
		Expect(ok).To(BeTrue(), "tasks/result payload has no _meta[%q]: %s", wire.MetaRelatedTask, payload)
		Expect(id).To(Equal(created.Task.TaskID))
		Expect(relatedTaskValue(payload)).To(ConformTo("RelatedTaskMetadata"))
	})

	// The spec asks tasks/result to hand back the final outcome of a
	// terminal task; for an isError tool that outcome is the CallToolResult
	// with isError set, whatever terminal status the server chose.
	env.It("returns the isError CallToolResult of a tool task through tasks/result", "TASKS-RESULT-003", func(ctx SpecContext) {
		created := env.Create(ctx, FixtureToolError, map[string]any{"ms": 0})
		final := env.Await(ctx, created.Task.TaskID)
		if final.Status == "cancelled" {
			NotSupported("the isError tool task ended cancelled on its own (statusMessage %q; the harness never cancelled it), "+
				"so it holds no outcome of the tool; the early end is judged by TASKS-XPORT-021", final.Message())
		}
		payload, err := env.A.Result(ctx, created.Task.TaskID)
		var rpc *client.RPCError
		if errors.As(err, &rpc) {
			// A JSON-RPC error is a legal final outcome too. It breaks
			// this rule only if the tool's own outcome is an isError
			// result, which only a plain call of the tool can show.
			plain, perr := env.A.CallTool(ctx, env.Config.ToolName(FixtureToolError), env.Args(FixtureToolError, map[string]any{"ms": 0}))
			if perr != nil {
				NotSupported("tasks/result of the tool_error task (status %s) gave JSON-RPC error %d %q, and the tool cannot show its own "+
					"outcome without a task (the plain call gave %v): whether that error is the tool's outcome cannot be judged",
					final.Status, rpc.Code, rpc.Message, perr)
			}
			Fail(fmt.Sprintf("tasks/result of the tool_error task (status %s) gave JSON-RPC error %d %q, but the same call without a task "+
				"returns a result: %s", final.Status, rpc.Code, rpc.Message, plain))
		}
		checkCall(err, "tasks/result of the isError tool task (status %s)", final.Status)
		var res struct {
			IsError bool `json:"isError"`
		}
		Expect(json.Unmarshal(payload, &res)).To(Succeed(), "tasks/result payload is not an object: %s", payload)
		// Only isError is this rule's: the rest of the payload's shape is
		// judged once, by TASKS-WIRE-CALLRESULT-001.
		Expect(res.IsError).To(BeTrue(), "tasks/result of the isError tool task (status %s) lost isError: %s", final.Status, payload)
	})

	// Informative in the spec (no keyword; "should" in lower case), so
	// registered at MAY: reported, never binding.
	env.It("ends a tool task whose result has isError in failed", "TASKS-ERR-007", func(ctx SpecContext) {
		created := env.Create(ctx, FixtureToolError, map[string]any{"ms": 0})
		final := env.Await(ctx, created.Task.TaskID)
		if final.Status == "cancelled" {
			NotSupported("the isError tool task ended cancelled on its own (statusMessage %q; the harness never cancelled it); "+
				"the early end is judged by TASKS-XPORT-021", final.Message())
		}
		Expect(final.Status).To(Equal(schema.TaskStatusFailed), "the task of a tool whose result has isError ended %s", final.Status)
	})

	env.ItNeeding("answers tasks/result for a cancelled task with some final outcome", "TASKS-RESULT-003", []Feature{FeatureCancel}, func(ctx SpecContext) {
		created := env.Running(ctx, 5000)
		_, err := env.A.CancelTask(ctx, created.Task.TaskID)
		env.cancelOK(ctx, err, created.Task.TaskID, wire.MethodTasksCancel)
		rctx, cancel := context.WithTimeout(ctx, env.Config.TaskTimeout)
		defer cancel()
		payload, err := env.A.Result(rctx, created.Task.TaskID)
		// The spec leaves the outcome of a cancelled task open: a result
		// or any JSON-RPC error is fine; hanging or a transport failure
		// is not.
		var rpc *client.RPCError
		if err != nil && !errors.As(err, &rpc) {
			Fail("tasks/result of a cancelled task gave no JSON-RPC answer: " + err.Error())
		}
		if err == nil {
			AddReportEntry("cancelled outcome", string(payload), ReportEntryVisibilityFailureOrVerbose)
		} else {
			AddReportEntry("cancelled outcome", rpc.Error(), ReportEntryVisibilityFailureOrVerbose)
		}
	})

	env.It("gives a failed task a statusMessage explaining the failure", "TASKS-ERR-006", func(ctx SpecContext) {
		// Any task that ends failed will do: the isError tool's, else the
		// JSON-RPC error tool's. Whether an isError task must end failed
		// is TASKS-ERR-007's question, not this one's.
		var seen []string
		for _, role := range []Role{FixtureToolError, FixtureRPCError} {
			name := env.Config.ToolName(role)
			if t, ok := env.Tools[name]; !ok || name == "" || (t.TaskSupport() != "optional" && t.TaskSupport() != "required") {
				seen = append(seen, fmt.Sprintf("no %s fixture", role))
				continue
			}
			created := env.Create(ctx, role, map[string]any{"ms": 0})
			final := env.Await(ctx, created.Task.TaskID)
			if final.Status != "failed" {
				seen = append(seen, fmt.Sprintf("the %s task ended %s", role, final.Status))
				continue
			}
			Expect(strings.TrimSpace(final.Message())).NotTo(BeEmpty(), "the %s task ended failed without a statusMessage", role)
			return
		}
		NotSupported("no fixture task ended failed (%s); this spec needs a failed task", strings.Join(seen, "; "))
	})

	// The one place a tasks/result payload's shape is judged: the sleep
	// task's result and, when the server has an isError tool, that one's.
	env.It("shapes the tasks/result payload of a tool call as a CallToolResult", "TASKS-WIRE-CALLRESULT-001", func(ctx SpecContext) {
		created := env.Sleep(ctx, 0)
		env.AwaitCompleted(ctx, env.A, created.Task.TaskID)
		payload, err := env.A.Result(ctx, created.Task.TaskID)
		Expect(err).NotTo(HaveOccurred())
		Expect(payload).To(ConformTo("CallToolResult"), "tasks/result of the sleep task")
		name := env.Config.ToolName(FixtureToolError)
		if t, ok := env.Tools[name]; !ok || name == "" || (t.TaskSupport() != "optional" && t.TaskSupport() != "required") {
			return
		}
		errTask := env.Create(ctx, FixtureToolError, map[string]any{"ms": 0})
		if final := env.Await(ctx, errTask.Task.TaskID); final.Status == "cancelled" {
			return // ended on its own: no outcome of the tool (TASKS-XPORT-021)
		}
		payload, err = env.A.Result(ctx, errTask.Task.TaskID)
		if _, isRPC := rpcCode(err); isRPC {
			return // a JSON-RPC error has no CallToolResult to shape (TASKS-RESULT-003 judges it)
		}
		checkCall(err, "tasks/result of the tool_error task")
		Expect(payload).To(ConformTo("CallToolResult"), "tasks/result of the isError tool task")
	})
})

// relatedTaskValue returns the value under the related-task _meta key.
func relatedTaskValue(obj json.RawMessage) json.RawMessage {
	var v struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(obj, &v)
	return v.Meta[wire.MetaRelatedTask]
}
