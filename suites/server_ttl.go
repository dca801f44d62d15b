package suites

import (
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/tasks/client"
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
		// Judged on the ttl granted in the CreateTaskResult: whether the
		// task then lives that long is TASKS-TTL-004's business. The work
		// is a long probe (cancelled when the spec ends), so no server has
		// to store a result for a task it may already have dropped.
		created := env.CreateOn(ctx, env.A, env.TaskSleep(), map[string]any{"ms": ttlProbeWork.Milliseconds()}, ptr(tenYears))
		Expect(created.Task.TTL).NotTo(BeNil(), "a ten-year ttl request was granted as unlimited (ttl null in the CreateTaskResult)")
		Expect(*created.Task.TTL).To(BeNumerically("<", tenYears), "a ten-year ttl was granted in full")
	})

	env.It("keeps a task readable for the ttl it reports, whatever ttl was requested", "TASKS-TTL-004", func(ctx SpecContext) {
		role := env.TaskSleep()
		name := env.Fixture(role)
		var probes []retentionProbe
		var negative []string
		var negLast *client.Exchange // the creation that reported the first negative ttl
		for _, ttl := range []*int64{nil, ptr(int64(1) << 31), ptr(int64(1) << 40), ptr(int64(60000)), ptr(int64(0)), ptr(int64(-1))} {
			asked := ttlString(ttl)
			born := time.Now()
			res, err := env.A.CallToolAsTask(ctx, name, env.Args(role, map[string]any{"ms": ttlProbeWork.Milliseconds()}), ttl)
			if code, isRPC := rpcCode(err); isRPC && code == -32602 {
				continue // refusing a ttl is allowed: no task, nothing to retain
			}
			checkCall(err, "tools/call %s as a task with ttl %s", name, asked)
			env.checkTask(&res.Task, "CreateTaskResult")
			env.mu.Lock()
			env.created = append(env.created, createdTask{c: env.A, id: res.Task.TaskID})
			env.mu.Unlock()
			rep := res.Task.TTL
			if rep != nil && *rep < 0 {
				negative = append(negative, fmt.Sprintf("for a requested ttl of %s the server reported ttl %d", asked, *rep))
				if negLast == nil {
					// Keep this exchange as the evidence of the failure.
					env.mu.Lock()
					negLast = env.last
					env.mu.Unlock()
				}
				continue
			}
			probes = append(probes, newRetentionProbe(asked, res.Task.TaskID, rep, born, ttlWatch))
		}
		if len(probes) == 0 && len(negative) == 0 {
			NotSupported("the server refused every requested ttl with -32602, including none at all")
		}
		// Shared with the 2026-07-28 retention spec (EXT-TTL-007).
		watchRetention(ctx, env.legacyDriver(), probes)
		if len(negative) > 0 {
			env.mu.Lock()
			env.last = negLast
			env.mu.Unlock()
			env.failf("a retention cannot be negative: %s", strings.Join(negative, "; "))
		}
	})

	env.It("rejects or clamps zero, negative and huge ttl requests, never losing the task at once", "MCPT-TTLREQ-001", func(ctx SpecContext) {
		name := env.Fixture(env.TaskSleep())
		for _, ttl := range []int64{0, -1, -60000, 1 << 62} {
			// Long probe tasks, cancelled when the spec ends, like
			// TTL-004's: a server that drops such a task at once never has
			// to store its result (the TypeScript SDK example crashes then).
			res, err := env.A.CallToolAsTask(ctx, name, env.Args(env.TaskSleep(), map[string]any{"ms": ttlProbeWork.Milliseconds()}), ptr(ttl))
			if err != nil {
				ExpectRPCError(err, -32602, fmt.Sprintf("a refused ttl of %d", ttl))
				continue
			}
			id := res.Task.TaskID
			env.mu.Lock()
			env.created = append(env.created, createdTask{c: env.A, id: id})
			env.mu.Unlock()
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
				env.failf("the task is still readable 2 s after its %s ttl elapsed", granted)
			}
			time.Sleep(env.scaled(100 * time.Millisecond))
		}
	})
})

// ttlWatch is the longest the TTL-004 spec watches a task it created.
const ttlWatch = 1200 * time.Millisecond

// ttlProbeWork is how long the work of a TTL-004 probe task lasts: far
// beyond the run, so no server has to store a result for a task it has
// already dropped (the TypeScript SDK example crashes on that), and the
// spec cancels the probes when it ends.
const ttlProbeWork = 10 * time.Minute

func ttlString(ttl *int64) string {
	if ttl == nil {
		return "null"
	}
	return fmt.Sprintf("%d ms", *ttl)
}
