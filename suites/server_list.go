package suites

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// listTasksCount is how many tasks the pagination specs create: enough to
// overflow a typical page. longListCount is the length a listing must
// reach before the suite expects it to be split.
const (
	listTasksCount    = 60
	longListCount     = 150
	listCompleteCount = 12
)

// tamper returns variants of a real cursor with one character changed: in
// the middle and at the end.
func tamper(c string) []string {
	flip := func(i int) string {
		b := []byte(c)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		return string(b)
	}
	return []string{flip(len(c) / 2), flip(len(c) - 1)}
}

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
		ids := createMany(ctx, listTasksCount)
		seen := map[string]int{}
		cursor := ""
		for page := 0; page < 1000; page++ {
			res, err := env.A.ListTasks(ctx, cursor)
			Expect(err).NotTo(HaveOccurred(), "tasks/list page %d", page)
			for _, t := range res.Tasks {
				seen[t.TaskID]++
			}
			if res.Next() == "" {
				break
			}
			cursor = res.Next()
		}
		for id := range ids {
			Expect(seen).To(HaveKey(id), "task %s never appeared in tasks/list before the last page", id)
		}
		for id, n := range seen {
			Expect(n).To(Equal(1), "task %s was listed %d times", id, n)
		}
	})

	env.It("splits long listings into pages", "TASKS-LIST-001", func(ctx SpecContext) {
		createMany(ctx, longListCount)
		res, err := env.A.ListTasks(ctx, "")
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Next()).NotTo(BeEmpty(), "%d tasks came back in a single page", len(res.Tasks))
	})

	env.It("lists every task that tasks/get can read", "TASKS-LIST-004", func(ctx SpecContext) {
		created := createMany(ctx, listCompleteCount)
		for id := range created {
			_, err := env.A.GetTask(ctx, id)
			checkCall(err, "tasks/get %s", id)
		}
		all, err := env.A.ListAllTasks(ctx, 1000)
		checkCall(err, wire.MethodTasksList)
		listed := map[string]bool{}
		for _, t := range all {
			listed[t.TaskID] = true
		}
		var missing []string
		for id := range created {
			if !listed[id] {
				missing = append(missing, id)
			}
		}
		sort.Strings(missing)
		Expect(missing).To(BeEmpty(), "%d of %d tasks that tasks/get reads never appear in tasks/list (%d tasks listed over all pages)", len(missing), len(created), len(all))
	})

	env.It("rejects a cursor it did not issue with -32602", "TASKS-ERR-002", func(ctx SpecContext) {
		// Strings no server issues, of every shape a cursor may take:
		// free text, undecodable, and well-formed encodings (base64 of a
		// word, of a JSON object) a server could only accept by ignoring
		// their content. Any answer but -32602 fails.
		made := []string{
			"mcptasks-bogus-cursor", "%%%", "c1.////",
			base64.StdEncoding.EncodeToString([]byte("foo")),
			base64.RawURLEncoding.EncodeToString([]byte(`{"offset":1000000,"owner":"mcptasks"}`)),
		}
		for _, bogus := range made {
			res, err := env.A.ListTasks(ctx, bogus)
			if err == nil {
				env.failf("tasks/list with the cursor %q, which the server never issued, was served with a page of %d tasks (nextCursor %q) instead of error -32602", bogus, len(res.Tasks), res.Next())
			}
			ExpectRPCError(err, -32602, "tasks/list with the made-up cursor "+bogus)
		}
		// A cursor the server did issue, changed, or issued to another
		// identity, may still decode to a real position when cursors
		// carry no integrity check; accepting it as such is tolerated.
		// Ending the listing there (an empty last page) is not: the
		// server then took a cursor it cannot place for the end.
		var foreign []string
		if len(env.Config.HeadersB) > 0 {
			b := env.B(ctx)
			for i := 0; i < listTasksCount; i++ {
				env.CreateOn(ctx, b, env.TaskSleep(), map[string]any{"ms": 0}, nil)
			}
			if page, err := b.ListTasks(ctx, ""); err == nil && page.Next() != "" {
				foreign = append(foreign, page.Next())
			}
		}
		createMany(ctx, listTasksCount)
		first, err := env.A.ListTasks(ctx, "")
		checkCall(err, wire.MethodTasksList)
		tried := map[string]string{}
		for _, c := range foreign {
			tried[c] = "a cursor issued to identity B"
		}
		if first.Next() != "" {
			for _, c := range tamper(first.Next()) {
				tried[c] = "a real cursor with one character changed"
			}
		}
		for c, what := range tried {
			res, err := env.A.ListTasks(ctx, c)
			if err != nil {
				ExpectRPCError(err, -32602, "tasks/list with "+what)
				continue
			}
			if len(res.Tasks) == 0 && res.Next() == "" {
				env.failf("tasks/list with %s (%q) was served with an empty last page instead of error -32602, although tasks follow that position", what, c)
			}
			AddReportEntry("cursor accepted as a position", fmt.Sprintf("%s (%q): %d tasks", what, c, len(res.Tasks)), ReportEntryVisibilityFailureOrVerbose)
		}
	})

	env.It("returns the tasks array of Task objects", "TASKS-WIRE-LIST-001", func(ctx SpecContext) {
		env.Sleep(ctx, 0)
		raw, err := env.A.Call(ctx, wire.MethodTasksList, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(raw).To(ConformTo("ListTasksResult"))
		var res struct {
			Tasks []json.RawMessage `json:"tasks"`
		}
		Expect(json.Unmarshal(raw, &res)).To(Succeed())
		Expect(res.Tasks).NotTo(BeNil(), "tasks/list has no tasks array")
		env.expectAnswersConform("ListTasksResult")
	})

	env.It("accepts tasks/list without params and with empty params alike", "TASKS-WIRE-LISTREQ-001", func(ctx SpecContext) {
		env.Sleep(ctx, 0)
		a, err := env.A.Call(ctx, wire.MethodTasksList, nil)
		Expect(err).NotTo(HaveOccurred(), "tasks/list without params")
		b, err := env.A.Call(ctx, wire.MethodTasksList, map[string]any{})
		Expect(err).NotTo(HaveOccurred(), "tasks/list with {}")
		ids := func(raw json.RawMessage) []string {
			var res schema.ListTasksResult
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
		createMany(ctx, listTasksCount)
		first, err := env.A.ListTasks(ctx, "")
		Expect(err).NotTo(HaveOccurred())
		if first.Next() == "" {
			NotSupported("all %d tasks fit in one page, so no cursor could be reused", len(first.Tasks))
		}
		ids := func(r *schema.ListTasksResult) []string {
			var out []string
			for _, t := range r.Tasks {
				out = append(out, t.TaskID)
			}
			return out
		}
		p1, err := env.A.ListTasks(ctx, first.Next())
		Expect(err).NotTo(HaveOccurred())
		p2, err := env.A.ListTasks(ctx, first.Next())
		Expect(err).NotTo(HaveOccurred())
		Expect(ids(p2)).To(Equal(ids(p1)), "the same cursor gave two different pages")
	})
})
