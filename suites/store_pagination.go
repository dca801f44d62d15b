package suites

import (
	"encoding/base64"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// listOrderOK reports whether records are in (CreatedAt, ID) order.
func expectListOrder(rs []tasks.Record) {
	GinkgoHelper()
	for i := 1; i < len(rs); i++ {
		a, b := rs[i-1], rs[i]
		ok := a.CreatedAt.Before(b.CreatedAt) || (a.CreatedAt.Equal(b.CreatedAt) && a.ID < b.ID)
		Expect(ok).To(BeTrue(), "tasks %d and %d are out of order: (%v, %s) then (%v, %s)",
			i-1, i, a.CreatedAt, a.ID, b.CreatedAt, b.ID)
	}
}

// expectExactlyOnce checks that got holds each id of want exactly once and
// nothing else.
func expectExactlyOnce(got []tasks.Record, want []string) {
	GinkgoHelper()
	count := map[string]int{}
	for _, r := range got {
		count[r.ID]++
	}
	for _, id := range want {
		Expect(count[id]).To(Equal(1), "task %s listed %d times", id, count[id])
		delete(count, id)
	}
	Expect(count).To(BeEmpty(), "listing shows tasks that were never created")
}

var _ = describeStore("Pagination", "pagination", func(env *StoreEnv) {
	BeforeEach(func() {
		env.Config.MaxTasksPerOwner = 200
		env.Config.PageSize = 4
	})

	// seed creates n tasks for env.Owner, several per millisecond so that
	// ties on createdAt are broken by id.
	seed := func(ctx SpecContext, n int) []string {
		GinkgoHelper()
		ids := make([]string, 0, n)
		for i := 0; i < n; i++ {
			if i%3 == 0 {
				env.Clock.Advance(time.Millisecond)
			}
			ids = append(ids, env.Create(ctx, env.Owner).ID)
		}
		return ids
	}

	DescribeTable("yields every task exactly once, oldest first",
		func(ctx SpecContext, limit int) {
			ids := seed(ctx, 23)
			got := listAll(ctx, env, env.Owner, limit)
			expectExactlyOnce(got, ids)
			expectListOrder(got)
		},
		env.Entry("one per page", "MCPT-PAGE-001", 1),
		env.Entry("two per page", "MCPT-PAGE-001", 2),
		env.Entry("seven per page", "MCPT-PAGE-001", 7),
		env.Entry("all in one page", "MCPT-PAGE-001", 50),
		env.Entry("the default page size", "MCPT-PAGE-001", 0),
	)

	env.It("pages over live tasks only when expired ones lie between them", "MCPT-PAGE-001", func(ctx SpecContext) {
		short := 2 * time.Second
		var live []string
		for i := 0; i < 12; i++ {
			env.Clock.Advance(time.Millisecond)
			p := tasks.CreateParams{Method: wire.MethodToolsCall}
			if i%3 != 1 {
				p.TTL = &short
			}
			r, err := env.Store.Create(ctx, env.Owner, p)
			Expect(err).NotTo(HaveOccurred())
			if i%3 == 1 {
				live = append(live, r.ID)
			}
		}
		env.Clock.Advance(3 * time.Second)
		for _, limit := range []int{1, 2, 3} {
			got := listAll(ctx, env, env.Owner, limit)
			expectExactlyOnce(got, live)
			expectListOrder(got)
		}
	})

	env.It("returns a next cursor on every page but the last", "TASKS-LIST-002", func(ctx SpecContext) {
		ids := seed(ctx, 7)
		seen := 0
		cursor := ""
		for {
			page, err := env.Store.List(ctx, env.Owner, tasks.ListOptions{Cursor: cursor, Limit: 3})
			Expect(err).NotTo(HaveOccurred())
			seen += len(page.Tasks)
			if seen < len(ids) {
				Expect(page.NextCursor).NotTo(BeEmpty(), "%d of %d tasks seen but no next cursor", seen, len(ids))
			}
			if page.NextCursor == "" {
				break
			}
			cursor = page.NextCursor
		}
		Expect(seen).To(Equal(len(ids)))
	})

	env.It("holds at most the requested number of tasks, the configured default when none is asked", "MCPT-PAGE-003", func(ctx SpecContext) {
		seed(ctx, 9)
		page, err := env.Store.List(ctx, env.Owner, tasks.ListOptions{Limit: 5})
		Expect(err).NotTo(HaveOccurred())
		Expect(page.Tasks).To(HaveLen(5))
		page, err = env.Store.List(ctx, env.Owner, tasks.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(page.Tasks).To(HaveLen(env.Config.PageSize))
		page, err = env.Store.List(ctx, env.Owner, tasks.ListOptions{Limit: -3})
		Expect(err).NotTo(HaveOccurred())
		Expect(page.Tasks).To(HaveLen(env.Config.PageSize), "a negative limit means the default")
		page, err = env.Store.List(ctx, env.Owner, tasks.ListOptions{Limit: 9})
		Expect(err).NotTo(HaveOccurred())
		Expect(page.Tasks).To(HaveLen(9), "a page asking for exactly all tasks")
		Expect(page.NextCursor).To(BeEmpty(), "the page holds every task, so it is the last")
	})

	DescribeTable("stays exact while tasks vanish between its pages",
		func(ctx SpecContext, sweep bool) {
			// Twelve tasks, three per millisecond; every other one of the
			// first eight expires after the first page has been read.
			short := 2 * time.Second
			var live []string
			for i := 0; i < 12; i++ {
				if i%3 == 0 {
					env.Clock.Advance(time.Millisecond)
				}
				p := tasks.CreateParams{Method: wire.MethodToolsCall}
				if i < 8 && i%2 == 0 {
					p.TTL = &short
				}
				r, err := env.Store.Create(ctx, env.Owner, p)
				Expect(err).NotTo(HaveOccurred())
				if p.TTL == nil {
					live = append(live, r.ID)
				}
			}
			first, err := env.Store.List(ctx, env.Owner, tasks.ListOptions{Limit: 3})
			Expect(err).NotTo(HaveOccurred())
			Expect(first.Tasks).To(HaveLen(3))
			Expect(first.NextCursor).NotTo(BeEmpty())
			env.Clock.Advance(short)
			if sweep {
				_, err := env.Store.DeleteExpired(ctx)
				Expect(err).NotTo(HaveOccurred())
			}
			got := append([]tasks.Record(nil), first.Tasks...)
			cursor := first.NextCursor
			for pages := 0; cursor != ""; pages++ {
				Expect(pages).To(BeNumerically("<", 20), "List never ends")
				page, err := env.Store.List(ctx, env.Owner, tasks.ListOptions{Cursor: cursor, Limit: 3})
				Expect(err).NotTo(HaveOccurred())
				got = append(got, page.Tasks...)
				cursor = page.NextCursor
			}
			count := map[string]int{}
			for _, r := range got {
				count[r.ID]++
			}
			for _, id := range live {
				Expect(count[id]).To(Equal(1), "task %s, alive all along, listed %d times", id, count[id])
			}
			expectListOrder(got)
		},
		env.Entry("when they expire", "MCPT-PAGE-004", false),
		env.Entry("when they are deleted", "MCPT-PAGE-004", true),
	)

	env.It("lists every task the owner can get, in any status", "TASKS-LIST-004", func(ctx SpecContext) {
		var ids []string
		for _, st := range tasks.Statuses {
			ids = append(ids, env.CreateIn(ctx, env.Owner, st).ID)
		}
		got := listAll(ctx, env, env.Owner, 2)
		expectExactlyOnce(got, ids)
		for _, r := range got {
			Expect(mustGet(ctx, env, env.Owner, r.ID).Status).To(Equal(r.Status), "List and Get disagree on %s", r.ID)
		}
	})

	env.It("stays exact while tasks are being created", "MCPT-PAGE-002", func(ctx SpecContext) {
		ids := seed(ctx, 30)
		var wg sync.WaitGroup
		stop := make(chan struct{})
		created := make(chan string, 200)
		wg.Add(1)
		st, owner, clock := env.Store, env.Owner, env.Clock
		stopped := false
		halt := func() {
			if !stopped {
				stopped = true
				close(stop)
				wg.Wait()
			}
		}
		defer halt() // also when the listing fails the spec
		go func() {
			defer GinkgoRecover()
			defer wg.Done()
			defer close(created)
			for i := 0; i < 60; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if i%5 == 0 {
					clock.Advance(time.Millisecond)
				}
				r, err := st.Create(ctx, owner, tasks.CreateParams{Method: wire.MethodToolsCall})
				if err == nil {
					created <- r.ID
				}
			}
		}()
		got := listAll(ctx, env, env.Owner, 4)
		halt()
		extra := map[string]bool{}
		for id := range created {
			extra[id] = true
		}
		count := map[string]int{}
		for _, r := range got {
			count[r.ID]++
			Expect(count[r.ID]).To(Equal(1), "task %s listed twice", r.ID)
		}
		for _, id := range ids {
			Expect(count[id]).To(Equal(1), "task %s, created before the listing, was missed", id)
		}
		for id := range count {
			if !extra[id] {
				Expect(ids).To(ContainElement(id), "listing shows an unknown task %s", id)
			}
		}
		expectListOrder(got)
	})

	env.It("keeps a cursor working after the task it points at is gone", "TASKS-PAGE-003", func(ctx SpecContext) {
		ttl := 2 * time.Second
		var ids []string
		for i := 0; i < 6; i++ {
			env.Clock.Advance(time.Millisecond)
			p := tasks.CreateParams{Method: wire.MethodToolsCall}
			if i == 2 {
				p.TTL = &ttl
			}
			r, err := env.Store.Create(ctx, env.Owner, p)
			Expect(err).NotTo(HaveOccurred())
			ids = append(ids, r.ID)
		}
		first, err := env.Store.List(ctx, env.Owner, tasks.ListOptions{Limit: 3})
		Expect(err).NotTo(HaveOccurred())
		Expect(first.Tasks[2].ID).To(Equal(ids[2]))
		Expect(first.NextCursor).NotTo(BeEmpty())
		env.Clock.Advance(3 * time.Second)
		_, err = env.Store.DeleteExpired(ctx)
		Expect(err).NotTo(HaveOccurred())
		for range 2 {
			rest, err := env.Store.List(ctx, env.Owner, tasks.ListOptions{Cursor: first.NextCursor, Limit: 10})
			Expect(err).NotTo(HaveOccurred(), "the cursor stopped working")
			expectExactlyOnce(rest.Tasks, ids[3:])
		}
	})

	DescribeTable("refuses a cursor it did not issue with invalid-cursor (-32602)",
		func(ctx SpecContext, cursor string) {
			seed(ctx, 3)
			_, err := env.Store.List(ctx, env.Owner, tasks.ListOptions{Cursor: cursor})
			expectCode(err, tasks.ErrInvalidCursor, "List with cursor "+cursor)
		},
		env.Entry("plain garbage", "TASKS-ERR-002", "garbage"),
		env.Entry("a number", "TASKS-ERR-002", "42"),
		env.Entry("a broken encoding", "TASKS-ERR-002", "c1.!!!***"),
		env.Entry("well encoded nonsense", "TASKS-ERR-002", "c1."+base64.RawURLEncoding.EncodeToString([]byte("no separator"))),
		env.Entry("a bad timestamp", "TASKS-ERR-002", "c1."+base64.RawURLEncoding.EncodeToString([]byte("yesterday|abc"))),
	)
})
