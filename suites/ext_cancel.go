package suites

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/schema/exttasks"
)

var _ = describeServer("2026-07-28: cancellation", "ext-cancel", func(env *ServerEnv) {
	cancel := func(ctx SpecContext, id string) *extReply {
		GinkgoHelper()
		return env.extCall(ctx, exttasks.MethodCancel, map[string]any{"taskId": id})
	}

	env.It("acknowledges tasks/cancel with an empty result", "EXT-CANCEL-003", func(ctx SpecContext) {
		id, _ := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 5000})
		ack := cancel(ctx, id)
		Expect(ack.Error).To(BeNil(), "tasks/cancel of a running task: %s", ack)
		for _, k := range ack.members() {
			Expect([]string{"resultType", "_meta"}).To(ContainElement(k), "the tasks/cancel acknowledgement carries %q: %s", k, ack)
		}
	})

	env.It("marks the tasks/cancel acknowledgement resultType complete", "EXT-CANCEL-009", func(ctx SpecContext) {
		id, _ := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 5000})
		ack := cancel(ctx, id)
		Expect(ack.Error).To(BeNil(), "tasks/cancel: %s", ack)
		Expect(ack.str("resultType")).To(Equal("complete"), "tasks/cancel: %s", ack)
	})

	env.It("answers tasks/cancel for an unknown taskId with an error", "EXT-CANCEL-004", func(ctx SpecContext) {
		r := cancel(ctx, "00000000-0000-4000-8000-000000000000")
		Expect(r.Error).NotTo(BeNil(), "tasks/cancel of an unknown taskId was acknowledged: %s", r)
	})

	env.It("acknowledges a cancel of a finished task and keeps its status", "EXT-CANCEL-010", func(ctx SpecContext) {
		id, _ := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 50})
		final := env.extTerminalReply(ctx, id).str("status")
		ack := cancel(ctx, id)
		Expect(ack.Error).To(BeNil(), "tasks/cancel of a %s task (EXT-DISC-09): %s", final, ack)
		Expect(env.extGet(ctx, id).str("status")).To(Equal(final), "a cancel changed a terminal task")
	})

	env.It("shows a task it cancelled as cancelled, or as the terminal status its work reached first", "EXT-GET-009", func(ctx SpecContext) {
		id, _ := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 5000})
		Expect(cancel(ctx, id).Error).To(BeNil())
		last := env.extTerminalReply(ctx, id)
		if last.str("status") == stCancelled {
			expectTaskShape(last.Result, "a cancelled task")
			Expect(last.has("result")).To(BeFalse(), "a cancelled task carries a result: %s", last)
		}
	})
})
