package suites

import (
	"encoding/json"
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/tasks/client"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

var _ = describeServer("Tool negotiation", "tools", func(env *ServerEnv) {
	env.It("lists tools whose execution.taskSupport is forbidden, optional or required", "TASKS-WIRE-TOOLEXEC-001", func(ctx SpecContext) {
		Expect(env.Tools).NotTo(BeEmpty(), "tools/list returned no tools")
		for name, t := range env.Tools {
			Expect(t.TaskSupport()).To(BeElementOf(schema.ToolExecutionTaskSupportForbidden,
				schema.ToolExecutionTaskSupportOptional, schema.ToolExecutionTaskSupportRequired),
				"tool %q has execution.taskSupport %q", name, t.TaskSupport())
		}
	})

	env.It("refuses a plain call to a tool that requires tasks with -32601", "TASKS-TOOLNEG-006", func(ctx SpecContext) {
		name := env.Fixture(FixtureSleepRequired)
		res, err := env.A.CallTool(ctx, name, env.Args(FixtureSleepRequired, map[string]any{"ms": 0}))
		Expect(err).To(HaveOccurred(), "a plain call to %q (taskSupport required) was answered with a result instead of JSON-RPC error -32601: %s", name, truncateRaw(res))
		var rpc *client.RPCError
		Expect(errors.As(err, &rpc)).To(BeTrue(), "expected a JSON-RPC error, got %s", outcome(err))
		if rpc.Code == -32600 {
			env.failf("the server answered -32600 (Invalid request): this matches the example under Error Handling "+
				"but violates Tool-Level Negotiation, which requires -32601 for a required tool called without a task (message %q)", rpc.Message)
		}
		Expect(rpc.Code).To(BeEquivalentTo(-32601), "message %q", rpc.Message)
	})

	env.It("refuses a task-augmented call to a tool without task support with -32601", "TASKS-TOOLNEG-003", func(ctx SpecContext) {
		name := env.Fixture(FixtureForbidden)
		res, err := env.A.Call(ctx, wire.MethodToolsCall, client.ToolCall{Name: name, Arguments: env.Args(FixtureForbidden, map[string]any{}), Task: &client.TaskParams{}}.Params())
		Expect(err).To(HaveOccurred(), "a task-augmented call to %q (no task support) was accepted: %s", name, res)
		ExpectRPCError(err, -32601, "task-augmented call to a forbidden tool")
	})

	env.It("accepts an optional tool both plainly and as a task", "TASKS-TOOLNEG-004", func(ctx SpecContext) {
		name := env.Fixture(FixtureSleep)
		raw, err := env.A.CallTool(ctx, name, env.Args(FixtureSleep, map[string]any{"ms": 0}))
		Expect(err).NotTo(HaveOccurred(), "plain call")
		Expect(mustMember(raw, "task")).To(BeEmpty(), "a plain call was answered with a task")
		created := env.Sleep(ctx, 0)
		Expect(created.Task.TaskID).NotTo(BeEmpty())
	})

	env.It("processes a request type it does not augment normally, ignoring task", "TASKS-HANDLE-001", func(ctx SpecContext) {
		raw, err := env.A.Call(ctx, wire.MethodToolsList, map[string]any{"task": map[string]any{}})
		Expect(err).NotTo(HaveOccurred(), "tools/list with a task member must be processed normally")
		var res map[string]json.RawMessage
		Expect(json.Unmarshal(raw, &res)).To(Succeed())
		Expect(res).To(HaveKey("tools"), "tools/list with a task member did not return the tool list")
		Expect(res).NotTo(HaveKey("task"), "tools/list was turned into a task")
	})

	env.It("answers a call to an unknown tool with a JSON-RPC error, also as a task", "TASKS-TOOLDEF-006", func(ctx SpecContext) {
		name := "mcptasks_conformance_no_such_tool"
		_, err := env.A.Call(ctx, wire.MethodToolsCall, client.ToolCall{Name: name, Arguments: map[string]any{}, Task: &client.TaskParams{}}.Params())
		Expect(err).To(HaveOccurred(), "a task was created for an unknown tool")
		code, ok := client.ErrorCode(err)
		Expect(ok).To(BeTrue(), "expected a JSON-RPC error, got %s", outcome(err))
		Expect(code).To(BeElementOf(int64(-32601), int64(-32602)))
	})

	env.It("lists tools whose definitions, inputSchema included, are well formed", "TASKS-TOOLDEF-002", func(ctx SpecContext) {
		raw, err := env.A.Call(ctx, wire.MethodToolsList, nil)
		Expect(err).NotTo(HaveOccurred())
		var res struct {
			Tools []json.RawMessage `json:"tools"`
		}
		Expect(json.Unmarshal(raw, &res)).To(Succeed())
		for _, t := range res.Tools {
			Expect(t).To(ConformTo("Tool"))
			Expect(string(mustMember(t, "inputSchema"))).NotTo(Or(BeEmpty(), Equal("null")), "a tool has no inputSchema: %s", truncateRaw(t))
		}
	})

	env.It("never completes a task whose arguments break the tool's input schema", "TASKS-TOOLDEF-007", func(ctx SpecContext) {
		role := env.TaskSleep()
		name := env.Fixture(role)
		if env.Config.ArgName(role, "ms") == "" {
			NotSupported("the %q fixture's ms argument is left out, so it cannot be made invalid", role)
		}
		args := env.Args(role, map[string]any{"ms": "not a number"})
		res, err := env.A.CallToolAsTask(ctx, name, args, nil)
		if err != nil {
			_, isRPC := rpcCode(err)
			Expect(isRPC).To(BeTrue(), "expected a JSON-RPC error for invalid arguments, got %s", outcome(err))
			return
		}
		final := env.Await(ctx, res.Task.TaskID)
		if final.Status == "failed" || final.Status == "cancelled" {
			return
		}
		payload, err := env.A.Result(ctx, res.Task.TaskID)
		if err != nil {
			return
		}
		var r struct {
			IsError bool `json:"isError"`
		}
		Expect(json.Unmarshal(payload, &r)).To(Succeed())
		Expect(r.IsError).To(BeTrue(), "a task with arguments that break the input schema completed successfully: %s", truncateRaw(payload))
	})
})
