package suites

import (
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

var _ = describeStore("Cancellation", "cancellation", func(env *StoreEnv) {
	DescribeTable("refuses to cancel a task that already ended (-32602)",
		func(ctx SpecContext, status tasks.Status) {
			before := env.CreateIn(ctx, env.Owner, status)
			_, err := env.Store.Cancel(ctx, env.Owner, before.ID, "too late")
			expectCode(err, tasks.ErrInvalidTransition, "Cancel of a "+string(status)+" task")
			expectUnchanged(ctx, env, before, "a refused Cancel")
		},
		env.Entry("completed", "TASKS-CANCEL-001", tasks.StatusCompleted),
		env.Entry("failed", "TASKS-CANCEL-001", tasks.StatusFailed),
		env.Entry("cancelled", "TASKS-CANCEL-001", tasks.StatusCancelled),
	)

	DescribeTable("has the task cancelled by the time Cancel returns",
		func(ctx SpecContext, status tasks.Status) {
			r := env.CreateIn(ctx, env.Owner, status)
			got, err := env.Store.Cancel(ctx, env.Owner, r.ID, "user changed their mind")
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Status).To(Equal(tasks.StatusCancelled))
			Expect(got.Version).To(BeNumerically(">", r.Version))
			Expect(mustGet(ctx, env, env.Owner, r.ID).Status).To(Equal(tasks.StatusCancelled))
		},
		env.Entry("from working", "TASKS-CANCEL-003", tasks.StatusWorking),
		env.Entry("from input_required", "TASKS-CANCEL-003", tasks.StatusInputRequired),
	)

	env.It("stores a request-cancelled error as the outcome", "MCPT-CANCEL-001", func(ctx SpecContext) {
		r := env.Create(ctx, env.Owner)
		_, err := env.Store.Cancel(ctx, env.Owner, r.ID, "stopped by user")
		Expect(err).NotTo(HaveOccurred())
		res, err := env.Store.Result(ctx, env.Owner, r.ID)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Outcome).NotTo(BeNil())
		Expect(res.Outcome.Result).To(BeNil())
		Expect(res.Outcome.Error).NotTo(BeNil())
		Expect(res.Outcome.Error.Code).To(Equal(int64(wire.CodeRequestCancelled)))
		Expect(res.StatusMessage).To(Equal("stopped by user"))
	})

	DescribeTable("keeps a cancelled task cancelled when its work ends later",
		func(ctx SpecContext, late func(ctx SpecContext, env *StoreEnv, id string) error) {
			r := env.Create(ctx, env.Owner)
			cancelled, err := env.Store.Cancel(ctx, env.Owner, r.ID, "")
			Expect(err).NotTo(HaveOccurred())
			expectCode(late(ctx, env, r.ID), tasks.ErrInvalidTransition, "a late change of a cancelled task")
			expectUnchanged(ctx, env, cancelled, "a late change")
			res, err := env.Store.Result(ctx, env.Owner, r.ID)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Status).To(Equal(tasks.StatusCancelled))
			Expect(res.Outcome.Error).NotTo(BeNil())
			Expect(res.Outcome.Error.Code).To(Equal(int64(wire.CodeRequestCancelled)))
		},
		env.Entry("completed", "TASKS-CANCEL-004", func(ctx SpecContext, env *StoreEnv, id string) error {
			_, err := env.Store.Complete(ctx, env.Owner, id, tasks.StatusCompleted, "", resultOutcome(`{"late":true}`))
			return err
		}),
		env.Entry("failed", "TASKS-CANCEL-004", func(ctx SpecContext, env *StoreEnv, id string) error {
			_, err := env.Store.Complete(ctx, env.Owner, id, tasks.StatusFailed, "", errorOutcome(-32000, "late"))
			return err
		}),
		env.Entry("resumed", "TASKS-CANCEL-004", func(ctx SpecContext, env *StoreEnv, id string) error {
			_, err := env.Store.Transition(ctx, env.Owner, id, tasks.StatusWorking, "")
			return err
		}),
	)

	env.It("keeps the cancellation when Complete races with Cancel", "TASKS-CANCEL-004", func(ctx SpecContext) {
		for i := 0; i < 25; i++ {
			r := env.Create(ctx, env.Owner)
			var wg sync.WaitGroup
			var cancelErr, completeErr error
			start := make(chan struct{})
			wg.Add(2)
			go func() {
				defer wg.Done()
				<-start
				_, cancelErr = env.Store.Cancel(ctx, env.Owner, r.ID, "")
			}()
			go func() {
				defer wg.Done()
				<-start
				_, completeErr = env.Store.Complete(ctx, env.Owner, r.ID, tasks.StatusCompleted, "", resultOutcome(`{}`))
			}()
			close(start)
			wg.Wait()
			Expect((cancelErr == nil) != (completeErr == nil)).To(BeTrue(),
				"exactly one of Cancel (%v) and Complete (%v) must win", cancelErr, completeErr)
			res, err := env.Store.Result(ctx, env.Owner, r.ID)
			Expect(err).NotTo(HaveOccurred())
			if cancelErr == nil {
				Expect(res.Status).To(Equal(tasks.StatusCancelled), "Cancel won but the task is %s", res.Status)
				Expect(res.Outcome.Error).NotTo(BeNil(), "a cancelled task holds a result outcome")
			} else {
				Expect(res.Status).To(Equal(tasks.StatusCompleted))
				expectCode(cancelErr, tasks.ErrInvalidTransition, "the losing Cancel")
			}
		}
	})
})
