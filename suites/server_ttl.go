package suites

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = describeServer("Time to live", "ttl", func(env *ServerEnv) {
	env.It("reports the ttl it granted, which may differ from the request", "TASKS-TTL-003", func(ctx SpecContext) {
		for _, want := range []int64{1000, 60000} {
			created := env.CreateOn(ctx, env.A, env.TaskSleep(), map[string]any{"ms": 0}, ptr(want))
			t, err := env.A.GetTask(ctx, created.Task.TaskID)
			Expect(err).NotTo(HaveOccurred())
			granted := "null"
			if t.TTL != nil {
				Expect(*t.TTL).To(BeNumerically(">=", 0))
				granted = fmt.Sprint(*t.TTL)
			}
			AddReportEntry(fmt.Sprintf("ttl requested %d", want), "granted "+granted, ReportEntryVisibilityFailureOrVerbose)
		}
	})

	env.It("caps a huge requested ttl", "TASKS-RSRC-002", func(ctx SpecContext) {
		const tenYears = int64(315360000000)
		created := env.CreateOn(ctx, env.A, env.TaskSleep(), map[string]any{"ms": 0}, ptr(tenYears))
		t, err := env.A.GetTask(ctx, created.Task.TaskID)
		Expect(err).NotTo(HaveOccurred())
		Expect(t.TTL).NotTo(BeNil(), "a ten-year ttl request was granted as unlimited")
		Expect(*t.TTL).To(BeNumerically("<", tenYears), "a ten-year ttl was granted in full")
	})

	env.It("rejects or clamps zero, negative and huge ttl requests, never losing the task at once", "MCPT-TTLREQ-001", func(ctx SpecContext) {
		env.RequireTaskTools()
		name := env.Fixture(env.TaskSleep())
		for _, ttl := range []int64{0, -1, -60000, 1 << 62} {
			res, err := env.A.CallToolAsTask(ctx, name, env.Args(env.TaskSleep(), map[string]any{"ms": 0}), ptr(ttl))
			if err != nil {
				ExpectRPCError(err, -32602, fmt.Sprintf("a refused ttl of %d", ttl))
				continue
			}
			id := res.Task.TaskID
			if res.Task.TTL != nil {
				Expect(*res.Task.TTL).To(BeNumerically(">", 0), "ttl %d was granted as %d", ttl, *res.Task.TTL)
			}
			t, err := env.A.GetTask(ctx, id)
			Expect(err).NotTo(HaveOccurred(), "a task created with ttl %d vanished at once", ttl)
			Expect(t.TaskID).To(Equal(id))
		}
	})

	env.It("purges a task soon after its short ttl elapses", "TASKS-RSRC-003", func(ctx SpecContext) {
		short := env.Config.ShortTTL.Milliseconds()
		start := time.Now()
		created := env.CreateOn(ctx, env.A, env.TaskSleep(), map[string]any{"ms": 0}, ptr(short))
		if created.Task.TTL == nil || time.Duration(*created.Task.TTL)*time.Millisecond > env.Config.ExpiryBudget {
			NotSupported("the server granted ttl %s for a %d ms request, beyond the %s expiry budget", ttlString(created.Task.TTL), short, env.Config.ExpiryBudget)
		}
		granted := time.Duration(*created.Task.TTL) * time.Millisecond
		deadline := start.Add(granted + 2*time.Second)
		for {
			_, err := env.A.GetTask(ctx, created.Task.TaskID)
			if err != nil {
				ExpectRPCError(err, -32602, "tasks/get of an expired task")
				return
			}
			if time.Now().After(deadline) {
				Fail(fmt.Sprintf("the task is still readable 2 s after its %s ttl elapsed", granted))
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
})

func ttlString(ttl *int64) string {
	if ttl == nil {
		return "null"
	}
	return fmt.Sprintf("%d ms", *ttl)
}
