package suites

import (
	"encoding/json"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/tasks/client"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

var _ = describeServer("Cancellation with tasks/cancel", "cancel", func(env *ServerEnv) {
	env.It("has the task cancelled by the time it answers tasks/cancel", "TASKS-CANCEL-003", func(ctx SpecContext) {
		created := env.Running(ctx, 5000)
		t, err := env.A.CancelTask(ctx, created.Task.TaskID)
		env.cancelOK(ctx, err, created.Task.TaskID, wire.MethodTasksCancel)
		Expect(t.Status).To(Equal(schema.TaskStatusCancelled), "tasks/cancel result status")
		got, err := env.A.GetTask(ctx, created.Task.TaskID)
		if code, isRPC := rpcCode(err); isRPC && code == -32602 {
			return // deleting a cancelled task at once is allowed
		}
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Status).To(Equal(schema.TaskStatusCancelled), "tasks/get right after tasks/cancel")
	})

	env.It("keeps a cancelled task cancelled after its work would have finished", "TASKS-CANCEL-004", func(ctx SpecContext) {
		const ms = 300
		created := env.Running(ctx, ms)
		_, err := env.A.CancelTask(ctx, created.Task.TaskID)
		env.cancelOK(ctx, err, created.Task.TaskID, wire.MethodTasksCancel)
		time.Sleep(env.scaled(2 * ms * time.Millisecond))
		got, err := env.A.GetTask(ctx, created.Task.TaskID)
		if code, isRPC := rpcCode(err); isRPC && code == -32602 {
			return
		}
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Status).To(Equal(schema.TaskStatusCancelled), "the task left cancelled once its work ended")
	})

	env.It("refuses to cancel a task that already ended with -32602", "TASKS-CANCEL-001", func(ctx SpecContext) {
		done := env.Sleep(ctx, 0)
		env.Await(ctx, done.Task.TaskID)
		_, err := env.A.CancelTask(ctx, done.Task.TaskID)
		ExpectRPCError(err, -32602, "tasks/cancel of a completed task")

		cancelled := env.Running(ctx, 5000)
		_, err = env.A.CancelTask(ctx, cancelled.Task.TaskID)
		env.cancelOK(ctx, err, cancelled.Task.TaskID, "the first tasks/cancel")
		_, err = env.A.CancelTask(ctx, cancelled.Task.TaskID)
		ExpectRPCError(err, -32602, "tasks/cancel of a cancelled task")

		if _, ok := env.Tools[env.Config.ToolName(FixtureToolError)]; ok {
			failed := env.Create(ctx, FixtureToolError, map[string]any{"ms": 0})
			env.Await(ctx, failed.Task.TaskID)
			_, err = env.A.CancelTask(ctx, failed.Task.TaskID)
			ExpectRPCError(err, -32602, "tasks/cancel of a failed task")
		}
	})

	env.It("returns the cancelled task flat in the tasks/cancel result", "TASKS-WIRE-CANCEL-001", func(ctx SpecContext) {
		created := env.Running(ctx, 5000)
		raw, err := env.A.Call(ctx, wire.MethodTasksCancel, map[string]string{"taskId": created.Task.TaskID})
		env.cancelOK(ctx, err, created.Task.TaskID, wire.MethodTasksCancel)
		obj := rawTaskMembers(raw, false)
		Expect(obj).NotTo(HaveKey("task"), "tasks/cancel wraps the task")
		expectTTLMember(obj, wire.MethodTasksCancel)
		env.expectAnswersConform("CancelTaskResult")
	})

	env.It("does not cancel a task when the request that created it is cancelled", "TASKS-NCANCEL-006", func(ctx SpecContext) {
		role := env.TaskSleep()
		var reqID json.RawMessage
		created := env.CreateCall(ctx, env.A, role, client.ToolCall{Arguments: map[string]any{"ms": 300}},
			client.OnRequestID(func(id json.RawMessage) { reqID = id }))
		if t, err := env.A.GetTask(ctx, created.Task.TaskID); err == nil && t.Status == "cancelled" {
			NotSupported("the task was already cancelled on its own (%q) before the harness sent notifications/cancelled; "+
				"the early end is judged by TASKS-XPORT-021", t.Message())
		}
		Expect(env.A.CancelRequest(ctx, reqID, "conformance probe")).To(Succeed())
		final := env.Await(ctx, created.Task.TaskID)
		Expect(final.Status).To(Equal(schema.TaskStatusCompleted), "notifications/cancelled for the finished tools/call changed the task")
	})
})
