package suites

import (
	"time"

	"github.com/google/uuid"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/tasks"
)

// The specs of the optional tasks.TTLExtender interface. A store that does
// not implement it gets not-applicable, as for leases: the interface is
// optional and its absence is no fault.
var _ = describeStore("TTL extension", "ttl-extension", func(env *StoreEnv) {
	var ext tasks.TTLExtender
	JustBeforeEach(func() {
		var ok bool
		ext, ok = env.Store.(tasks.TTLExtender)
		if !ok {
			NotApplicable("the store does not implement tasks.TTLExtender")
		}
	})

	env.It("extends a live task's ttl from its creation and shows the new ttl on every read", "MCPT-TTLX-001", func(ctx SpecContext) {
		r := createTTL(ctx, env, env.Owner, time.Minute)
		env.Clock.Advance(30 * time.Second)
		got, err := ext.ExtendTTL(ctx, env.Owner, r.ID, 10*time.Minute+500*time.Millisecond)
		Expect(err).NotTo(HaveOccurred(), "ExtendTTL")
		expectTTL(got, 10*time.Minute+500*time.Millisecond)
		Expect(got.CreatedAt.Equal(r.CreatedAt)).To(BeTrue(), "createdAt changed")
		Expect(got.Version).To(BeNumerically(">", r.Version), "the extension did not bump the version")
		expectTTL(mustGet(ctx, env, env.Owner, r.ID), 10*time.Minute+500*time.Millisecond)
		page, err := env.Store.List(ctx, env.Owner, tasks.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(page.Tasks).To(HaveLen(1))
		expectTTL(page.Tasks[0], 10*time.Minute+500*time.Millisecond)
		// Past the old expiry, the task is still there; past the new one,
		// it is gone.
		env.Clock.Advance(time.Minute)
		expectTTL(mustGet(ctx, env, env.Owner, r.ID), 10*time.Minute+500*time.Millisecond)
		n, err := env.Store.DeleteExpired(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(n).To(BeZero(), "DeleteExpired removed a task whose ttl was extended")
		env.Clock.Advance(10 * time.Minute)
		_, err = env.Store.Get(ctx, env.Owner, r.ID)
		expectCode(err, tasks.ErrNotFound, "Get after the extended ttl")
		// The same extension on an input_required task.
		in := env.CreateIn(ctx, env.Owner, tasks.StatusInputRequired)
		got, err = ext.ExtendTTL(ctx, env.Owner, in.ID, env.Config.MaxTTL)
		Expect(err).NotTo(HaveOccurred(), "ExtendTTL of an input_required task")
		expectTTL(got, env.Config.MaxTTL)
		Expect(got.Status).To(Equal(tasks.StatusInputRequired))
	})

	env.It("refuses a ttl beyond the maximum, a shorter or negative one, and changes nothing", "MCPT-TTLX-002", func(ctx SpecContext) {
		r := createTTL(ctx, env, env.Owner, time.Hour)
		for _, ttl := range []time.Duration{env.Config.MaxTTL + time.Millisecond, 10 * env.Config.MaxTTL, time.Minute, -time.Second} {
			_, err := ext.ExtendTTL(ctx, env.Owner, r.ID, ttl)
			expectCode(err, tasks.ErrInvalidParams, "ExtendTTL to "+ttl.String())
		}
		expectSameRecord(mustGet(ctx, env, env.Owner, r.ID), r, "the task after refused extensions")
		same, err := ext.ExtendTTL(ctx, env.Owner, r.ID, time.Hour)
		Expect(err).NotTo(HaveOccurred(), "ExtendTTL to the current ttl")
		expectTTL(same, time.Hour)
	})

	env.It("refuses terminal, missing, expired and other owners' tasks and changes nothing", "MCPT-TTLX-003", func(ctx SpecContext) {
		for _, st := range []tasks.Status{tasks.StatusCompleted, tasks.StatusFailed, tasks.StatusCancelled} {
			done := env.CreateIn(ctx, env.Owner, st)
			_, err := ext.ExtendTTL(ctx, env.Owner, done.ID, env.Config.MaxTTL)
			expectCode(err, tasks.ErrInvalidTransition, "ExtendTTL of a "+string(st)+" task")
			expectSameRecord(mustGet(ctx, env, env.Owner, done.ID), done, "a "+string(st)+" task after a refused ExtendTTL")
		}
		r := env.Create(ctx, env.Owner)
		missing := uuid.NewString()
		_, errOther := ext.ExtendTTL(ctx, env.Other, r.ID, env.Config.MaxTTL)
		_, errMissing := ext.ExtendTTL(ctx, env.Owner, missing, env.Config.MaxTTL)
		expectLikeMissing(errOther, r.ID, errMissing, missing, "ExtendTTL")
		expectSameRecord(mustGet(ctx, env, env.Owner, r.ID), r, "the task after another owner's ExtendTTL")
		short := createTTL(ctx, env, env.Owner, 2*time.Second)
		env.Clock.Advance(2 * time.Second)
		_, err := ext.ExtendTTL(ctx, env.Owner, short.ID, env.Config.MaxTTL)
		expectCode(err, tasks.ErrNotFound, "ExtendTTL of an expired task")
	})
})
