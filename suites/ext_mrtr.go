package suites

import (
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/schema/exttasks"
	"github.com/mcptasks/mcptasks/schema/v20260728"
)

var _ = describeServer("2026-07-28: multi-round-trip tools/call before a task", "ext-mrtr", func(env *ServerEnv) {
	args := map[string]any{"question": "conformance?"}
	// call sends a tools/call of the mrtr_then_task fixture with extra
	// params (inputResponses, requestState).
	call := func(ctx SpecContext, extra map[string]any) *extReply {
		GinkgoHelper()
		params := map[string]any{"name": env.extTool(FixtureMRTRThenTask), "arguments": env.Config.FixtureArguments(FixtureMRTRThenTask, args)}
		for k, v := range extra {
			params[k] = v
		}
		r := env.extDo(ctx, extRequest{Method: "tools/call", Params: params})
		if r.Error != nil && r.Error.Code == -32602 && strings.Contains(strings.ToLower(r.Error.Message), "unknown tool") {
			NotSupported("the server has no %s fixture tool: %s", FixtureMRTRThenTask, r.Error.Message)
		}
		if r.str("resultType") == exttasks.ResultTypeTask {
			env.ext.mu.Lock()
			env.ext.created = append(env.ext.created, extCreated{id: r.str("taskId"), headers: env.Config.Headers})
			env.ext.mu.Unlock()
		}
		return r
	}
	// round1 is the first call; a server whose fixture does not answer it
	// with an InputRequiredResult makes the spec not-applicable.
	round1 := func(ctx SpecContext) *extReply {
		GinkgoHelper()
		r := call(ctx, nil)
		if r.Error != nil {
			NotApplicable("the %s fixture answered its first call with an error, so no InputRequiredResult can be judged: %s", FixtureMRTRThenTask, r)
		}
		if rt := r.str("resultType"); rt != "input_required" {
			NotApplicable("the %s fixture answered its first call with resultType %q, not input_required: %s", FixtureMRTRThenTask, rt, r)
		}
		return r
	}
	// retry answers every input request of r (accepting each form) and
	// echoes r's requestState, if any.
	retry := func(ctx SpecContext, r *extReply, answer bool) *extReply {
		GinkgoHelper()
		extra := map[string]any{}
		if answer {
			responses := map[string]any{}
			for k, req := range inputRequests(r) {
				responses[k] = map[string]any{"action": "accept", "content": formAnswer(req.Params)}
			}
			extra["inputResponses"] = responses
		}
		if r.has("requestState") {
			extra["requestState"] = r.field("requestState")
		}
		return call(ctx, extra)
	}

	env.It("puts inputRequests, requestState or both in an InputRequiredResult", "EXT-MRTR-003", func(ctx SpecContext) {
		r := round1(ctx)
		Expect(r.has("inputRequests") || r.has("requestState")).To(BeTrue(),
			"an InputRequiredResult with neither inputRequests nor requestState: %s", r)
	})

	env.It("shapes an InputRequiredResult as the core schema says", "EXT-WIRE-038", func(ctx SpecContext) {
		r := round1(ctx)
		Expect(v20260728.Validate("InputRequiredResult", r.Result)).To(Succeed(), "round 1: %s", r)
		Expect(r.has("inputRequests") || r.has("requestState")).To(BeTrue(),
			"an InputRequiredResult must carry inputRequests or requestState: %s", r)
	})

	env.It("ends the multi-round-trip rounds before it creates the task", "EXT-MRTR-001", func(ctx SpecContext) {
		r := round1(ctx)
		Expect(r.has("taskId")).To(BeFalse(), "an InputRequiredResult carries a taskId: %s", r)
		Expect(inputRequests(r)).NotTo(BeEmpty(), "round 1 asks for nothing the retry could answer: %s", r)
		var answers []string
		for _, req := range inputRequests(r) {
			for _, v := range formAnswer(req.Params) {
				if s, ok := v.(string); ok {
					answers = append(answers, s)
				}
			}
		}
		r2 := retry(ctx, r, true)
		Expect(r2.Error).To(BeNil(), "the retry with the answers failed: %s", r2)
		Expect(r2.str("resultType")).To(Equal(exttasks.ResultTypeTask), "the retry with every answer did not create the task: %s", r2)
		Expect(r2.has("requestState")).To(BeFalse(), "the CreateTaskResult carries a requestState: %s", r2)
		Expect(r2.has("inputRequests")).To(BeFalse(), "the CreateTaskResult carries inputRequests: %s", r2)
		last := env.extTerminalReply(ctx, r2.str("taskId"))
		Expect(last.str("status")).To(Equal(stCompleted), "the task made after the rounds: %s", last)
		for _, a := range answers {
			Expect(string(last.field("result"))).To(ContainSubstring(a), "the task's result does not carry the answer given before it existed: %s", last)
		}
	})

	env.It("asks again when a retry lacks the answers it needs", "EXT-MRTR-012", func(ctx SpecContext) {
		r := round1(ctx)
		if len(inputRequests(r)) == 0 {
			NotApplicable("round 1 asked for nothing, so a retry cannot lack an answer: %s", r)
		}
		r2 := retry(ctx, r, false)
		Expect(r2.Error).To(BeNil(), "a retry without the answers was refused instead of asked again: %s", r2)
		Expect(r2.str("resultType")).To(Equal("input_required"), "a retry without the answers: %s", r2)
		var asked map[string]json.RawMessage
		_ = json.Unmarshal(r2.field("inputRequests"), &asked)
		Expect(asked).NotTo(BeEmpty(), "the retry without answers is asked for nothing: %s", r2)
	})
})
