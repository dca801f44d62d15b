package suites

import (
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/tasks"
)

var _ = describeStore("Results", "results", func(env *StoreEnv) {
	DescribeTable("hands back the final outcome of a task that ended",
		func(ctx SpecContext, status tasks.Status, o tasks.Outcome) {
			r := env.Create(ctx, env.Owner)
			_, err := env.Store.Complete(ctx, env.Owner, r.ID, status, "over", o)
			Expect(err).NotTo(HaveOccurred())
			res, err := env.Store.Result(ctx, env.Owner, r.ID)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Status).To(Equal(status))
			Expect(res.Outcome).NotTo(BeNil(), "Result of a terminal task has no outcome")
			if o.Result != nil {
				Expect(res.Outcome.Error).To(BeNil())
				Expect(string(res.Outcome.Result)).To(Equal(string(o.Result)))
			} else {
				Expect(res.Outcome.Result).To(BeNil())
				Expect(res.Outcome.Error).To(Equal(o.Error))
			}
		},
		env.Entry("a completed tool result", "TASKS-RESULT-003", tasks.StatusCompleted,
			resultOutcome(`{"content":[{"type":"text","text":"hé \u2713"}],"structuredContent":{"n":1.5,"list":[1,2,3]}}`)),
		env.Entry("a failed tool result with isError", "TASKS-RESULT-003", tasks.StatusFailed,
			resultOutcome(`{"content":[{"type":"text","text":"no"}],"isError":true}`)),
		env.Entry("a JSON-RPC error", "TASKS-RESULT-003", tasks.StatusFailed, errorOutcome(-32602, "bad arguments")),
		env.Entry("a large result", "TASKS-RESULT-003", tasks.StatusCompleted,
			resultOutcome(`{"content":[{"type":"text","text":"`+strings.Repeat("0123456789abcdef", 4096)+`"}]}`)),
	)

	env.It("returns an error outcome with the same code, message and data", "MCPT-RES-002", func(ctx SpecContext) {
		r := env.Create(ctx, env.Owner)
		want := &tasks.RPCError{Code: -32001, Message: "upstream said \"no\" ✗", Data: json.RawMessage(`{"retry":false,"after":[1,2]}`)}
		_, err := env.Store.Complete(ctx, env.Owner, r.ID, tasks.StatusFailed, "", tasks.Outcome{Error: want})
		Expect(err).NotTo(HaveOccurred())
		res, err := env.Store.Result(ctx, env.Owner, r.ID)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Outcome.Error).NotTo(BeNil())
		Expect(res.Outcome.Error.Code).To(Equal(want.Code))
		Expect(res.Outcome.Error.Message).To(Equal(want.Message))
		Expect(string(res.Outcome.Error.Data)).To(Equal(string(want.Data)))
	})

	DescribeTable("reports not-ready for a task that has not ended",
		func(ctx SpecContext, status tasks.Status) {
			r := env.CreateIn(ctx, env.Owner, status)
			_, err := env.Store.Result(ctx, env.Owner, r.ID)
			expectCode(err, tasks.ErrNotReady, "Result of a "+string(status)+" task")
		},
		env.Entry("working", "MCPT-RES-003", tasks.StatusWorking),
		env.Entry("input_required", "MCPT-RES-003", tasks.StatusInputRequired),
	)

	env.It("never shows a terminal status without its outcome", "MCPT-RES-001", func(ctx SpecContext) {
		for round := 0; round < 20; round++ {
			r := env.Create(ctx, env.Owner)
			var done atomic.Bool
			var wg sync.WaitGroup
			var bad atomic.Value
			st, owner := env.Store, env.Owner // the readers must not touch env after the spec
			for w := 0; w < 2; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for !done.Load() {
						got, err := st.Get(ctx, owner, r.ID)
						if err != nil || !got.Status.Terminal() {
							continue
						}
						res, err := st.Result(ctx, owner, r.ID)
						switch {
						case err != nil:
							bad.Store("Get showed " + string(got.Status) + " but Result failed: " + err.Error())
						case res.Outcome == nil || (res.Outcome.Result == nil && res.Outcome.Error == nil):
							bad.Store("Get showed " + string(got.Status) + " but Result has no outcome")
						}
						return
					}
				}()
			}
			stopReaders := func() { done.Store(true); wg.Wait() }
			defer stopReaders() // when an expectation below fails the spec
			_, err := env.Store.Complete(ctx, env.Owner, r.ID, tasks.StatusCompleted, "", resultOutcome(`{"n":1}`))
			Expect(err).NotTo(HaveOccurred())
			_, err = env.Store.Get(ctx, env.Owner, r.ID)
			Expect(err).NotTo(HaveOccurred())
			// Give the readers a chance to see the terminal record.
			for i := 0; i < 100 && !done.Load(); i++ {
				if _, err := env.Store.Result(ctx, env.Owner, r.ID); err == nil {
					break
				}
			}
			stopReaders()
			if msg, ok := bad.Load().(string); ok {
				Fail(msg)
			}
			res, err := env.Store.Result(ctx, env.Owner, r.ID)
			Expect(err).NotTo(HaveOccurred(), "Result right after Complete returned")
			Expect(res.Outcome).NotTo(BeNil())
		}
	})
})
