package suites

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/client"
)

// answerTimeout bounds calls that must be answered at once (not blocking
// ones such as tasks/result), so a server that never answers fails the spec
// with a clear message instead of running into the spec timeout.
const answerTimeout = 10 * time.Second

var _ = describeServer("Polling with tasks/get", "poll", func(env *ServerEnv) {
	env.It("returns the task flat in the tasks/get result", "TASKS-WIRE-GET-001", func(ctx SpecContext) {
		created := env.Sleep(ctx, 0)
		raw, err := env.A.Call(ctx, "tasks/get", map[string]string{"taskId": created.Task.TaskID})
		Expect(err).NotTo(HaveOccurred())
		obj := rawTaskMembers(raw, false)
		Expect(obj).NotTo(HaveKey("task"), "tasks/get wraps the task")
		Expect(obj).To(HaveKey("taskId"))
		Expect(raw).To(ConformTo("GetTaskResult"))
		Expect(raw).To(ConformTo("Task"))
	})

	env.It("includes the ttl in force, or null, in every tasks/get result", "TASKS-TTL-004", func(ctx SpecContext) {
		for _, ttl := range []*int64{nil, ptr(int64(60000))} {
			created := env.CreateOn(ctx, env.A, env.TaskSleep(), map[string]any{"ms": 0}, ttl)
			raw, err := env.A.Call(ctx, "tasks/get", map[string]string{"taskId": created.Task.TaskID})
			Expect(err).NotTo(HaveOccurred())
			expectTTLMember(rawTaskMembers(raw, false), "tasks/get")
		}
	})

	env.It("keeps lastUpdatedAt in RFC 3339, never before createdAt and never going back", "TASKS-TTL-002", func(ctx SpecContext) {
		created := env.Sleep(ctx, 300)
		var last time.Time
		env.AwaitOn(ctx, env.A, created.Task.TaskID, func(t *client.Task) {
			_, updated := taskTimes(t, "tasks/get")
			Expect(updated.Before(last)).To(BeFalse(), "lastUpdatedAt went back from %s to %s", last, updated)
			last = updated
		})
	})

	env.It("moves tasks only along the allowed status edges", "TASKS-LIFE-002", func(ctx SpecContext) {
		created := env.Sleep(ctx, 300)
		prev := tasks.Status(created.Task.Status)
		Expect(prev.Valid()).To(BeTrue(), "unknown status %q", prev)
		env.AwaitOn(ctx, env.A, created.Task.TaskID, func(t *client.Task) {
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
		if env.Caps.Cancel {
			_, err := env.A.CancelTask(ctx, created.Task.TaskID)
			Expect(err).To(HaveOccurred(), "tasks/cancel on a %s task succeeded", final.Status)
		}
		for i := 0; i < 3; i++ {
			t, err := env.A.GetTask(ctx, created.Task.TaskID)
			Expect(err).NotTo(HaveOccurred())
			Expect(t.Status).To(Equal(final.Status), "a %s task changed status", final.Status)
			time.Sleep(20 * time.Millisecond)
		}
	})

	env.It("suggests pollInterval, when it does, as a non-negative integer", "TASKS-TTL-006", func(ctx SpecContext) {
		created := env.Sleep(ctx, 0)
		raw, err := env.A.Call(ctx, "tasks/get", map[string]string{"taskId": created.Task.TaskID})
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
		raw, err := env.A.Call(ctx, "tasks/get", map[string]string{"taskId": created.Task.TaskID})
		Expect(err).NotTo(HaveOccurred())
		Expect(hasRelatedTask(raw)).To(BeFalse(), "tasks/get result carries related-task metadata")
		if env.Caps.List {
			raw, err := env.A.Call(ctx, "tasks/list", nil)
			Expect(err).NotTo(HaveOccurred())
			Expect(hasRelatedTask(raw)).To(BeFalse(), "tasks/list result carries related-task metadata")
		}
		if env.Caps.Cancel {
			slow := env.Running(ctx, 5000)
			raw, err := env.A.Call(ctx, "tasks/cancel", map[string]string{"taskId": slow.Task.TaskID})
			env.cancelOK(ctx, err, slow.Task.TaskID, "tasks/cancel")
			Expect(hasRelatedTask(raw)).To(BeFalse(), "tasks/cancel result carries related-task metadata")
		}
	})

	env.It("goes by the taskId parameter and ignores related-task metadata in the request", "TASKS-META-005", func(ctx SpecContext) {
		created := env.Sleep(ctx, 0)
		cctx, cancel := context.WithTimeout(ctx, answerTimeout)
		defer cancel()
		raw, err := env.A.Call(cctx, "tasks/get", map[string]any{
			"taskId": created.Task.TaskID,
			"_meta":  map[string]any{client.RelatedTaskKey: map[string]string{"taskId": "mcptasks-no-such-task"}},
		})
		Expect(err).NotTo(HaveOccurred(), "tasks/get with misleading related-task metadata")
		var t client.Task
		Expect(json.Unmarshal(raw, &t)).To(Succeed())
		Expect(t.TaskID).To(Equal(created.Task.TaskID))
	})

	env.It("picks the task by the taskId parameter, not by related-task metadata naming another task", "TASKS-META-003", func(ctx SpecContext) {
		a := env.Sleep(ctx, 0)
		b := env.Sleep(ctx, 0)
		cctx, cancel := context.WithTimeout(ctx, answerTimeout)
		defer cancel()
		raw, err := env.A.Call(cctx, "tasks/get", map[string]any{
			"taskId": a.Task.TaskID,
			"_meta":  map[string]any{client.RelatedTaskKey: map[string]string{"taskId": b.Task.TaskID}},
		})
		Expect(err).NotTo(HaveOccurred(), "tasks/get with related-task metadata naming another task (no answer within %s means it was not answered on its own)", answerTimeout)
		var t client.Task
		Expect(json.Unmarshal(raw, &t)).To(Succeed())
		Expect(t.TaskID).To(Equal(a.Task.TaskID), "tasks/get followed the related-task metadata instead of taskId")
	})

	env.It("answers tasks/get with a JSON body rather than an event stream", "TASKS-INPUT-002", func(ctx SpecContext) {
		created := env.Sleep(ctx, 0)
		m, err := env.A.CallMessage(ctx, "tasks/get", map[string]string{"taskId": created.Task.TaskID})
		Expect(err).NotTo(HaveOccurred())
		Expect(strings.HasPrefix(m.ContentType, "application/json")).To(BeTrue(), "tasks/get answered with Content-Type %q", m.ContentType)
	})
})
