package suites

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/protocol"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// moveTo asks the store to move a task to status with the method meant for
// that status: Transition for working and input_required, Complete for
// completed and failed, Cancel for cancelled.
func moveTo(ctx SpecContext, env *StoreEnv, id string, to tasks.Status) (tasks.Record, error) {
	switch to {
	case tasks.StatusCompleted:
		return env.Store.Complete(ctx, env.Owner, id, to, "finished", resultOutcome(`{"ok":true}`))
	case tasks.StatusFailed:
		return env.Store.Complete(ctx, env.Owner, id, to, "broken", errorOutcome(-32000, "it broke"))
	case tasks.StatusCancelled:
		return env.Store.Cancel(ctx, env.Owner, id, "stop")
	default:
		return env.Store.Transition(ctx, env.Owner, id, to, "moving")
	}
}

// expectUnchanged checks that the task still reads exactly as before.
func expectUnchanged(ctx SpecContext, env *StoreEnv, before tasks.Record, what string) {
	GinkgoHelper()
	after := mustGet(ctx, env, env.Owner, before.ID)
	Expect(after.Status).To(Equal(before.Status), "%s changed the status", what)
	Expect(after.Version).To(Equal(before.Version), "%s changed the task", what)
	Expect(after.StatusMessage).To(Equal(before.StatusMessage), "%s changed the status message", what)
}

// transitionReq is the requirement a (from, to) pair certifies.
func transitionReq(from, to tasks.Status) string {
	switch {
	case from.Terminal():
		return "TASKS-LIFE-005"
	case !tasks.CanTransition(from, to):
		return "TASKS-LIFE-002"
	case from == tasks.StatusWorking:
		return "TASKS-LIFE-003"
	default:
		return "TASKS-LIFE-004"
	}
}

var _ = describeStore("Transitions", "transitions", func(env *StoreEnv) {
	var entries []TableEntry
	for _, from := range tasks.Statuses {
		for _, to := range tasks.Statuses {
			verb := "refuses"
			if tasks.CanTransition(from, to) {
				verb = "allows"
			}
			entries = append(entries, env.Entry(fmt.Sprintf("%s %s → %s", verb, from, to), transitionReq(from, to), from, to))
		}
	}
	DescribeTable("moves between statuses only along the defined edges",
		func(ctx SpecContext, from, to tasks.Status) {
			before := env.CreateIn(ctx, env.Owner, from)
			got, err := moveTo(ctx, env, before.ID, to)
			if tasks.CanTransition(from, to) {
				Expect(err).NotTo(HaveOccurred(), "%s → %s", from, to)
				Expect(got.Status).To(Equal(to))
				Expect(mustGet(ctx, env, env.Owner, before.ID).Status).To(Equal(to))
				return
			}
			expectCode(err, tasks.ErrInvalidTransition, fmt.Sprintf("%s → %s", from, to))
			expectUnchanged(ctx, env, before, fmt.Sprintf("the refused move %s → %s", from, to))
		},
		entries,
	)

	DescribeTable("never reaches a terminal status through Transition",
		func(ctx SpecContext, from, to tasks.Status) {
			before := env.CreateIn(ctx, env.Owner, from)
			_, err := env.Store.Transition(ctx, env.Owner, before.ID, to, "sneaky")
			expectCode(err, tasks.ErrInvalidTransition, "Transition to "+string(to))
			expectUnchanged(ctx, env, before, "a refused Transition")
		},
		env.Entry("working → completed", "MCPT-LIFE-004", tasks.StatusWorking, tasks.StatusCompleted),
		env.Entry("working → failed", "MCPT-LIFE-004", tasks.StatusWorking, tasks.StatusFailed),
		env.Entry("input_required → cancelled", "MCPT-LIFE-004", tasks.StatusInputRequired, tasks.StatusCancelled),
	)

	env.It("refuses a status that does not exist", "TASKS-LIFE-002", func(ctx SpecContext) {
		before := env.Create(ctx, env.Owner)
		_, err := env.Store.Transition(ctx, env.Owner, before.ID, tasks.Status("paused"), "")
		expectCode(err, tasks.ErrInvalidTransition, "Transition to an unknown status")
		expectUnchanged(ctx, env, before, "a refused Transition")
	})

	DescribeTable("refuses a malformed Complete without changing the task",
		func(ctx SpecContext, status tasks.Status, o tasks.Outcome) {
			before := env.Create(ctx, env.Owner)
			_, err := env.Store.Complete(ctx, env.Owner, before.ID, status, "bad", o)
			Expect(err).To(HaveOccurred())
			Expect(protocol.RPCCode(err)).To(Equal(wire.CodeInvalidParams), "error %v", err)
			expectUnchanged(ctx, env, before, "a refused Complete")
			_, err = env.Store.Result(ctx, env.Owner, before.ID)
			expectCode(err, tasks.ErrNotReady, "Result after a refused Complete")
		},
		env.Entry("status cancelled", "MCPT-LIFE-005", tasks.StatusCancelled, resultOutcome(`{}`)),
		env.Entry("status working", "MCPT-LIFE-005", tasks.StatusWorking, resultOutcome(`{}`)),
		env.Entry("neither result nor error", "MCPT-LIFE-005", tasks.StatusCompleted, tasks.Outcome{}),
		env.Entry("both result and error", "MCPT-LIFE-005", tasks.StatusFailed,
			tasks.Outcome{Result: []byte(`{}`), Error: &tasks.RPCError{Code: 1, Message: "x"}}),
		env.Entry("a result that is not JSON", "MCPT-LIFE-005", tasks.StatusCompleted, resultOutcome(`{oops`)),
	)
})
