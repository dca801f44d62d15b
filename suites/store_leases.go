package suites

import (
	"time"

	"github.com/google/uuid"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
)

var _ = describeStore("Leases", "leases", func(env *StoreEnv) {
	var ls tasks.LeaseStore
	JustBeforeEach(func() {
		var ok bool
		ls, ok = env.Store.(tasks.LeaseStore)
		if !ok {
			NotApplicable("the store does not implement tasks.LeaseStore")
		}
	})

	env.It("renews leases only on the owner's visible tasks and ignores terminal ones", "MCPT-LEASE-001", func(ctx SpecContext) {
		until := env.Config.Now().Add(time.Minute)
		working := env.Create(ctx, env.Owner)
		Expect(ls.RenewLease(ctx, env.Owner, working.ID, until)).To(Succeed(), "RenewLease of a working task")
		expectCode(ls.RenewLease(ctx, env.Owner, uuid.NewString(), until), tasks.ErrNotFound, "RenewLease of a missing task")
		missing := uuid.NewString()
		expectLikeMissing(ls.RenewLease(ctx, env.Other, working.ID, until), working.ID,
			ls.RenewLease(ctx, env.Other, missing, until), missing, "RenewLease")
		for _, st := range []tasks.Status{tasks.StatusCompleted, tasks.StatusFailed, tasks.StatusCancelled} {
			done := env.CreateIn(ctx, env.Owner, st)
			Expect(ls.RenewLease(ctx, env.Owner, done.ID, until)).To(Succeed(), "RenewLease of a %s task", st)
			expectSameRecord(mustGet(ctx, env, env.Owner, done.ID), done, "a "+string(st)+" task after RenewLease")
		}
		expired := createTTL(ctx, env, env.Owner, 2*time.Second)
		env.Clock.Advance(2 * time.Second)
		expectCode(ls.RenewLease(ctx, env.Owner, expired.ID, until), tasks.ErrNotFound, "RenewLease of an expired task")
	})

	env.It("ends exactly the non-terminal tasks whose lease lapsed, as failed with a lost-worker outcome", "MCPT-LEASE-002", func(ctx SpecContext) {
		start := env.Config.Now()
		lapsing := env.Create(ctx, env.Owner)
		lapsingOther := env.CreateIn(ctx, env.Other, tasks.StatusInputRequired)
		never := env.Create(ctx, env.Owner)
		ended := env.Create(ctx, env.Owner)
		renewed := env.Create(ctx, env.Owner)
		for _, r := range []tasks.Record{lapsing, ended, renewed} {
			Expect(ls.RenewLease(ctx, env.Owner, r.ID, start.Add(5*time.Second))).To(Succeed())
		}
		Expect(ls.RenewLease(ctx, env.Other, lapsingOther.ID, start.Add(5*time.Second))).To(Succeed())
		ended, err := env.Store.Complete(ctx, env.Owner, ended.ID, tasks.StatusCompleted, "finished", resultOutcome(`{}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(ls.RenewLease(ctx, env.Owner, renewed.ID, start.Add(20*time.Second))).To(Succeed())

		env.Clock.Advance(5*time.Second - time.Millisecond)
		n, err := ls.ReapExpiredLeases(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(n).To(BeZero(), "a lease was reaped before it lapsed")

		env.Clock.Advance(time.Millisecond)
		n, err = ls.ReapExpiredLeases(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(n).To(Equal(2), "the tasks whose lease lapsed at this instant")
		for _, r := range []struct {
			owner tasks.Owner
			rec   tasks.Record
		}{{env.Owner, lapsing}, {env.Other, lapsingOther}} {
			res, err := env.Store.Result(ctx, r.owner, r.rec.ID)
			Expect(err).NotTo(HaveOccurred(), "Result of a reaped task")
			Expect(res.Status).To(Equal(tasks.StatusFailed))
			Expect(res.StatusMessage).NotTo(BeEmpty(), "a reaped task should say its worker was lost")
			Expect(res.StatusMessage).NotTo(Equal(r.rec.StatusMessage))
			Expect(res.Outcome).NotTo(BeNil())
			Expect(res.Outcome.Result).To(BeNil())
			Expect(res.Outcome.Error).NotTo(BeNil())
			Expect(res.Outcome.Error.Code).To(Equal(storekit.LostWorkerOutcome().Error.Code))
			Expect(res.Version).To(BeNumerically(">", r.rec.Version))
			Expect(res.LastUpdatedAt.Equal(env.Config.Now())).To(BeTrue(), "lastUpdatedAt %v, clock %v", res.LastUpdatedAt, env.Config.Now())
		}
		expectSameRecord(mustGet(ctx, env, env.Owner, never.ID), never, "a task that never had a lease")
		expectSameRecord(mustGet(ctx, env, env.Owner, ended.ID), ended, "a task that ended before its lease lapsed")
		Expect(mustGet(ctx, env, env.Owner, renewed.ID).Status).To(Equal(tasks.StatusWorking), "a renewed lease was reaped at its old time")

		n, err = ls.ReapExpiredLeases(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(n).To(BeZero(), "a second reap found more")
		env.Clock.Set(start.Add(20 * time.Second))
		n, err = ls.ReapExpiredLeases(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(n).To(Equal(1), "the renewed lease once it lapsed")
		Expect(mustGet(ctx, env, env.Owner, renewed.ID).Status).To(Equal(tasks.StatusFailed))
	})
})
