package suites

import (
	"context"
	"encoding/json"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// createTTL makes a task for owner asking for ttl.
func createTTL(ctx context.Context, env *StoreEnv, owner tasks.Owner, ttl time.Duration) tasks.Record {
	GinkgoHelper()
	r, err := env.Store.Create(ctx, owner, tasks.CreateParams{Method: wire.MethodToolsCall, TTL: &ttl})
	Expect(err).NotTo(HaveOccurred(), "Create with ttl %v", ttl)
	return r
}

// expectTTL checks a record's TTL and expiry.
func expectTTL(r tasks.Record, want time.Duration) {
	GinkgoHelper()
	Expect(r.TTL).NotTo(BeNil(), "ttl is unlimited, want %v", want)
	Expect(*r.TTL).To(Equal(want), "effective ttl")
	Expect(r.ExpiresAt.Equal(r.CreatedAt.Add(want))).To(BeTrue(), "expiresAt %v, want createdAt %v + %v", r.ExpiresAt, r.CreatedAt, want)
}

var _ = describeStore("TTL", "ttl", func(env *StoreEnv) {
	env.It("applies the default ttl when none is asked for", "MCPT-TTL-001", func(ctx SpecContext) {
		r := env.Create(ctx, env.Owner)
		expectTTL(r, env.Config.DefaultTTL)
		expectTTL(mustGet(ctx, env, env.Owner, r.ID), env.Config.DefaultTTL)
	})

	env.It("keeps a requested ttl that lies within the bounds", "MCPT-TTL-002", func(ctx SpecContext) {
		r := createTTL(ctx, env, env.Owner, 10*time.Minute+250*time.Millisecond)
		expectTTL(r, 10*time.Minute+250*time.Millisecond)
	})

	env.It("reports the ttl in force on every read", "TASKS-TTL-004", func(ctx SpecContext) {
		r := createTTL(ctx, env, env.Owner, 90*time.Second)
		expectTTL(mustGet(ctx, env, env.Owner, r.ID), 90*time.Second)
		page, err := env.Store.List(ctx, env.Owner, tasks.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(page.Tasks).To(HaveLen(1))
		expectTTL(page.Tasks[0], 90*time.Second)
		_, err = env.Store.Complete(ctx, env.Owner, r.ID, tasks.StatusCompleted, "", resultOutcome(`{}`))
		Expect(err).NotTo(HaveOccurred())
		res, err := env.Store.Result(ctx, env.Owner, r.ID)
		Expect(err).NotTo(HaveOccurred())
		expectTTL(res, 90*time.Second)
	})

	env.It("clamps a requested ttl to the maximum", "TASKS-RSRC-002", func(ctx SpecContext) {
		r := createTTL(ctx, env, env.Owner, env.Config.MaxTTL*3)
		expectTTL(r, env.Config.MaxTTL)
		expectTTL(mustGet(ctx, env, env.Owner, r.ID), env.Config.MaxTTL)
	})

	DescribeTable("raises a tiny ttl to the minimum",
		func(ctx SpecContext, ttl time.Duration) {
			r := createTTL(ctx, env, env.Owner, ttl)
			expectTTL(r, env.Config.MinTTL)
			Expect(mustGet(ctx, env, env.Owner, r.ID).ID).To(Equal(r.ID), "the task vanished at once")
		},
		env.Entry("zero", "MCPT-TTL-003", time.Duration(0)),
		env.Entry("one millisecond", "MCPT-TTL-003", time.Millisecond),
	)

	env.It("refuses a negative ttl and creates nothing", "MCPT-TTL-005", func(ctx SpecContext) {
		ttl := -5 * time.Second
		_, err := env.Store.Create(ctx, env.Owner, tasks.CreateParams{Method: wire.MethodToolsCall, TTL: &ttl})
		expectCode(err, tasks.ErrInvalidParams, "Create with a negative ttl")
		Expect(listAll(ctx, env, env.Owner, 10)).To(BeEmpty())
	})

	Context("when the default ttl is unlimited", func() {
		BeforeEach(func() {
			env.Config.DefaultTTL = tasks.Unlimited
			env.Config.MaxTTL = tasks.Unlimited
		})
		env.It("creates tasks without a ttl that never expire", "MCPT-TTL-004", func(ctx SpecContext) {
			r := env.Create(ctx, env.Owner)
			Expect(r.TTL).To(BeNil(), "ttl should be unlimited (nil)")
			Expect(r.ExpiresAt.IsZero()).To(BeTrue(), "an unlimited task has an expiry")
			env.Clock.Advance(10 * 365 * 24 * time.Hour)
			n, err := env.Store.DeleteExpired(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(n).To(BeZero())
			Expect(mustGet(ctx, env, env.Owner, r.ID).TTL).To(BeNil())
		})
		env.It("keeps a huge requested ttl when there is no maximum", "MCPT-TTL-002", func(ctx SpecContext) {
			r := createTTL(ctx, env, env.Owner, 1000*time.Hour)
			expectTTL(r, 1000*time.Hour)
		})
	})

	DescribeTable("drops a task once its ttl has elapsed, whatever its status",
		func(ctx SpecContext, status tasks.Status) {
			r := env.CreateIn(ctx, env.Owner, status)
			env.Clock.Advance(env.Config.DefaultTTL - time.Millisecond)
			Expect(mustGet(ctx, env, env.Owner, r.ID).ID).To(Equal(r.ID), "the task expired early")
			env.Clock.Advance(time.Millisecond)
			_, err := env.Store.Get(ctx, env.Owner, r.ID)
			expectCode(err, tasks.ErrNotFound, "Get of an expired task")
		},
		env.Entry("working", "TASKS-TTL-005", tasks.StatusWorking),
		env.Entry("completed", "TASKS-TTL-005", tasks.StatusCompleted),
		env.Entry("cancelled", "TASKS-TTL-005", tasks.StatusCancelled),
	)

	DescribeTable("hides an expired task from every method",
		func(ctx SpecContext, name string, status tasks.Status) {
			r := createTTL(ctx, env, env.Owner, 2*time.Second)
			if status != tasks.StatusWorking {
				_, err := moveTo(ctx, env, r.ID, status)
				Expect(err).NotTo(HaveOccurred())
			}
			env.Clock.Set(r.ExpiresAt) // the first instant the task is expired
			if name == "List" {
				Expect(listAll(ctx, env, env.Owner, 10)).To(BeEmpty(), "List shows an expired task")
				return
			}
			bounded, cancel := context.WithTimeout(ctx, env.WaitLatency())
			defer cancel()
			expectCode(isolationCalls[name](bounded, env.Store, env.Owner, r.ID), tasks.ErrNotFound, name+" of an expired task")
		},
		env.Entry("Get", "MCPT-TTL-006", "Get", tasks.StatusWorking),
		env.Entry("Get of a failed task", "MCPT-TTL-006", "Get", tasks.StatusFailed),
		env.Entry("Result", "MCPT-TTL-006", "Result", tasks.StatusCompleted),
		env.Entry("Cancel of an input_required task", "MCPT-TTL-006", "Cancel", tasks.StatusInputRequired),
		env.Entry("Cancel", "MCPT-TTL-006", "Cancel", tasks.StatusWorking),
		env.Entry("Transition", "MCPT-TTL-006", "Transition", tasks.StatusWorking),
		env.Entry("SetVariables", "MCPT-TTL-006", "SetVariables", tasks.StatusWorking),
		env.Entry("Complete", "MCPT-TTL-006", "Complete", tasks.StatusWorking),
		env.Entry("Wait", "MCPT-TTL-006", "Wait", tasks.StatusWorking),
		env.Entry("List", "MCPT-TTL-006", "List", tasks.StatusWorking),
	)

	env.It("deletes exactly the expired tasks of every owner and counts them", "MCPT-TTL-007", func(ctx SpecContext) {
		short := []tasks.Record{
			createTTL(ctx, env, env.Owner, 2*time.Second),
			createTTL(ctx, env, env.Owner, 2*time.Second),
			createTTL(ctx, env, env.Other, 3*time.Second),
		}
		_, err := env.Store.Complete(ctx, env.Owner, short[1].ID, tasks.StatusCompleted, "", resultOutcome(`{}`))
		Expect(err).NotTo(HaveOccurred())
		long := []tasks.Record{
			createTTL(ctx, env, env.Owner, time.Hour),
			createTTL(ctx, env, env.Other, time.Hour),
			// Expires one millisecond after the sweep below.
			createTTL(ctx, env, env.Owner, 5*time.Second+time.Millisecond),
		}
		n, err := env.Store.DeleteExpired(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(n).To(BeZero(), "nothing has expired yet")
		env.Clock.Advance(5 * time.Second)
		n, err = env.Store.DeleteExpired(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(n).To(Equal(len(short)))
		n, err = env.Store.DeleteExpired(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(n).To(BeZero(), "a second sweep found more")
		Expect(mustGet(ctx, env, env.Owner, long[0].ID).ID).To(Equal(long[0].ID))
		Expect(mustGet(ctx, env, env.Other, long[1].ID).ID).To(Equal(long[1].ID))
		Expect(mustGet(ctx, env, env.Owner, long[2].ID).ID).To(Equal(long[2].ID), "a task one millisecond from its expiry was deleted")
	})

	env.It("really removes expired tasks instead of only hiding them", "TASKS-RSRC-003", func(ctx SpecContext) {
		r := createTTL(ctx, env, env.Owner, 2*time.Second)
		env.Clock.Advance(3 * time.Second)
		n, err := env.Store.DeleteExpired(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(n).To(Equal(1))
		By("turning the clock back, a deleted task must not come back")
		env.Clock.Set(SuiteEpoch())
		_, err = env.Store.Get(ctx, env.Owner, r.ID)
		expectCode(err, tasks.ErrNotFound, "Get of a deleted task")
		Expect(listAll(ctx, env, env.Owner, 10)).To(BeEmpty())
	})

	env.It("keeps variables until the task expires", "MCPT-TTL-006", func(ctx SpecContext) {
		r := createTTL(ctx, env, env.Owner, 2*time.Second)
		_, err := env.Store.SetVariables(ctx, env.Owner, r.ID, map[string]json.RawMessage{"server.k": json.RawMessage(`1`)})
		Expect(err).NotTo(HaveOccurred())
		env.Clock.Advance(2 * time.Second)
		_, err = env.Store.SetVariables(ctx, env.Owner, r.ID, map[string]json.RawMessage{"server.k": json.RawMessage(`2`)})
		expectCode(err, tasks.ErrNotFound, "SetVariables on an expired task")
	})
})
