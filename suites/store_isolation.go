package suites

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/tasks"
)

// isolationCall is one store method called on a task id by some owner.
type isolationCall func(ctx context.Context, s tasks.Store, owner tasks.Owner, id string) error

var isolationCalls = map[string]isolationCall{
	"Get": func(ctx context.Context, s tasks.Store, o tasks.Owner, id string) error {
		_, err := s.Get(ctx, o, id)
		return err
	},
	"Result": func(ctx context.Context, s tasks.Store, o tasks.Owner, id string) error {
		_, err := s.Result(ctx, o, id)
		return err
	},
	"Cancel": func(ctx context.Context, s tasks.Store, o tasks.Owner, id string) error {
		_, err := s.Cancel(ctx, o, id, "not yours")
		return err
	},
	"Transition": func(ctx context.Context, s tasks.Store, o tasks.Owner, id string) error {
		_, err := s.Transition(ctx, o, id, tasks.StatusInputRequired, "not yours")
		return err
	},
	"SetVariables": func(ctx context.Context, s tasks.Store, o tasks.Owner, id string) error {
		_, err := s.SetVariables(ctx, o, id, map[string]json.RawMessage{"client.x": json.RawMessage(`"intruder"`)})
		return err
	},
	"Complete": func(ctx context.Context, s tasks.Store, o tasks.Owner, id string) error {
		_, err := s.Complete(ctx, o, id, tasks.StatusCompleted, "not yours", resultOutcome(`{"stolen":true}`))
		return err
	},
	"Wait": func(ctx context.Context, s tasks.Store, o tasks.Owner, id string) error {
		// Version 0 has always been passed, so a visible task returns at once.
		_, err := s.Wait(ctx, o, id, 0)
		return err
	},
}

var _ = describeStore("Isolation", "isolation", func(env *StoreEnv) {
	env.It("binds each task to the owner that created it", "TASKS-SEC-001", func(ctx SpecContext) {
		a := env.Create(ctx, env.Owner)
		b := env.Create(ctx, env.Other)
		Expect(mustGet(ctx, env, env.Owner, a.ID).Owner).To(Equal(env.Owner))
		Expect(mustGet(ctx, env, env.Other, b.ID).Owner).To(Equal(env.Other))
		_, err := env.Store.Get(ctx, env.Other, a.ID)
		Expect(err).To(HaveOccurred(), "the other owner could read the task")
	})

	// checkIsolated runs call as the other owner on a task of env.Owner in
	// status, then as the owner on a missing id, and compares.
	checkIsolated := func(ctx SpecContext, name string, status tasks.Status) {
		GinkgoHelper()
		call := isolationCalls[name]
		r := env.CreateIn(ctx, env.Owner, status)
		missing := uuid.NewString()
		bounded, cancel := context.WithTimeout(ctx, env.WaitLatency())
		defer cancel()
		errOther := call(bounded, env.Store, env.Other, r.ID)
		errMissing := call(bounded, env.Store, env.Other, missing)
		expectLikeMissing(errOther, r.ID, errMissing, missing, name)
		after := mustGet(ctx, env, env.Owner, r.ID)
		Expect(after.Version).To(Equal(r.Version), "%s by another owner changed the task", name)
		Expect(after.Status).To(Equal(status))
		Expect(after.Variables).NotTo(HaveKey("client.x"))
		expectSameRecord(after, r, name+" by another owner")
	}

	DescribeTable("refuses get, result and cancel on another owner's task as if it did not exist",
		checkIsolated,
		env.Entry("Get of a working task", "TASKS-SEC-006", "Get", tasks.StatusWorking),
		env.Entry("Get of a completed task", "TASKS-SEC-006", "Get", tasks.StatusCompleted),
		env.Entry("Result of a completed task", "TASKS-SEC-006", "Result", tasks.StatusCompleted),
		env.Entry("Result of a working task", "TASKS-SEC-006", "Result", tasks.StatusWorking),
		env.Entry("Cancel of a working task", "TASKS-SEC-006", "Cancel", tasks.StatusWorking),
		env.Entry("Cancel of a failed task", "TASKS-SEC-006", "Cancel", tasks.StatusFailed),
	)

	DescribeTable("treats another owner's task as missing on every other method",
		checkIsolated,
		env.Entry("Transition", "MCPT-ISO-001", "Transition", tasks.StatusWorking),
		env.Entry("SetVariables", "MCPT-ISO-001", "SetVariables", tasks.StatusWorking),
		env.Entry("Complete", "MCPT-ISO-001", "Complete", tasks.StatusWorking),
		env.Entry("Wait", "MCPT-ISO-001", "Wait", tasks.StatusWorking),
		env.Entry("Transition of an input_required task", "MCPT-ISO-001", "Transition", tasks.StatusInputRequired),
	)

	env.It("lists only the caller's own tasks", "TASKS-SEC-007", func(ctx SpecContext) {
		mine := map[string]bool{}
		theirs := map[string]bool{}
		for i := 0; i < 4; i++ {
			mine[env.Create(ctx, env.Owner).ID] = true
			theirs[env.Create(ctx, env.Other).ID] = true
		}
		for owner, want := range map[tasks.Owner]map[string]bool{env.Owner: mine, env.Other: theirs} {
			got := listAll(ctx, env, owner, 3)
			ids := map[string]bool{}
			for _, r := range got {
				Expect(r.Owner).To(Equal(owner), "listing for %s shows a task of %s", owner, r.Owner)
				ids[r.ID] = true
			}
			Expect(ids).To(Equal(want))
		}
		stranger := tasks.Owner("suite-c-" + uuid.NewString())
		page, err := env.Store.List(ctx, stranger, tasks.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(page.Tasks).To(BeEmpty(), "an owner without tasks sees some")
		Expect(page.NextCursor).To(BeEmpty())
	})

	env.It("does not let one owner's cursor reveal another owner's tasks", "TASKS-SEC-007", func(ctx SpecContext) {
		for i := 0; i < 3; i++ {
			env.Create(ctx, env.Owner)
		}
		env.Create(ctx, env.Other)
		first, err := env.Store.List(ctx, env.Owner, tasks.ListOptions{Limit: 1})
		Expect(err).NotTo(HaveOccurred())
		Expect(first.NextCursor).NotTo(BeEmpty())
		page, err := env.Store.List(ctx, env.Other, tasks.ListOptions{Cursor: first.NextCursor, Limit: 10})
		if err == nil {
			for _, r := range page.Tasks {
				Expect(r.Owner).To(Equal(env.Other), "the cursor exposed a task of another owner")
			}
		}
	})
})

// listAll walks every page of owner's tasks with the given page size.
func listAll(ctx context.Context, env *StoreEnv, owner tasks.Owner, limit int) []tasks.Record {
	GinkgoHelper()
	var all []tasks.Record
	cursor := ""
	for pages := 0; ; pages++ {
		Expect(pages).To(BeNumerically("<", 10000), "List never ends")
		page, err := env.Store.List(ctx, owner, tasks.ListOptions{Cursor: cursor, Limit: limit})
		Expect(err).NotTo(HaveOccurred(), "List")
		want := limit
		if want <= 0 {
			want = env.Config.PageSize
		}
		Expect(len(page.Tasks)).To(BeNumerically("<=", want), "page larger than asked")
		all = append(all, page.Tasks...)
		if page.NextCursor == "" {
			return all
		}
		Expect(page.NextCursor).NotTo(Equal(cursor), "List returned the same cursor twice")
		cursor = page.NextCursor
	}
}
