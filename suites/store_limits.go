package suites

import (
	"errors"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// limitCap is the per-owner cap the limit specs configure.
const limitCap = 3

// expectLimit checks that err is the per-owner limit error.
func expectLimit(err error) {
	GinkgoHelper()
	Expect(err).To(HaveOccurred(), "Create beyond the cap succeeded")
	Expect(errors.Is(err, tasks.ErrLimit)).To(BeTrue(), "want ErrLimit, got %v", err)
}

var _ = describeStore("Limits", "limits", func(env *StoreEnv) {
	BeforeEach(func() {
		env.Config.MaxTasksPerOwner = limitCap
	})

	fill := func(ctx SpecContext, status tasks.Status) []tasks.Record {
		GinkgoHelper()
		var rs []tasks.Record
		for i := 0; i < limitCap; i++ {
			rs = append(rs, env.CreateIn(ctx, env.Owner, status))
		}
		return rs
	}

	env.It("refuses a task beyond the per-owner cap", "MCPT-LIMIT-001", func(ctx SpecContext) {
		fill(ctx, tasks.StatusWorking)
		_, err := env.Store.Create(ctx, env.Owner, tasks.CreateParams{Method: wire.MethodToolsCall})
		expectLimit(err)
	})

	env.It("counts input_required tasks as active", "MCPT-LIMIT-001", func(ctx SpecContext) {
		fill(ctx, tasks.StatusInputRequired)
		_, err := env.Store.Create(ctx, env.Owner, tasks.CreateParams{Method: wire.MethodToolsCall})
		expectLimit(err)
	})

	env.It("caps active tasks and leaves no trace of a refused create", "TASKS-RSRC-001", func(ctx SpecContext) {
		fill(ctx, tasks.StatusWorking)
		for i := 0; i < 3; i++ {
			_, err := env.Store.Create(ctx, env.Owner, tasks.CreateParams{Method: wire.MethodToolsCall})
			expectLimit(err)
		}
		Expect(listAll(ctx, env, env.Owner, 10)).To(HaveLen(limitCap))
	})

	DescribeTable("frees a slot when a task ends",
		func(ctx SpecContext, status tasks.Status) {
			rs := fill(ctx, tasks.StatusWorking)
			_, err := moveTo(ctx, env, rs[1].ID, status)
			Expect(err).NotTo(HaveOccurred())
			env.Create(ctx, env.Owner)
			_, err = env.Store.Create(ctx, env.Owner, tasks.CreateParams{Method: wire.MethodToolsCall})
			expectLimit(err)
		},
		env.Entry("completed", "MCPT-LIMIT-002", tasks.StatusCompleted),
		env.Entry("failed", "MCPT-LIMIT-002", tasks.StatusFailed),
		env.Entry("cancelled", "MCPT-LIMIT-002", tasks.StatusCancelled),
	)

	env.It("frees a slot when a task expires, before any cleanup", "MCPT-LIMIT-002", func(ctx SpecContext) {
		ttl := 2 * time.Second
		for i := 0; i < limitCap; i++ {
			_, err := env.Store.Create(ctx, env.Owner, tasks.CreateParams{Method: wire.MethodToolsCall, TTL: &ttl})
			Expect(err).NotTo(HaveOccurred())
		}
		env.Clock.Advance(ttl - time.Millisecond)
		_, err := env.Store.Create(ctx, env.Owner, tasks.CreateParams{Method: wire.MethodToolsCall})
		expectLimit(err)
		env.Clock.Advance(time.Millisecond) // the instant they expire
		r := env.Create(ctx, env.Owner)
		listed := listAll(ctx, env, env.Owner, 10)
		Expect(listed).To(HaveLen(1), "the listing after the expiry")
		Expect(listed[0].ID).To(Equal(r.ID))
		Expect(mustGet(ctx, env, env.Owner, r.ID).ID).To(Equal(r.ID))
	})

	Context("with a negative cap", func() {
		BeforeEach(func() { env.Config.MaxTasksPerOwner = -1 })
		env.It("caps nothing", "MCPT-LIMIT-004", func(ctx SpecContext) {
			for i := 0; i < 4*limitCap; i++ {
				env.Create(ctx, env.Owner)
			}
			Expect(listAll(ctx, env, env.Owner, 50)).To(HaveLen(4 * limitCap))
		})
	})

	env.It("counts the cap per owner", "MCPT-LIMIT-003", func(ctx SpecContext) {
		fill(ctx, tasks.StatusWorking)
		for i := 0; i < limitCap; i++ {
			env.Create(ctx, env.Other)
		}
		_, err := env.Store.Create(ctx, env.Other, tasks.CreateParams{Method: wire.MethodToolsCall})
		expectLimit(err)
	})
})
