package suites

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/tasks/client"
)

var _ = describeServer("Several instances on one store", "multi-instance", func(env *ServerEnv) {
	// second connects identity A to the second URL (the gate has made
	// sure the feature is on).
	second := func(ctx SpecContext) *client.Client {
		GinkgoHelper()
		env.use(FeatureMultiInstance)
		if env.Config.Stdio() || len(env.Config.URLs) < 2 {
			// Only when the operator switched the feature on.
			NotSupported("multi-instance is on, but only one server URL is configured (give --server twice to certify two instances sharing a store)")
		}
		return env.Connect(ctx, env.Config.URLs[1], env.Config.Headers)
	}

	env.It("lets another instance read a task created on the first", "MCPT-MULTI-001", func(ctx SpecContext) {
		b := second(ctx)
		created := env.Sleep(ctx, 0)
		t, err := b.GetTask(ctx, created.Task.TaskID)
		Expect(err).NotTo(HaveOccurred(), "tasks/get on the second instance")
		Expect(t.TaskID).To(Equal(created.Task.TaskID))
	})

	env.It("lists on another instance the tasks created on the first", "MCPT-MULTI-002", func(ctx SpecContext) {
		b := second(ctx)
		created := env.Sleep(ctx, 0)
		all, err := b.ListAllTasks(ctx, 1000)
		Expect(err).NotTo(HaveOccurred())
		var ids []string
		for _, t := range all {
			ids = append(ids, t.TaskID)
		}
		Expect(ids).To(ContainElement(created.Task.TaskID))
	})

	env.It("lets another instance cancel a task running on the first", "MCPT-MULTI-003", func(ctx SpecContext) {
		b := second(ctx)
		created := env.Running(ctx, 3000)
		t, err := b.CancelTask(ctx, created.Task.TaskID)
		env.cancelOK(ctx, err, created.Task.TaskID, "tasks/cancel on the second instance")
		Expect(t.Status).To(Equal(schema.TaskStatusCancelled))
		got, err := env.A.GetTask(ctx, created.Task.TaskID)
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Status).To(Equal(schema.TaskStatusCancelled), "the first instance does not see the cancellation")
	})

	env.It("delivers through another instance the result of a task running on the first", "MCPT-MULTI-004", func(ctx SpecContext) {
		b := second(ctx)
		created := env.Sleep(ctx, 300)
		payload, err := b.Result(ctx, created.Task.TaskID)
		Expect(err).NotTo(HaveOccurred(), "tasks/result on the second instance")
		id, ok := client.RelatedTaskID(payload)
		Expect(ok).To(BeTrue())
		Expect(id).To(Equal(created.Task.TaskID))
	})
})
