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

var _ = describeServer("Task creation", "create", func(env *ServerEnv) {
	env.It("answers a task-augmented call with a CreateTaskResult", "TASKS-RESULT-001", func(ctx SpecContext) {
		name := env.Fixture(env.TaskSleep())
		raw, err := env.A.Call(ctx, wire.MethodToolsCall, client.ToolCall{Name: name, Arguments: env.Args(env.TaskSleep(), map[string]any{"ms": 0}), Task: &client.TaskParams{}}.Params())
		Expect(err).NotTo(HaveOccurred())
		// The shape of the answer is judged under TASKS-WIRE-CREATE-001;
		// here it only has to be a CreateTaskResult rather than, say, the
		// tool's own result.
		obj := rawTaskMembers(raw, true)
		Expect(obj).To(HaveKey("taskId"), "the answer to a task-augmented call names no task")
	})

	env.It("wraps the task in a task member instead of flattening it", "TASKS-WIRE-CREATE-001", func(ctx SpecContext) {
		name := env.Fixture(env.TaskSleep())
		raw, err := env.A.Call(ctx, wire.MethodToolsCall, client.ToolCall{Name: name, Arguments: env.Args(env.TaskSleep(), map[string]any{"ms": 0}), Task: &client.TaskParams{}}.Params())
		Expect(err).NotTo(HaveOccurred())
		var top map[string]json.RawMessage
		Expect(json.Unmarshal(raw, &top)).To(Succeed())
		Expect(top).To(HaveKey("task"))
		for _, k := range []string{"taskId", "status", "content", "isError", "structuredContent"} {
			Expect(top).NotTo(HaveKey(k), "CreateTaskResult has a top-level %q", k)
		}
		env.expectAnswersConform("CreateTaskResult")
	})

	env.It("returns the CreateTaskResult at once, before the work is done", "TASKS-RESULT-002", func(ctx SpecContext) {
		env.Fixture(env.TaskSleep())
		const ms = 2000
		start := time.Now()
		created := env.Sleep(ctx, ms)
		elapsed := time.Since(start)
		Expect(elapsed).To(BeNumerically("<", ms*time.Millisecond/2), "the CreateTaskResult took %s for a %d ms task", elapsed, ms)
		Expect(created.Task.Terminal()).To(BeFalse(), "a %d ms task is already %s when created", ms, created.Task.Status)
	})

	env.It("starts new tasks in the working status", "TASKS-LIFE-001", func(ctx SpecContext) {
		created := env.Sleep(ctx, 1000)
		Expect(created.Task.Status).To(Equal(schema.TaskStatusWorking))
	})

	env.It("accepts task creation with and without a requested ttl", "TASKS-CREATE-001", func(ctx SpecContext) {
		for _, ttl := range []*int64{nil, ptr(int64(60000))} {
			created := env.CreateOn(ctx, env.A, env.TaskSleep(), map[string]any{"ms": 0}, ttl)
			Expect(created.Task.TaskID).NotTo(BeEmpty())
		}
	})

	env.It("reports RFC 3339 createdAt and lastUpdatedAt in every task it returns", "TASKS-TTL-001", func(ctx SpecContext) {
		before := time.Now()
		created := env.Sleep(ctx, 50)
		createdAt, _ := env.taskTimes(&created.Task, "CreateTaskResult")
		Expect(createdAt).To(BeTemporally("~", before, clockDrift),
			"createdAt %s is more than %s away from the harness clock (%s) when the task was created", created.Task.CreatedAt, clockDrift, before.UTC().Format(time.RFC3339Nano))
		final := env.Await(ctx, created.Task.TaskID)
		env.taskTimes(&final.Task, wire.MethodTasksGet)
		if env.Has(FeatureList) {
			all, err := env.A.ListAllTasks(ctx, 100)
			Expect(err).NotTo(HaveOccurred())
			for i := range all {
				env.taskTimes(&all[i], wire.MethodTasksList)
			}
		}
		if env.Has(FeatureCancel) {
			slow := env.Running(ctx, 5000)
			t, err := env.A.CancelTask(ctx, slow.Task.TaskID)
			env.cancelOK(ctx, err, slow.Task.TaskID, wire.MethodTasksCancel)
			env.taskTimes(&t.Task, wire.MethodTasksCancel)
		}
	})

	env.It("mints the task id itself, ignoring one proposed by the client", "TASKS-ID-002", func(ctx SpecContext) {
		name := env.Fixture(env.TaskSleep())
		params := client.ToolCall{Name: name, Arguments: env.Args(env.TaskSleep(), map[string]any{"ms": 0})}.Params()
		params["task"] = map[string]any{"taskId": "client-chosen-id"}
		raw, err := env.A.Call(ctx, wire.MethodToolsCall, params)
		Expect(err).NotTo(HaveOccurred())
		var res schema.CreateTaskResult
		Expect(json.Unmarshal(raw, &res)).To(Succeed())
		Expect(res.Task.TaskID).NotTo(BeEmpty())
		Expect(res.Task.TaskID).NotTo(Equal("client-chosen-id"))
	})

	env.It("gives every task a distinct id", "TASKS-ID-003", func(ctx SpecContext) {
		seen := map[string]bool{}
		for i := 0; i < 20; i++ {
			created := env.Sleep(ctx, 0)
			Expect(seen).NotTo(HaveKey(created.Task.TaskID), "task id %q was issued twice", created.Task.TaskID)
			seen[created.Task.TaskID] = true
		}
	})

	env.It("uses JSON strings for task ids", "TASKS-ID-001", func(ctx SpecContext) {
		name := env.Fixture(env.TaskSleep())
		raw, err := env.A.Call(ctx, wire.MethodToolsCall, client.ToolCall{Name: name, Arguments: env.Args(env.TaskSleep(), map[string]any{"ms": 0}), Task: &client.TaskParams{}}.Params())
		Expect(err).NotTo(HaveOccurred())
		id := rawTaskMembers(raw, true)["taskId"]
		Expect(string(id)).To(HavePrefix(`"`), "taskId %s is not a JSON string", id)
	})
})
