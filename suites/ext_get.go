package suites

import (
	"encoding/json"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/schema/exttasks"
)

// stripResult drops _meta and resultType from a CallToolResult, which
// may differ between a synchronous answer and the result inlined in a
// task (EXT-DISC-32).
func stripResult(raw json.RawMessage) map[string]any {
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	delete(m, "_meta")
	delete(m, "resultType")
	return m
}

var _ = describeServer("2026-07-28: polling and outcomes", "ext-get", func(env *ServerEnv) {
	env.It("shows a running task as working under its own taskId", "EXT-GET-005", func(ctx SpecContext) {
		id, _ := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 3000})
		r := env.extGet(ctx, id)
		Expect(r.Error).To(BeNil(), "tasks/get: %s", r)
		Expect(r.str("taskId")).To(Equal(id), "tasks/get: %s", r)
		Expect([]string{stWorking, stCompleted}).To(ContainElement(r.str("status")), "a 3 s sleep task polled at once: %s", r)
	})

	env.It("inlines the result of a completed task", "EXT-GET-008", func(ctx SpecContext) {
		id, _ := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 100})
		last := env.extTerminalReply(ctx, id)
		Expect(last.str("status")).To(Equal(stCompleted), "a sleep task: %s", last)
		var res struct {
			Content []json.RawMessage `json:"content"`
		}
		Expect(isObject(last.field("result"))).To(BeTrue(), "a completed task without a result object: %s", last)
		Expect(json.Unmarshal(last.field("result"), &res)).To(Succeed())
		Expect(res.Content).NotTo(BeNil(), "the inlined CallToolResult has no content array: %s", last)
	})

	env.It("inlines a result object whose resultType, when present, is complete", "EXT-WIRE-013", func(ctx SpecContext) {
		id, _ := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 100})
		last := env.extTerminalReply(ctx, id)
		Expect(last.str("status")).To(Equal(stCompleted), "a sleep task: %s", last)
		var res map[string]json.RawMessage
		Expect(json.Unmarshal(last.field("result"), &res)).To(Succeed(), "the completed task's result is not an object: %s", last)
		if rt, ok := res["resultType"]; ok {
			Expect(string(rt)).To(Equal(`"complete"`), "the inlined result's resultType (EXT-DISC-13): %s", last)
		}
	})

	env.It("answers every tasks/get with resultType complete", "EXT-GET-011", func(ctx SpecContext) {
		for _, role := range []Role{FixtureSleep, FixtureRPCError} {
			id, _ := env.extCreate(ctx, role, map[string]any{"ms": 200})
			for _, r := range env.extPollUntil(ctx, id, extTerminal) {
				Expect(r.str("resultType")).To(Equal("complete"), "tasks/get of a %s task: %s", role, r)
			}
		}
	})

	env.It("shows a task whose work raised a JSON-RPC error as failed with that error", "EXT-GET-010", func(ctx SpecContext) {
		id, _ := env.extCreate(ctx, FixtureRPCError, map[string]any{"ms": 100})
		last := env.extTerminalReply(ctx, id)
		Expect(last.str("status")).To(Equal(stFailed), "an rpc_error task: %s", last)
		var e struct {
			Code    *float64 `json:"code"`
			Message *string  `json:"message"`
		}
		Expect(json.Unmarshal(last.field("error"), &e)).To(Succeed(), "a failed task without an error object: %s", last)
		Expect(e.Code).NotTo(BeNil(), "error.code missing: %s", last)
		Expect(*e.Code).To(Equal(float64(int64(*e.Code))), "error.code is not an integer: %s", last)
		Expect(e.Message).NotTo(BeNil(), "error.message missing: %s", last)
		Expect(last.has("result")).To(BeFalse(), "a failed task also carries a result: %s", last)
	})

	env.It("never ends a task whose tool reported isError as failed", "EXT-ERR-009", func(ctx SpecContext) {
		id, _ := env.extCreate(ctx, FixtureToolError, map[string]any{"ms": 100})
		last := env.extTerminalReply(ctx, id)
		Expect(last.str("status")).NotTo(Equal(stFailed), "a task whose tool result had isError: %s", last)
	})

	env.It("ends a task whose tool reported isError as completed with that result", "EXT-ERR-010", func(ctx SpecContext) {
		id, _ := env.extCreate(ctx, FixtureToolError, map[string]any{"ms": 100})
		last := env.extTerminalReply(ctx, id)
		Expect(last.str("status")).To(Equal(stCompleted), "a tool_error task: %s", last)
		var res struct {
			IsError bool `json:"isError"`
		}
		Expect(json.Unmarshal(last.field("result"), &res)).To(Succeed(), "no result: %s", last)
		Expect(res.IsError).To(BeTrue(), "the inlined result lost isError: %s", last)
	})

	env.It("reports a tool's own error as a result with isError, not as a JSON-RPC error", "EXT-ERR-016", func(ctx SpecContext) {
		sync := env.extToolCall(ctx, FixtureToolError, map[string]any{"ms": 0}, capsNoExt)
		Expect(sync.Error).To(BeNil(), "the tool_error fixture, called without the extension, came back as a JSON-RPC error: %s", sync)
		var res struct {
			IsError bool `json:"isError"`
		}
		Expect(json.Unmarshal(sync.Result, &res)).To(Succeed(), "no result: %s", sync)
		Expect(res.IsError).To(BeTrue(), "the tool_error fixture's result lacks isError true: %s", sync)
	})

	env.It("answers tasks/get for an unknown or empty taskId with -32602", "EXT-ERR-001", func(ctx SpecContext) {
		for _, id := range []string{"00000000-0000-4000-8000-000000000000", ""} {
			r := env.extGet(ctx, id)
			expectExtError(r, -32602, 0, "tasks/get of taskId "+id)
		}
	})

	env.It("answers tasks/update and tasks/cancel for an unknown taskId with -32602", "EXT-ERR-002", func(ctx SpecContext) {
		id := "00000000-0000-4000-8000-000000000000"
		r := env.extCall(ctx, exttasks.MethodUpdate, map[string]any{"taskId": id, "inputResponses": map[string]any{}})
		expectExtError(r, -32602, 0, "tasks/update of an unknown taskId")
		r = env.extCall(ctx, exttasks.MethodCancel, map[string]any{"taskId": id})
		expectExtError(r, -32602, 0, "tasks/cancel of an unknown taskId")
	})

	env.It("refuses tasks/* without the extension with -32021 and HTTP 400, known task or not", "EXT-ERR-004", func(ctx SpecContext) {
		real, _ := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 2000})
		for _, id := range []string{"gate-test", real} {
			for _, m := range []string{exttasks.MethodGet, exttasks.MethodUpdate, exttasks.MethodCancel} {
				params := map[string]any{"taskId": id}
				if m == exttasks.MethodUpdate {
					params["inputResponses"] = map[string]any{}
				}
				r := env.extDo(ctx, extRequest{Method: m, Caps: json.RawMessage(`{}`), Params: params})
				expectExtError(r, -32021, http.StatusBadRequest, m+" without the extension")
				_, ok := requiredExtension(r.Error)
				Expect(ok).To(BeTrue(), "the -32021 of %s does not name the tasks extension: %s", m, r)
			}
		}
		Expect(env.extGet(ctx, real).str("status")).NotTo(Equal(stCancelled), "a refused tasks/cancel cancelled the task")
	})

	env.It("needs params.taskId on tasks/get, tasks/update and tasks/cancel", "EXT-GET-016", func(ctx SpecContext) {
		for _, m := range []string{exttasks.MethodGet, exttasks.MethodUpdate, exttasks.MethodCancel} {
			r := env.extCall(ctx, m, map[string]any{})
			expectExtError(r, -32602, 0, m+" without taskId")
		}
	})

	env.It("explains a failed task in statusMessage", "EXT-ERR-007", func(ctx SpecContext) {
		id, _ := env.extCreate(ctx, FixtureRPCError, map[string]any{"ms": 50})
		last := env.extTerminalReply(ctx, id)
		Expect(last.str("status")).To(Equal(stFailed), "an rpc_error task: %s", last)
		Expect(last.str("statusMessage")).NotTo(BeEmpty(), "a failed task without statusMessage: %s", last)
	})
})
