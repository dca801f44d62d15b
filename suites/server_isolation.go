package suites

import (
	"context"
	"fmt"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/tasks/client"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

var _ = describeServer("Isolation between identities", "isolation", func(env *ServerEnv) {
	env.It("binds a task to the identity that created it", "TASKS-SEC-001", func(ctx SpecContext) {
		b := env.AuthB(ctx)
		created := env.Sleep(ctx, 0)
		_, err := env.A.GetTask(ctx, created.Task.TaskID)
		Expect(err).NotTo(HaveOccurred(), "the owner cannot read its own task")
		_, err = b.GetTask(ctx, created.Task.TaskID)
		Expect(err).To(HaveOccurred(), "identity B read identity A's task")
	})

	env.It("refuses tasks/get, tasks/result and tasks/cancel on another identity's task", "TASKS-SEC-006", func(ctx SpecContext) {
		b := env.AuthB(ctx)
		created := env.Running(ctx, 2000)
		id := created.Task.TaskID
		_, err := b.GetTask(ctx, id)
		Expect(err).To(HaveOccurred(), "identity B read identity A's task with tasks/get")
		rctx, cancel := context.WithTimeout(ctx, env.scaled(5*time.Second))
		_, err = b.Result(rctx, id)
		cancel()
		Expect(err).To(HaveOccurred(), "identity B obtained identity A's result")
		_, isRPC := rpcCode(err)
		Expect(isRPC).To(BeTrue(), "tasks/result by identity B should be refused with a JSON-RPC error, got %v", err)
		if env.Has(FeatureCancel) {
			_, err = b.CancelTask(ctx, id)
			Expect(err).To(HaveOccurred(), "identity B cancelled identity A's task")
		}
		t, err := env.A.GetTask(ctx, id)
		Expect(err).NotTo(HaveOccurred())
		Expect(t.Status).NotTo(Equal(schema.TaskStatusCancelled), "identity B's tasks/cancel cancelled identity A's task")
	})

	env.It("lists only the caller's own tasks", "TASKS-SEC-007", func(ctx SpecContext) {
		b := env.AuthB(ctx)
		mine := env.Sleep(ctx, 0)
		theirs := env.CreateOn(ctx, b, env.TaskSleep(), map[string]any{"ms": 0}, nil)
		ids := func(c *client.Client) []string {
			all, err := c.ListAllTasks(ctx, 1000)
			Expect(err).NotTo(HaveOccurred())
			var out []string
			for _, t := range all {
				out = append(out, t.TaskID)
			}
			return out
		}
		listA, listB := ids(env.A), ids(b)
		Expect(listA).To(ContainElement(mine.Task.TaskID))
		Expect(listA).NotTo(ContainElement(theirs.Task.TaskID), "identity A sees identity B's task")
		Expect(listB).To(ContainElement(theirs.Task.TaskID))
		Expect(listB).NotTo(ContainElement(mine.Task.TaskID), "identity B sees identity A's task")
	})

	env.It("sends task status notifications only to the owner", "TASKS-SEC-001", func(ctx SpecContext) {
		b := env.AuthB(ctx)
		if err := b.OpenStream(ctx); err != nil {
			NotSupported("identity B cannot open a GET stream: %v", err)
		}
		_ = env.A.OpenStream(ctx)
		created := env.Sleep(ctx, 100)
		env.Await(ctx, created.Task.TaskID)
		time.Sleep(env.scaled(200 * time.Millisecond))
		for _, n := range b.Notifications() {
			Expect(string(n.Params())).NotTo(ContainSubstring(created.Task.TaskID),
				"identity B received %s about identity A's task", n.Method)
		}
	})

	// A server without authorization may let anyone holding a task id
	// read the task; what it should not do is offer tasks/list, which
	// hands every id to everyone.
	env.It("offers no task list that shows one session the tasks of another when it has no authorization", "TASKS-SEC-005", func(ctx SpecContext) {
		mine := env.Sleep(ctx, 0)
		other := env.Connect(ctx, env.Config.URLs[0], env.Config.HeadersB)
		all, err := other.ListAllTasks(ctx, 1000)
		checkCall(err, "tasks/list from a second session")
		for _, t := range all {
			Expect(t.TaskID).NotTo(Equal(mine.Task.TaskID),
				"%s; it declares tasks.list, and tasks/list from a second session listed task %s created by the first session: "+
					"it cannot tell requestors apart, so it should not offer tasks/list", env.authorization(ctx).Reason, mine.Task.TaskID)
		}
	})

	env.It("keeps a task to the session that created it when the server has no authorization", "MCPT-SESSION-001", func(ctx SpecContext) {
		mine := env.Sleep(ctx, 0)
		other := env.Connect(ctx, env.Config.URLs[0], env.Config.HeadersB)
		t, err := other.GetTask(ctx, mine.Task.TaskID)
		if err != nil {
			if connectionLost(err) {
				checkCall(err, "tasks/get from a second session")
			}
			return // refused, as recommended
		}
		Fail(fmt.Sprintf("%s; tasks/get from a second session was answered with task %s (status %s) created by the first session",
			env.authorization(ctx).Reason, t.TaskID, t.Status))
	})

	env.It("sends a task's status notifications only to its own session when the server has no authorization", "MCPT-SESSION-001", func(ctx SpecContext) {
		other := env.Connect(ctx, env.Config.URLs[0], env.Config.HeadersB)
		if err := other.OpenStream(ctx); err != nil {
			NotApplicable("a second session cannot open a GET stream, so nothing could reach it unasked: %v", err)
		}
		_ = env.A.OpenStream(ctx)
		created := env.Sleep(ctx, 100)
		env.Await(ctx, created.Task.TaskID)
		time.Sleep(env.scaled(200 * time.Millisecond))
		for _, n := range other.Notifications() {
			Expect(string(n.Params())).NotTo(ContainSubstring(created.Task.TaskID),
				"%s; a second session received %s about task %s of the first session", env.authorization(ctx).Reason, n.Method, created.Task.TaskID)
		}
	})

	env.It("delivers a task's elicitation only to the identity that owns the task", "TASKS-ELICIT-009", func(ctx SpecContext) {
		if len(env.Config.HeadersB) == 0 {
			NotSupported("no second identity configured (headers for identity B)")
		}
		var (
			mu     sync.Mutex
			leaked []string
		)
		b := env.Connect(ctx, env.Config.URLs[0], env.Config.HeadersB, client.WithObserver(func(m *client.Message) {
			if m.Direction == client.Received && m.Method == wire.MethodElicitationCreate {
				mu.Lock()
				leaked = append(leaked, string(m.Raw))
				mu.Unlock()
			}
		}))
		if err := b.OpenStream(ctx); err != nil {
			NotApplicable("identity B cannot open a GET stream, so nothing could reach it unasked: %v", err)
		}
		run := runInput(ctx, env)
		Expect(run.elicitations).NotTo(BeEmpty(), "no elicitation/create reached the owner")
		time.Sleep(env.scaled(100 * time.Millisecond))
		mu.Lock()
		defer mu.Unlock()
		Expect(leaked).To(BeEmpty(), "identity B received identity A's elicitation")
	})
})
