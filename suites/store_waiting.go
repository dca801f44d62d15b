package suites

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/tasks"
)

// waitResult is what a background Wait ended with.
type waitResult struct {
	rec tasks.Record
	err error
}

// startWait calls Wait on its own goroutine and delivers the outcome.
func startWait(ctx context.Context, env *StoreEnv, owner tasks.Owner, id string, after int64) <-chan waitResult {
	ch := make(chan waitResult, 1)
	st := env.Store // the goroutine may outlive the spec, and env with it
	go func() {
		r, err := st.Wait(ctx, owner, id, after)
		ch <- waitResult{r, err}
	}()
	return ch
}

// awaitWait receives a background Wait's outcome or fails after the
// configured wait latency.
func awaitWait(env *StoreEnv, ch <-chan waitResult, what string) waitResult {
	GinkgoHelper()
	select {
	case res := <-ch:
		return res
	case <-time.After(env.WaitLatency()):
		Fail(what + ": Wait did not return within " + env.WaitLatency().String())
	}
	return waitResult{}
}

// expectStillWaiting checks that a background Wait has not returned yet,
// giving it a few poll intervals to return wrongly.
func expectStillWaiting(env *StoreEnv, ch <-chan waitResult) {
	GinkgoHelper()
	select {
	case res := <-ch:
		Fail("Wait returned before anything changed: " + errString(res.err))
	case <-time.After(3 * env.Config.PollInterval):
	}
}

func errString(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}

var _ = describeStore("Waiting", "waiting", func(env *StoreEnv) {
	DescribeTable("wakes a waiter when the task changes",
		func(ctx SpecContext, change func(ctx SpecContext, env *StoreEnv, id string) (tasks.Record, error)) {
			r := env.Create(ctx, env.Owner)
			ch := startWait(ctx, env, env.Owner, r.ID, r.Version)
			expectStillWaiting(env, ch)
			changed, err := change(ctx, env, r.ID)
			Expect(err).NotTo(HaveOccurred())
			res := awaitWait(env, ch, "after a change")
			Expect(res.err).NotTo(HaveOccurred())
			Expect(res.rec.Version).To(BeNumerically(">", r.Version))
			Expect(res.rec.Status).To(Equal(changed.Status))
			// Nothing else changed the task, so the waiter sees that change.
			expectSameRecord(res.rec, changed, "the record Wait returned")
		},
		env.Entry("on a transition", "MCPT-WAIT-001", func(ctx SpecContext, env *StoreEnv, id string) (tasks.Record, error) {
			return env.Store.Transition(ctx, env.Owner, id, tasks.StatusInputRequired, "")
		}),
		env.Entry("on completion", "MCPT-WAIT-001", func(ctx SpecContext, env *StoreEnv, id string) (tasks.Record, error) {
			return env.Store.Complete(ctx, env.Owner, id, tasks.StatusCompleted, "", resultOutcome(`{}`))
		}),
		env.Entry("on cancellation", "MCPT-WAIT-001", func(ctx SpecContext, env *StoreEnv, id string) (tasks.Record, error) {
			return env.Store.Cancel(ctx, env.Owner, id, "")
		}),
		env.Entry("on a variable write", "MCPT-WAIT-001", func(ctx SpecContext, env *StoreEnv, id string) (tasks.Record, error) {
			return env.Store.SetVariables(ctx, env.Owner, id, map[string]json.RawMessage{"server.k": json.RawMessage(`true`)})
		}),
	)

	env.It("wakes every waiter of the task", "MCPT-WAIT-001", func(ctx SpecContext) {
		r := env.Create(ctx, env.Owner)
		var chans []<-chan waitResult
		for i := 0; i < 5; i++ {
			chans = append(chans, startWait(ctx, env, env.Owner, r.ID, r.Version))
		}
		expectStillWaiting(env, chans[0])
		_, err := env.Store.Complete(ctx, env.Owner, r.ID, tasks.StatusCompleted, "", resultOutcome(`{}`))
		Expect(err).NotTo(HaveOccurred())
		for _, ch := range chans {
			res := awaitWait(env, ch, "one of several waiters")
			Expect(res.err).NotTo(HaveOccurred())
			Expect(res.rec.Status).To(Equal(tasks.StatusCompleted))
		}
	})

	env.It("returns at once when the task changed after the version read", "MCPT-WAIT-002", func(ctx SpecContext) {
		r := env.Create(ctx, env.Owner)
		read := mustGet(ctx, env, env.Owner, r.ID)
		_, err := env.Store.Transition(ctx, env.Owner, r.ID, tasks.StatusInputRequired, "")
		Expect(err).NotTo(HaveOccurred())
		res := awaitWait(env, startWait(ctx, env, env.Owner, r.ID, read.Version), "a change made before Wait")
		Expect(res.err).NotTo(HaveOccurred())
		Expect(res.rec.Status).To(Equal(tasks.StatusInputRequired))
	})

	env.It("loses no wake-up when changes race with Wait", "MCPT-WAIT-002", func(ctx SpecContext) {
		r := env.Create(ctx, env.Owner)
		next := tasks.StatusInputRequired
		for i := 0; i < 30; i++ {
			read := mustGet(ctx, env, env.Owner, r.ID)
			st, owner := env.Store, env.Owner
			go func(to tasks.Status) {
				_, _ = st.Transition(ctx, owner, r.ID, to, "")
			}(next)
			res := awaitWait(env, startWait(ctx, env, env.Owner, r.ID, read.Version), "a change racing with Wait")
			Expect(res.err).NotTo(HaveOccurred())
			Expect(res.rec.Version).To(BeNumerically(">", read.Version))
			// Let the change land before the next round reads.
			Eventually(ctx, func() tasks.Status { return mustGet(ctx, env, env.Owner, r.ID).Status }).
				WithTimeout(env.WaitLatency()).Should(Equal(next))
			if next == tasks.StatusInputRequired {
				next = tasks.StatusWorking
			} else {
				next = tasks.StatusInputRequired
			}
		}
	})

	DescribeTable("ends with the context's error",
		func(ctx SpecContext, deadline bool) {
			r := env.Create(ctx, env.Owner)
			wctx, cancel := context.WithCancel(ctx)
			want := context.Canceled
			if deadline {
				wctx, cancel = context.WithTimeout(ctx, 2*env.Config.PollInterval)
				want = context.DeadlineExceeded
			}
			defer cancel()
			ch := startWait(wctx, env, env.Owner, r.ID, r.Version)
			if !deadline {
				expectStillWaiting(env, ch)
				cancel()
			}
			res := awaitWait(env, ch, "after the context ended")
			Expect(errors.Is(res.err, want)).To(BeTrue(), "want %v, got %v", want, res.err)
		},
		env.Entry("when cancelled", "MCPT-WAIT-003", false),
		env.Entry("at its deadline", "MCPT-WAIT-003", true),
	)

	env.It("reports not-found for a missing task", "MCPT-WAIT-004", func(ctx SpecContext) {
		res := awaitWait(env, startWait(ctx, env, env.Owner, uuid.NewString(), 0), "a missing task")
		expectCode(res.err, tasks.ErrNotFound, "Wait on a missing task")
	})

	env.It("reports not-found for another owner's task", "MCPT-WAIT-004", func(ctx SpecContext) {
		r := env.Create(ctx, env.Owner)
		res := awaitWait(env, startWait(ctx, env, env.Other, r.ID, r.Version), "another owner's task")
		expectCode(res.err, tasks.ErrNotFound, "Wait on another owner's task")
	})

	env.It("ends with not-found when the task disappears while waiting", "MCPT-WAIT-004", func(ctx SpecContext) {
		r := createTTL(ctx, env, env.Owner, 2*time.Second)
		ch := startWait(ctx, env, env.Owner, r.ID, r.Version)
		expectStillWaiting(env, ch)
		env.Clock.Advance(3 * time.Second)
		_, err := env.Store.DeleteExpired(ctx)
		Expect(err).NotTo(HaveOccurred())
		res := awaitWait(env, ch, "after the task was deleted")
		expectCode(res.err, tasks.ErrNotFound, "Wait on a task that expired")
	})
})
