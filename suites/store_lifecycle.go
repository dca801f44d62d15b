package suites

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

var _ = describeStore("Lifecycle", "lifecycle", func(env *StoreEnv) {
	env.It("starts every new task in working", "TASKS-LIFE-001", func(ctx SpecContext) {
		r := env.Create(ctx, env.Owner)
		Expect(r.Status).To(Equal(tasks.StatusWorking))
		got, err := env.Store.Get(ctx, env.Owner, r.ID)
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Status).To(Equal(tasks.StatusWorking))
	})

	env.It("gives every task a non-empty string id", "TASKS-ID-001", func(ctx SpecContext) {
		r := env.Create(ctx, env.Owner)
		Expect(r.ID).NotTo(BeEmpty())
		Expect(json.Valid([]byte(`"`+r.ID+`"`))).To(BeTrue(), "id %q is not a plain JSON string", r.ID)
	})

	env.It("chooses the id itself and finds the task by it", "TASKS-ID-002", func(ctx SpecContext) {
		p := tasks.CreateParams{Method: wire.MethodToolsCall, StatusMessage: "same request"}
		a, err := env.Store.Create(ctx, env.Owner, p)
		Expect(err).NotTo(HaveOccurred())
		b, err := env.Store.Create(ctx, env.Owner, p)
		Expect(err).NotTo(HaveOccurred())
		Expect(a.ID).NotTo(Equal(b.ID), "two identical requests got the same id")
		got, err := env.Store.Get(ctx, env.Owner, a.ID)
		Expect(err).NotTo(HaveOccurred())
		Expect(got.ID).To(Equal(a.ID))
	})

	env.It("never hands out the same id twice", "TASKS-ID-003", func(ctx SpecContext) {
		seen := map[string]bool{}
		for i := 0; i < 60; i++ {
			owner := env.Owner
			if i%2 == 1 {
				owner = env.Other
			}
			r := env.Create(ctx, owner)
			Expect(seen).NotTo(HaveKey(r.ID), "id %s issued twice", r.ID)
			seen[r.ID] = true
			if i%10 == 9 {
				// Free slots so the per-owner cap never interferes.
				_, err := env.Store.Cancel(ctx, owner, r.ID, "")
				Expect(err).NotTo(HaveOccurred())
			}
		}
	})

	env.It("uses random version 4 UUIDs as ids", "TASKS-SEC-003", func(ctx SpecContext) {
		for i := 0; i < 5; i++ {
			r := env.Create(ctx, env.Owner)
			u, err := uuid.Parse(r.ID)
			Expect(err).NotTo(HaveOccurred(), "id %q is not a UUID", r.ID)
			Expect(u.Version()).To(Equal(uuid.Version(4)), "id %q", r.ID)
			Expect(u.Variant()).To(Equal(uuid.RFC4122), "id %q", r.ID)
			Expect(r.ID).To(Equal(u.String()), "id should be the canonical lower-case form")
		}
	})

	env.It("starts at version 1 and bumps the version on every change", "MCPT-LIFE-001", func(ctx SpecContext) {
		r := env.Create(ctx, env.Owner)
		Expect(r.Version).To(Equal(int64(1)))
		last := r.Version
		step := func(r tasks.Record, err error) {
			GinkgoHelper()
			Expect(err).NotTo(HaveOccurred())
			Expect(r.Version).To(BeNumerically(">", last))
			got, err := env.Store.Get(ctx, env.Owner, r.ID)
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Version).To(Equal(r.Version), "Get disagrees with the record the change returned")
			last = r.Version
		}
		step(env.Store.Transition(ctx, env.Owner, r.ID, tasks.StatusInputRequired, "asking"))
		step(env.Store.SetVariables(ctx, env.Owner, r.ID, map[string]json.RawMessage{"server.k": json.RawMessage(`1`)}))
		step(env.Store.Transition(ctx, env.Owner, r.ID, tasks.StatusWorking, "resumed"))
		step(env.Store.Complete(ctx, env.Owner, r.ID, tasks.StatusCompleted, "done", resultOutcome(`{}`)))
	})

	env.It("keeps what Create was given", "MCPT-LIFE-002", func(ctx SpecContext) {
		env.Clock.Advance(1234 * time.Millisecond)
		msg := "queued: \"ünïcødé\" ✓ <b>&amp;</b> \\ 🚀"
		r, err := env.Store.Create(ctx, env.Owner, tasks.CreateParams{Method: wire.MethodToolsCall, StatusMessage: msg})
		Expect(err).NotTo(HaveOccurred())
		want := env.Config.Now()
		for _, rec := range []tasks.Record{r, mustGet(ctx, env, env.Owner, r.ID)} {
			Expect(rec.Owner).To(Equal(env.Owner))
			Expect(rec.Method).To(Equal(wire.MethodToolsCall))
			Expect(rec.StatusMessage).To(Equal(msg))
			Expect(rec.CreatedAt.Equal(want)).To(BeTrue(), "createdAt %v, clock says %v", rec.CreatedAt, want)
			Expect(rec.LastUpdatedAt.Equal(rec.CreatedAt)).To(BeTrue(), "lastUpdatedAt %v differs from createdAt %v", rec.LastUpdatedAt, rec.CreatedAt)
			Expect(rec.PollInterval).To(Equal(env.Config.PollInterval), "the suggested poll interval")
		}
	})

	env.It("hands out copies that cannot change the stored task", "MCPT-LIFE-003", func(ctx SpecContext) {
		r, err := env.Store.Create(ctx, env.Owner, tasks.CreateParams{Method: wire.MethodToolsCall,
			Variables: map[string]json.RawMessage{"server.a": json.RawMessage(`1`)}})
		Expect(err).NotTo(HaveOccurred())
		r.Variables["server.a"] = json.RawMessage(`2`)
		r.Variables["server.b"] = json.RawMessage(`3`)
		r.Status = tasks.StatusFailed
		got := mustGet(ctx, env, env.Owner, r.ID)
		got.Variables["server.c"] = json.RawMessage(`4`)
		again := mustGet(ctx, env, env.Owner, r.ID)
		Expect(again.Status).To(Equal(tasks.StatusWorking))
		Expect(again.Variables).To(HaveLen(1))
		Expect(string(again.Variables["server.a"])).To(Equal(`1`))

		By("changing an outcome read with Result")
		_, err = env.Store.Complete(ctx, env.Owner, r.ID, tasks.StatusFailed, "", errorOutcome(-32000, "original"))
		Expect(err).NotTo(HaveOccurred())
		res, err := env.Store.Result(ctx, env.Owner, r.ID)
		Expect(err).NotTo(HaveOccurred())
		res.Outcome.Error.Message = "tampered"
		res, err = env.Store.Result(ctx, env.Owner, r.ID)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Outcome.Error.Message).To(Equal("original"))
	})

	env.It("moves lastUpdatedAt forward on each change and keeps createdAt", "TASKS-TTL-002", func(ctx SpecContext) {
		r := env.Create(ctx, env.Owner)
		env.Clock.Advance(1500 * time.Millisecond)
		moved, err := env.Store.Transition(ctx, env.Owner, r.ID, tasks.StatusInputRequired, "")
		Expect(err).NotTo(HaveOccurred())
		Expect(moved.LastUpdatedAt.Equal(env.Config.Now())).To(BeTrue(), "lastUpdatedAt %v, clock %v", moved.LastUpdatedAt, env.Config.Now())
		Expect(moved.CreatedAt.Equal(r.CreatedAt)).To(BeTrue())
		env.Clock.Advance(2 * time.Second)
		done, err := env.Store.Complete(ctx, env.Owner, r.ID, tasks.StatusCompleted, "", resultOutcome(`{}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(done.LastUpdatedAt.After(moved.LastUpdatedAt)).To(BeTrue())
		got := mustGet(ctx, env, env.Owner, r.ID)
		Expect(got.LastUpdatedAt.Equal(done.LastUpdatedAt)).To(BeTrue())
	})

	env.It("stores the status message given with a transition", "MCPT-LIFE-006", func(ctx SpecContext) {
		r := env.Create(ctx, env.Owner)
		_, err := env.Store.Transition(ctx, env.Owner, r.ID, tasks.StatusInputRequired, "please confirm")
		Expect(err).NotTo(HaveOccurred())
		Expect(mustGet(ctx, env, env.Owner, r.ID).StatusMessage).To(Equal("please confirm"))
	})

	DescribeTable("reports only the five defined statuses",
		func(ctx SpecContext, status tasks.Status) {
			r := env.CreateIn(ctx, env.Owner, status)
			got := mustGet(ctx, env, env.Owner, r.ID)
			Expect(got.Status.Valid()).To(BeTrue(), "status %q", got.Status)
			Expect(got.Status).To(Equal(status))
		},
		env.Entry("working", "TASKS-WIRE-STATUS-001", tasks.StatusWorking),
		env.Entry("input_required", "TASKS-WIRE-STATUS-001", tasks.StatusInputRequired),
		env.Entry("completed", "TASKS-WIRE-STATUS-001", tasks.StatusCompleted),
		env.Entry("failed", "TASKS-WIRE-STATUS-001", tasks.StatusFailed),
		env.Entry("cancelled", "TASKS-WIRE-STATUS-001", tasks.StatusCancelled),
	)

	DescribeTable("answers an unknown id with not-found (-32602)",
		func(ctx SpecContext, call func(ctx SpecContext, env *StoreEnv, id string) error) {
			env.Create(ctx, env.Owner)
			expectCode(call(ctx, env, uuid.NewString()), tasks.ErrNotFound, "unknown id")
		},
		env.Entry("Get", "TASKS-ERR-001", func(ctx SpecContext, env *StoreEnv, id string) error {
			_, err := env.Store.Get(ctx, env.Owner, id)
			return err
		}),
		env.Entry("Result", "TASKS-ERR-001", func(ctx SpecContext, env *StoreEnv, id string) error {
			_, err := env.Store.Result(ctx, env.Owner, id)
			return err
		}),
		env.Entry("Cancel", "TASKS-ERR-001", func(ctx SpecContext, env *StoreEnv, id string) error {
			_, err := env.Store.Cancel(ctx, env.Owner, id, "")
			return err
		}),
		env.Entry("Get with a malformed id", "TASKS-ERR-001", func(ctx SpecContext, env *StoreEnv, _ string) error {
			_, err := env.Store.Get(ctx, env.Owner, "not a uuid ' OR 1=1 --")
			return err
		}),
	)
})

// mustGet reads a task and fails the spec if it cannot.
func mustGet(ctx SpecContext, env *StoreEnv, owner tasks.Owner, id string) tasks.Record {
	GinkgoHelper()
	r, err := env.Store.Get(ctx, owner, id)
	Expect(err).NotTo(HaveOccurred(), "Get %s", id)
	return r
}
