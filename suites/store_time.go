package suites

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// oddStep is how far the time specs move the clock between steps: not a
// whole second and, with the sub-millisecond epoch, never landing on a
// whole millisecond, so truncation and rounding mistakes show.
const oddStep = 1234*time.Millisecond + 567*time.Microsecond

// expectSameRecord checks that two records of one task agree on every
// field a read shows (the outcome aside: Get and List may leave it out).
func expectSameRecord(got, want tasks.Record, what string) {
	GinkgoHelper()
	Expect(got.ID).To(Equal(want.ID), "%s: id", what)
	Expect(got.Owner).To(Equal(want.Owner), "%s: owner", what)
	Expect(got.Method).To(Equal(want.Method), "%s: method", what)
	Expect(got.Status).To(Equal(want.Status), "%s: status", what)
	Expect(got.StatusMessage).To(Equal(want.StatusMessage), "%s: status message", what)
	Expect(got.CreatedAt.Equal(want.CreatedAt)).To(BeTrue(), "%s: createdAt %v, want %v", what, got.CreatedAt, want.CreatedAt)
	Expect(got.LastUpdatedAt.Equal(want.LastUpdatedAt)).To(BeTrue(), "%s: lastUpdatedAt %v, want %v", what, got.LastUpdatedAt, want.LastUpdatedAt)
	Expect(got.ExpiresAt.Equal(want.ExpiresAt)).To(BeTrue(), "%s: expiresAt %v, want %v", what, got.ExpiresAt, want.ExpiresAt)
	Expect(got.TTL).To(Equal(want.TTL), "%s: ttl", what)
	Expect(got.PollInterval).To(Equal(want.PollInterval), "%s: poll interval", what)
	Expect(got.Version).To(Equal(want.Version), "%s: version", what)
	Expect(showVars(got.Variables)).To(Equal(showVars(want.Variables)), "%s: variables", what)
}

// change is one successful change of a working task, made by env.Owner.
type change func(ctx context.Context, env *StoreEnv, id string) (tasks.Record, error)

var changes = map[string]change{
	"Transition": func(ctx context.Context, env *StoreEnv, id string) (tasks.Record, error) {
		return env.Store.Transition(ctx, env.Owner, id, tasks.StatusInputRequired, "waiting for you")
	},
	"SetVariables": func(ctx context.Context, env *StoreEnv, id string) (tasks.Record, error) {
		return env.Store.SetVariables(ctx, env.Owner, id, vars("server.step", `2`))
	},
	"SetVariables deleting a key": func(ctx context.Context, env *StoreEnv, id string) (tasks.Record, error) {
		return env.Store.SetVariables(ctx, env.Owner, id, vars("server.first", `null`))
	},
	"Complete": func(ctx context.Context, env *StoreEnv, id string) (tasks.Record, error) {
		return env.Store.Complete(ctx, env.Owner, id, tasks.StatusCompleted, "all done", resultOutcome(`{"ok":true}`))
	},
	"Complete as failed": func(ctx context.Context, env *StoreEnv, id string) (tasks.Record, error) {
		return env.Store.Complete(ctx, env.Owner, id, tasks.StatusFailed, "it broke", errorOutcome(-32000, "boom"))
	},
	"Cancel": func(ctx context.Context, env *StoreEnv, id string) (tasks.Record, error) {
		return env.Store.Cancel(ctx, env.Owner, id, "stopped")
	},
}

// changeEntries builds one table entry per change for requirement reqID.
func changeEntries(env *StoreEnv, reqID string) []TableEntry {
	var out []TableEntry
	for _, name := range []string{"Transition", "SetVariables", "SetVariables deleting a key", "Complete", "Complete as failed", "Cancel"} {
		out = append(out, env.Entry(name, reqID, name))
	}
	return out
}

// nonChange is a call that must leave env.Owner's task id exactly as it
// was: a read, a refused change, or a change of some other task.
type nonChange func(ctx context.Context, env *StoreEnv, id string)

var nonChanges = map[string]nonChange{
	"Get": func(ctx context.Context, env *StoreEnv, id string) {
		_, _ = env.Store.Get(ctx, env.Owner, id)
	},
	"List": func(ctx context.Context, env *StoreEnv, id string) {
		_, _ = env.Store.List(ctx, env.Owner, tasks.ListOptions{})
	},
	"Result of a working task": func(ctx context.Context, env *StoreEnv, id string) {
		_, _ = env.Store.Result(ctx, env.Owner, id)
	},
	"Wait that returns at once": func(ctx context.Context, env *StoreEnv, id string) {
		ctx, cancel := context.WithTimeout(ctx, env.WaitLatency())
		defer cancel()
		_, _ = env.Store.Wait(ctx, env.Owner, id, 0)
	},
	"a refused Transition to a terminal status": func(ctx context.Context, env *StoreEnv, id string) {
		_, _ = env.Store.Transition(ctx, env.Owner, id, tasks.StatusCompleted, "no")
	},
	"a refused Transition to the same status": func(ctx context.Context, env *StoreEnv, id string) {
		_, _ = env.Store.Transition(ctx, env.Owner, id, tasks.StatusWorking, "no")
	},
	"a refused Complete with a bad outcome": func(ctx context.Context, env *StoreEnv, id string) {
		_, _ = env.Store.Complete(ctx, env.Owner, id, tasks.StatusCompleted, "no", tasks.Outcome{})
	},
	"a refused SetVariables over the limit": func(ctx context.Context, env *StoreEnv, id string) {
		big := `"` + strings.Repeat("x", env.Config.MaxVariablesBytes) + `"`
		_, _ = env.Store.SetVariables(ctx, env.Owner, id, vars("server.big", big))
	},
	"a refused SetVariables with bad JSON": func(ctx context.Context, env *StoreEnv, id string) {
		_, _ = env.Store.SetVariables(ctx, env.Owner, id, vars("server.bad", `{`))
	},
	"another owner's calls": func(ctx context.Context, env *StoreEnv, id string) {
		ctx, cancel := context.WithTimeout(ctx, env.WaitLatency())
		defer cancel()
		for _, call := range isolationCalls {
			_ = call(ctx, env.Store, env.Other, id)
		}
	},
	"changes of another task": func(ctx context.Context, env *StoreEnv, id string) {
		o := env.Create(ctx, env.Owner)
		_, _ = env.Store.SetVariables(ctx, env.Owner, o.ID, vars("server.x", `1`))
		_, _ = env.Store.Cancel(ctx, env.Owner, o.ID, "")
	},
	"DeleteExpired": func(ctx context.Context, env *StoreEnv, id string) {
		_, _ = env.Store.DeleteExpired(ctx)
	},
	"calls on a missing id": func(ctx context.Context, env *StoreEnv, id string) {
		ctx, cancel := context.WithTimeout(ctx, env.WaitLatency())
		defer cancel()
		for _, call := range isolationCalls {
			_ = call(ctx, env.Store, env.Owner, uuid.NewString())
		}
	},
}

var _ = describeStore("Timestamps", "lifecycle", func(env *StoreEnv) {
	// seedChanged creates a task with one variable and moves the clock an
	// odd step, so a change stamps a time different from createdAt.
	seedChanged := func(ctx SpecContext) tasks.Record {
		GinkgoHelper()
		r, err := env.Store.Create(ctx, env.Owner, tasks.CreateParams{Method: wire.MethodToolsCall, StatusMessage: "queued",
			Variables: vars("server.first", `1`)})
		Expect(err).NotTo(HaveOccurred())
		env.Clock.Advance(oddStep)
		return r
	}

	DescribeTable("stamps every change with the clock's millisecond and keeps createdAt and the expiry",
		func(ctx SpecContext, name string) {
			r := seedChanged(ctx)
			got, err := changes[name](ctx, env, r.ID)
			Expect(err).NotTo(HaveOccurred(), name)
			Expect(got.LastUpdatedAt.Equal(env.Config.Now())).To(BeTrue(),
				"%s: lastUpdatedAt %v, the clock read %v", name, got.LastUpdatedAt, env.Config.Now())
			Expect(got.CreatedAt.Equal(r.CreatedAt)).To(BeTrue(), "%s moved createdAt from %v to %v", name, r.CreatedAt, got.CreatedAt)
			Expect(got.ExpiresAt.Equal(r.ExpiresAt)).To(BeTrue(), "%s moved the expiry from %v to %v", name, r.ExpiresAt, got.ExpiresAt)
			Expect(got.Version).To(BeNumerically(">", r.Version), "%s did not bump the version", name)
			expectSameRecord(mustGet(ctx, env, env.Owner, r.ID), got, "Get after "+name)
		},
		changeEntries(env, "TASKS-TTL-002"),
	)

	nonChangeEntries := func() []TableEntry {
		var out []TableEntry
		for _, name := range []string{"Get", "List", "Result of a working task", "Wait that returns at once",
			"a refused Transition to a terminal status", "a refused Transition to the same status",
			"a refused Complete with a bad outcome", "a refused SetVariables over the limit",
			"a refused SetVariables with bad JSON", "another owner's calls", "changes of another task",
			"DeleteExpired", "calls on a missing id"} {
			out = append(out, env.Entry(name, "MCPT-TIME-001", name))
		}
		return out
	}
	DescribeTable("leaves version and lastUpdatedAt alone when nothing changes",
		func(ctx SpecContext, name string) {
			r := seedChanged(ctx)
			nonChanges[name](ctx, env, r.ID)
			got := mustGet(ctx, env, env.Owner, r.ID)
			expectSameRecord(got, r, "after "+name)
		},
		nonChangeEntries(),
	)

	DescribeTable("returns from every change the record a following Get shows",
		func(ctx SpecContext, name string) {
			r := seedChanged(ctx)
			got, err := r, error(nil)
			if name != "Create" {
				got, err = changes[name](ctx, env, r.ID)
			}
			Expect(err).NotTo(HaveOccurred(), name)
			expectSameRecord(mustGet(ctx, env, env.Owner, r.ID), got, "Get after "+name)
			page, err := env.Store.List(ctx, env.Owner, tasks.ListOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(page.Tasks).To(HaveLen(1))
			expectSameRecord(page.Tasks[0], got, "List after "+name)
		},
		append(changeEntries(env, "MCPT-LIFE-008"),
			env.Entry("Create", "MCPT-LIFE-008", "Create")),
	)

	env.It("stores the status message given to Complete", "MCPT-LIFE-009", func(ctx SpecContext) {
		for _, st := range []tasks.Status{tasks.StatusCompleted, tasks.StatusFailed} {
			r := env.Create(ctx, env.Owner)
			o := resultOutcome(`{}`)
			if st == tasks.StatusFailed {
				o = errorOutcome(-32000, "x")
			}
			msg := "ended as " + string(st) + " ✓"
			got, err := env.Store.Complete(ctx, env.Owner, r.ID, st, msg, o)
			Expect(err).NotTo(HaveOccurred())
			Expect(got.StatusMessage).To(Equal(msg))
			Expect(mustGet(ctx, env, env.Owner, r.ID).StatusMessage).To(Equal(msg))
			res, err := env.Store.Result(ctx, env.Owner, r.ID)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.StatusMessage).To(Equal(msg))
		}
	})

	env.It("fixes the expiry at createdAt plus the ttl, whatever changes later", "MCPT-TTL-008", func(ctx SpecContext) {
		env.Clock.Advance(oddStep)
		ttl := 10 * time.Second
		r := createTTL(ctx, env, env.Owner, ttl)
		Expect(r.CreatedAt.Equal(env.Config.Now())).To(BeTrue(), "createdAt %v, clock %v", r.CreatedAt, env.Config.Now())
		Expect(r.ExpiresAt.Equal(env.Config.Now().Add(ttl))).To(BeTrue(), "expiresAt %v, want %v", r.ExpiresAt, env.Config.Now().Add(ttl))
		steps := []string{"SetVariables", "Transition"}
		for _, name := range steps {
			env.Clock.Advance(2 * time.Second)
			got, err := changes[name](ctx, env, r.ID)
			Expect(err).NotTo(HaveOccurred())
			Expect(got.ExpiresAt.Equal(r.ExpiresAt)).To(BeTrue(), "%s moved the expiry to %v", name, got.ExpiresAt)
		}
		env.Clock.Set(r.ExpiresAt.Add(-time.Millisecond))
		Expect(mustGet(ctx, env, env.Owner, r.ID).ExpiresAt.Equal(r.ExpiresAt)).To(BeTrue())
		env.Clock.Set(r.ExpiresAt)
		_, err := env.Store.Get(ctx, env.Owner, r.ID)
		expectCode(err, tasks.ErrNotFound, "Get at the expiry, after changes")
	})

	DescribeTable("applies exactly the ttl it reports",
		func(ctx SpecContext, requested *time.Duration, want func(tasks.Config) time.Duration) {
			env.Clock.Advance(oddStep)
			r, err := env.Store.Create(ctx, env.Owner, tasks.CreateParams{Method: wire.MethodToolsCall, TTL: requested})
			Expect(err).NotTo(HaveOccurred())
			w := want(env.Config)
			expectTTL(r, w)
			env.Clock.Set(r.CreatedAt.Add(w - time.Millisecond))
			expectTTL(mustGet(ctx, env, env.Owner, r.ID), w)
			env.Clock.Set(r.CreatedAt.Add(w))
			_, err = env.Store.Get(ctx, env.Owner, r.ID)
			expectCode(err, tasks.ErrNotFound, "Get once the reported ttl has passed")
		},
		env.Entry("the default", "TASKS-TTL-004", (*time.Duration)(nil), func(c tasks.Config) time.Duration { return c.DefaultTTL }),
		env.Entry("one above the maximum", "TASKS-TTL-004", durationPtr(25*time.Hour), func(c tasks.Config) time.Duration { return c.MaxTTL }),
		env.Entry("zero", "TASKS-TTL-004", durationPtr(0), func(c tasks.Config) time.Duration { return c.MinTTL }),
		env.Entry("a ttl with a fraction of a millisecond", "TASKS-TTL-004", durationPtr(90*time.Second+1500*time.Microsecond),
			func(tasks.Config) time.Duration { return 90*time.Second + time.Millisecond }),
	)
})

// durationPtr returns a pointer to d.
func durationPtr(d time.Duration) *time.Duration { return &d }
