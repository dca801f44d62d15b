package suites

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/client"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// answerTimeout bounds calls that must be answered at once (not blocking
// ones such as tasks/result), so a server that never answers fails the spec
// with a clear message instead of running into the spec timeout.
const answerTimeout = 10 * time.Second

// clockDrift is how far the server's timestamps may stray from the
// harness clock: generous, since the two machines' clocks need not agree,
// but tight enough to catch a fixed or zero date.
const clockDrift = 30 * time.Second

var _ = describeServer("Polling with tasks/get", "poll", func(env *ServerEnv) {
	env.It("returns the task flat in the tasks/get result", "TASKS-WIRE-GET-001", func(ctx SpecContext) {
		created := env.Sleep(ctx, 0)
		raw, err := env.A.Call(ctx, wire.MethodTasksGet, map[string]string{"taskId": created.Task.TaskID})
		Expect(err).NotTo(HaveOccurred())
		obj := rawTaskMembers(raw, false)
		Expect(obj).NotTo(HaveKey("task"), "tasks/get wraps the task")
		Expect(obj).To(HaveKey("taskId"))
		env.Await(ctx, created.Task.TaskID)
		env.expectAnswersConform("GetTaskResult")
	})

	env.It("includes the ttl in force, or null, in every tasks/get result", "TASKS-TTL-004", func(ctx SpecContext) {
		for _, ttl := range []*int64{nil, ptr(int64(60000))} {
			created := env.CreateOn(ctx, env.A, env.TaskSleep(), map[string]any{"ms": 0}, ttl)
			raw, err := env.A.Call(ctx, wire.MethodTasksGet, map[string]string{"taskId": created.Task.TaskID})
			Expect(err).NotTo(HaveOccurred())
			expectTTLMember(rawTaskMembers(raw, false), wire.MethodTasksGet)
		}
	})

	env.It("keeps lastUpdatedAt in RFC 3339, never before createdAt and never going back", "TASKS-TTL-002", func(ctx SpecContext) {
		created := env.Sleep(ctx, 300)
		var last time.Time
		env.AwaitOn(ctx, env.A, created.Task.TaskID, func(t *schema.GetTaskResult) {
			_, updated := env.taskTimes(&t.Task, wire.MethodTasksGet)
			Expect(updated.Before(last)).To(BeFalse(), "lastUpdatedAt went back from %s to %s", last.Format(time.RFC3339Nano), t.LastUpdatedAt)
			last = updated
		})
	})

	env.It("moves lastUpdatedAt forward when the status changes", "TASKS-TTL-002", func(ctx SpecContext) {
		const ms = 400
		before := time.Now()
		created := env.Sleep(ctx, ms)
		createdAt, _ := env.taskTimes(&created.Task, "CreateTaskResult")
		if d := createdAt.Sub(before); d > clockDrift || d < -clockDrift {
			NotSupported("createdAt %s is %s away from the harness clock, so lastUpdatedAt cannot be checked against it (judged under TASKS-TTL-001)", created.Task.CreatedAt, d.Round(time.Millisecond))
		}
		var working *schema.GetTaskResult
		final := env.AwaitOn(ctx, env.A, created.Task.TaskID, func(t *schema.GetTaskResult) {
			if t.Status == "working" {
				working = t
			}
		})
		if final.Status != "completed" {
			NotSupported("the %d ms task ended %s (%q) on its own; this spec needs it to complete", ms, final.Status, final.Message())
		}
		_, finalUpdated := env.taskTimes(&final.Task, wire.MethodTasksGet)
		ref := createdAt
		if working != nil {
			_, ref = env.taskTimes(&working.Task, wire.MethodTasksGet)
		}
		Expect(finalUpdated.After(ref)).To(BeTrue(),
			"the task went from working to completed but lastUpdatedAt stayed at %s (createdAt %s)", final.LastUpdatedAt, final.CreatedAt)
		// The status changed once the work ended, about ms after creation:
		// a lastUpdatedAt that reflects that change lies well past createdAt
		// whatever the offset between the two clocks.
		Expect(finalUpdated.Sub(createdAt)).To(BeNumerically(">=", ms/2*time.Millisecond),
			"the completed task's lastUpdatedAt %s is only %s after its createdAt %s, yet its work took %d ms",
			final.LastUpdatedAt, finalUpdated.Sub(createdAt), final.CreatedAt, ms)
		Expect(finalUpdated).To(BeTemporally("<=", time.Now().Add(clockDrift)),
			"lastUpdatedAt %s lies in the future of the harness clock by more than %s", final.LastUpdatedAt, clockDrift)
	})

	env.It("moves tasks only along the allowed status edges", "TASKS-LIFE-002", func(ctx SpecContext) {
		created := env.Sleep(ctx, 300)
		prev := tasks.Status(created.Task.Status)
		Expect(prev.Valid()).To(BeTrue(), "unknown status %q", prev)
		env.AwaitOn(ctx, env.A, created.Task.TaskID, func(t *schema.GetTaskResult) {
			cur := tasks.Status(t.Status)
			Expect(cur.Valid()).To(BeTrue(), "unknown status %q", cur)
			if cur != prev {
				Expect(tasks.CanTransition(prev, cur)).To(BeTrue(), "status moved from %s to %s", prev, cur)
			}
			prev = cur
		})
	})

	env.It("never moves a task out of a terminal status", "TASKS-LIFE-005", func(ctx SpecContext) {
		created := env.Sleep(ctx, 0)
		final := env.Await(ctx, created.Task.TaskID)
		if env.Has(FeatureCancel) {
			_, err := env.A.CancelTask(ctx, created.Task.TaskID)
			Expect(err).To(HaveOccurred(), "tasks/cancel on a %s task succeeded", final.Status)
		}
		for i := 0; i < 3; i++ {
			t, err := env.A.GetTask(ctx, created.Task.TaskID)
			Expect(err).NotTo(HaveOccurred())
			Expect(t.Status).To(Equal(final.Status), "a %s task changed status", final.Status)
			time.Sleep(env.scaled(20 * time.Millisecond))
		}
	})

	env.It("suggests pollInterval, when it does, as a non-negative integer", "TASKS-TTL-006", func(ctx SpecContext) {
		created := env.Sleep(ctx, 0)
		raw, err := env.A.Call(ctx, wire.MethodTasksGet, map[string]string{"taskId": created.Task.TaskID})
		Expect(err).NotTo(HaveOccurred())
		obj := rawTaskMembers(raw, false)
		if pi, ok := obj["pollInterval"]; ok {
			var n int64
			Expect(json.Unmarshal(pi, &n)).To(Succeed(), "pollInterval %s is not an integer", pi)
			Expect(n).To(BeNumerically(">=", 0))
		}
	})

	env.It("leaves related-task metadata out of tasks/get, tasks/list and tasks/cancel results", "TASKS-META-006", func(ctx SpecContext) {
		created := env.Sleep(ctx, 0)
		raw, err := env.A.Call(ctx, wire.MethodTasksGet, map[string]string{"taskId": created.Task.TaskID})
		Expect(err).NotTo(HaveOccurred())
		Expect(hasRelatedTask(raw)).To(BeFalse(), "tasks/get result carries related-task metadata")
		if env.Has(FeatureList) {
			raw, err := env.A.Call(ctx, wire.MethodTasksList, nil)
			Expect(err).NotTo(HaveOccurred())
			Expect(hasRelatedTask(raw)).To(BeFalse(), "tasks/list result carries related-task metadata")
		}
		if env.Has(FeatureCancel) {
			slow := env.Running(ctx, 5000)
			raw, err := env.A.Call(ctx, wire.MethodTasksCancel, map[string]string{"taskId": slow.Task.TaskID})
			env.cancelOK(ctx, err, slow.Task.TaskID, wire.MethodTasksCancel)
			Expect(hasRelatedTask(raw)).To(BeFalse(), "tasks/cancel result carries related-task metadata")
		}
	})

	env.It("goes by the taskId parameter and ignores related-task metadata in the request", "TASKS-META-005", func(ctx SpecContext) {
		created := env.Sleep(ctx, 0)
		cctx, cancel := context.WithTimeout(ctx, env.scaled(answerTimeout))
		defer cancel()
		raw, err := env.A.Call(cctx, wire.MethodTasksGet, map[string]any{
			"taskId": created.Task.TaskID,
			"_meta":  map[string]any{wire.MetaRelatedTask: map[string]string{"taskId": "mcptasks-no-such-task"}},
		})
		Expect(err).NotTo(HaveOccurred(), "tasks/get with misleading related-task metadata")
		var t schema.Task
		Expect(json.Unmarshal(raw, &t)).To(Succeed())
		Expect(t.TaskID).To(Equal(created.Task.TaskID))
		// Metadata naming another real task must not change where the
		// answer goes either: it comes back on the request's own stream.
		other := env.Sleep(ctx, 0)
		octx, ocancel := context.WithTimeout(ctx, env.scaled(answerTimeout))
		defer ocancel()
		_, err = env.A.Call(octx, wire.MethodTasksGet, map[string]any{
			"taskId": created.Task.TaskID,
			"_meta":  map[string]any{wire.MetaRelatedTask: map[string]string{"taskId": other.Task.TaskID}},
		})
		checkCall(err, "tasks/get with related-task metadata naming another task was not answered on its own stream (waited at most %s): "+
			"the metadata decided where the answer went instead of being ignored", answerTimeout)
	})

	env.It("picks the task by the taskId parameter, not by related-task metadata naming another task", "TASKS-META-003", func(ctx SpecContext) {
		a := env.Sleep(ctx, 0)
		b := env.Sleep(ctx, 0)
		cctx, cancel := context.WithTimeout(ctx, env.scaled(answerTimeout))
		defer cancel()
		raw, err := env.A.Call(cctx, wire.MethodTasksGet, map[string]any{
			"taskId": a.Task.TaskID,
			"_meta":  map[string]any{wire.MetaRelatedTask: map[string]string{"taskId": b.Task.TaskID}},
		})
		var rpc *client.RPCError
		if err != nil && !errors.As(err, &rpc) && !connectionLost(err) {
			// No answer at all: the metadata was not ignored, which is
			// TASKS-META-005's rule; which task the answer names cannot
			// be seen.
			NotSupported("tasks/get with related-task metadata naming another task got no answer on its own stream (%v); "+
				"a server that lets the metadata decide where the answer goes is judged by TASKS-META-005", err)
		}
		checkCall(err, "tasks/get with related-task metadata naming another task")
		var t schema.Task
		Expect(json.Unmarshal(raw, &t)).To(Succeed())
		Expect(t.TaskID).To(Equal(a.Task.TaskID), "tasks/get followed the related-task metadata instead of taskId")
	})

	env.It("answers tasks/get with the data of the task it names", "TASKS-META-003", func(ctx SpecContext) {
		a := env.CreateOn(ctx, env.A, env.TaskSleep(), map[string]any{"ms": 0}, ptr(int64(61000)))
		env.Await(ctx, a.Task.TaskID)
		// A visible gap, so that two tasks never share a createdAt.
		time.Sleep(env.scaled(60 * time.Millisecond))
		b := env.CreateOn(ctx, env.A, env.TaskSleep(), map[string]any{"ms": 5000}, ptr(int64(62000)))
		for round := 0; round < 2; round++ {
			for _, want := range []*schema.CreateTaskResult{a, b} {
				got, err := env.A.GetTask(ctx, want.Task.TaskID)
				checkCall(err, "tasks/get %s", want.Task.TaskID)
				Expect(got.TaskID).To(Equal(want.Task.TaskID), "tasks/get for %s answered with the task %s", want.Task.TaskID, got.TaskID)
				wantAt, _ := env.taskTimes(&want.Task, "CreateTaskResult")
				gotAt, _ := env.taskTimes(&got.Task, wire.MethodTasksGet)
				// Timestamps without fractions of a second can only be
				// compared to the second.
				tol := 5 * time.Millisecond
				if !strings.Contains(want.Task.CreatedAt, ".") || !strings.Contains(got.CreatedAt, ".") {
					tol = time.Second
				}
				Expect(gotAt).To(BeTemporally("~", wantAt, tol),
					"tasks/get for %s reports createdAt %s, but the task was created at %s: another task's data?", want.Task.TaskID, got.CreatedAt, want.Task.CreatedAt)
			}
		}
	})

	env.It("answers tasks/get with a JSON body rather than an event stream", "TASKS-INPUT-002", func(ctx SpecContext) {
		created := env.Sleep(ctx, 0)
		m, err := env.A.CallMessage(ctx, wire.MethodTasksGet, map[string]string{"taskId": created.Task.TaskID})
		Expect(err).NotTo(HaveOccurred())
		Expect(strings.HasPrefix(m.ContentType, "application/json")).To(BeTrue(), "tasks/get answered with Content-Type %q", m.ContentType)
	})
})
