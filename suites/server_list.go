package suites

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/tasks/client"
)

// listTasksCount is how many tasks the pagination specs create: enough to
// overflow a typical page. longListCount is the length a listing must
// reach before the suite expects it to be split.
const (
	listTasksCount = 60
	longListCount  = 150
)

var _ = describeServer("Listing with tasks/list", "list", func(env *ServerEnv) {
	// createMany makes n short tasks and returns their ids.
	createMany := func(ctx SpecContext, n int) map[string]bool {
		ids := map[string]bool{}
		for i := 0; i < n; i++ {
			ids[env.Sleep(ctx, 0).Task.TaskID] = true
		}
		return ids
	}

	env.It("pages with nextCursor until every task has been listed", "TASKS-LIST-002", func(ctx SpecContext) {
		env.RequireList()
		ids := createMany(ctx, listTasksCount)
		seen := map[string]int{}
		cursor := ""
		for page := 0; page < 1000; page++ {
			res, err := env.A.ListTasks(ctx, cursor)
			Expect(err).NotTo(HaveOccurred(), "tasks/list page %d", page)
			for _, t := range res.Tasks {
				seen[t.TaskID]++
			}
			if res.NextCursor == "" {
				break
			}
			cursor = res.NextCursor
		}
		for id := range ids {
			Expect(seen).To(HaveKey(id), "task %s never appeared in tasks/list before the last page", id)
		}
		for id, n := range seen {
			Expect(n).To(Equal(1), "task %s was listed %d times", id, n)
		}
	})

	env.It("splits long listings into pages", "TASKS-LIST-001", func(ctx SpecContext) {
		env.RequireList()
		createMany(ctx, longListCount)
		res, err := env.A.ListTasks(ctx, "")
		Expect(err).NotTo(HaveOccurred())
		Expect(res.NextCursor).NotTo(BeEmpty(), "%d tasks came back in a single page", len(res.Tasks))
	})

	env.It("lists every task that tasks/get can read", "TASKS-LIST-004", func(ctx SpecContext) {
		env.RequireList()
		created := env.Sleep(ctx, 0)
		_, err := env.A.GetTask(ctx, created.Task.TaskID)
		Expect(err).NotTo(HaveOccurred())
		all, err := env.A.ListAllTasks(ctx, 1000)
		Expect(err).NotTo(HaveOccurred())
		var ids []string
		for _, t := range all {
			ids = append(ids, t.TaskID)
		}
		Expect(ids).To(ContainElement(created.Task.TaskID))
	})

	env.It("rejects a cursor it did not issue with -32602", "TASKS-ERR-002", func(ctx SpecContext) {
		env.RequireList()
		// A real cursor changed by one character may still decode to a
		// valid position for a keyset cursor without integrity check, so
		// only cursors no server could have issued are tried.
		for _, bogus := range []string{"mcptasks-bogus-cursor", "%%%", "c1.////"} {
			_, err := env.A.ListTasks(ctx, bogus)
			ExpectRPCError(err, -32602, "tasks/list with the made-up cursor "+bogus)
		}
	})

	env.It("returns the tasks array of Task objects", "TASKS-WIRE-LIST-001", func(ctx SpecContext) {
		env.RequireList()
		env.Sleep(ctx, 0)
		raw, err := env.A.Call(ctx, "tasks/list", nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(raw).To(ConformTo("ListTasksResult"))
		var res struct {
			Tasks []json.RawMessage `json:"tasks"`
		}
		Expect(json.Unmarshal(raw, &res)).To(Succeed())
		Expect(res.Tasks).NotTo(BeNil(), "tasks/list has no tasks array")
		for _, t := range res.Tasks {
			Expect(t).To(ConformTo("Task"))
			var obj map[string]json.RawMessage
			Expect(json.Unmarshal(t, &obj)).To(Succeed())
			expectTTLMember(obj, "tasks/list item")
		}
	})

	env.It("accepts tasks/list without params and with empty params alike", "TASKS-WIRE-LISTREQ-001", func(ctx SpecContext) {
		env.RequireList()
		env.Sleep(ctx, 0)
		a, err := env.A.Call(ctx, "tasks/list", nil)
		Expect(err).NotTo(HaveOccurred(), "tasks/list without params")
		b, err := env.A.Call(ctx, "tasks/list", map[string]any{})
		Expect(err).NotTo(HaveOccurred(), "tasks/list with {}")
		ids := func(raw json.RawMessage) []string {
			var res client.ListTasksResult
			Expect(json.Unmarshal(raw, &res)).To(Succeed())
			var out []string
			for _, t := range res.Tasks {
				out = append(out, t.TaskID)
			}
			return out
		}
		Expect(ids(b)).To(Equal(ids(a)))
	})

	env.It("returns the same page for the same cursor", "TASKS-PAGE-003", func(ctx SpecContext) {
		env.RequireList()
		createMany(ctx, listTasksCount)
		first, err := env.A.ListTasks(ctx, "")
		Expect(err).NotTo(HaveOccurred())
		if first.NextCursor == "" {
			NotSupported("all %d tasks fit in one page, so no cursor could be reused", len(first.Tasks))
		}
		ids := func(r *client.ListTasksResult) []string {
			var out []string
			for _, t := range r.Tasks {
				out = append(out, t.TaskID)
			}
			return out
		}
		p1, err := env.A.ListTasks(ctx, first.NextCursor)
		Expect(err).NotTo(HaveOccurred())
		p2, err := env.A.ListTasks(ctx, first.NextCursor)
		Expect(err).NotTo(HaveOccurred())
		Expect(ids(p2)).To(Equal(ids(p1)), "the same cursor gave two different pages")
	})
})
