package suites

import (
	"encoding/json"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/schema/exttasks"
	"github.com/mcptasks/mcptasks/tasks/client"
)

var _ = describeServer("2026-07-28: backward compatibility with 2025-11-25", "ext-compat", func(env *ServerEnv) {
	env.It("answers the removed tasks/result with -32601 and HTTP 404", "EXT-COMPAT-005", func(ctx SpecContext) {
		id, _ := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 100})
		r := env.extCall(ctx, "tasks/result", map[string]any{"taskId": id})
		expectExtError(r, -32601, http.StatusNotFound, "tasks/result")
	})

	env.It("answers the removed tasks/list with -32601 and HTTP 404", "EXT-COMPAT-006", func(ctx SpecContext) {
		r := env.extCall(ctx, "tasks/list", map[string]any{})
		expectExtError(r, -32601, http.StatusNotFound, "tasks/list")
	})

	env.It("ignores a legacy params.task on tools/call", "EXT-COMPAT-007", func(ctx SpecContext) {
		legacy := map[string]any{"ttl": 60000, "pollInterval": 1000}
		forbidden := env.extTool(FixtureForbidden)
		for _, caps := range []json.RawMessage{capsFull, capsNoExt} {
			r := env.extDo(ctx, extRequest{Method: "tools/call", Caps: caps, Params: map[string]any{"name": forbidden, "arguments": map[string]any{}, "task": legacy}})
			Expect(r.Error).To(BeNil(), "tools/call of the forbidden fixture with a legacy task member: %s", r)
			if r.str("resultType") == exttasks.ResultTypeTask && string(caps) == string(capsFull) {
				NotApplicable("the server makes tasks of the forbidden fixture")
			}
			expectNoTask(r, "tools/call of the forbidden fixture with a legacy task member")
		}
		sleep := env.extTool(FixtureSleep)
		r := env.extDo(ctx, extRequest{Method: "tools/call", Caps: capsNoExt, Params: map[string]any{"name": sleep,
			"arguments": env.Config.FixtureArguments(FixtureSleep, map[string]any{"ms": 100}), "task": legacy}})
		Expect(r.Error).To(BeNil(), "tools/call of the sleep fixture with a legacy task member and no extension: %s", r)
		expectNoTask(r, "tools/call of the sleep fixture with a legacy task member and no extension")
	})

	env.It("counts a request declaring only the legacy tasks capability as not declaring the extension", "EXT-COMPAT-003", func(ctx SpecContext) {
		legacyCaps := json.RawMessage(`{"tasks":{"requests":{"elicitation":{"create":{}}}},"elicitation":{"form":{}}}`)
		r := env.extToolCall(ctx, FixtureSleep, map[string]any{"ms": 100}, legacyCaps)
		expectNoTask(r, "tools/call declaring only the legacy tasks capability")
		g := env.extDo(ctx, extRequest{Method: exttasks.MethodGet, Caps: legacyCaps, Params: map[string]any{"taskId": "gate-test"}})
		expectExtError(g, -32021, 0, "tasks/get declaring only the legacy tasks capability")
	})

	env.It("refuses initialize with an error naming 2026-07-28 when it speaks only 2026-07-28", "EXT-COMPAT-016", func(ctx SpecContext) {
		r := env.extDo(ctx, extRequest{Method: "initialize", NoMeta: true,
			Params: map[string]any{"protocolVersion": string(Protocol2025), "capabilities": map[string]any{},
				"clientInfo": map[string]string{"name": "mcptasks-conformance", "version": "suite"}},
			Headers: map[string]string{client.HeaderProtocolVersion: "", "Mcp-Method": ""}})
		if r.Error == nil {
			NotApplicable("the server accepts a 2025-11-25 initialize, so it speaks 2025-11-25 too; the rule is for a server that speaks only 2026-07-28: %s", r)
		}
		said := r.Error.Message + " " + string(r.Error.Data)
		Expect(said).To(ContainSubstring(string(Protocol2026)), "initialize was refused without naming the supported version 2026-07-28: %s", r)
	})

	env.It("does not switch extension tasks on inside a 2025-11-25 session", "EXT-COMPAT-001", func(ctx SpecContext) {
		c := env.NewClient(env.Config.URLs[0], env.Config.Headers, client.WithCapabilities(json.RawMessage(
			`{"extensions":{"`+exttasks.ExtensionID+`":{}},"elicitation":{}}`)))
		if _, err := c.Connect(ctx); err != nil {
			HarnessError("cannot initialize a 2025-11-25 session: %v", err)
		}
		raw, err := c.Call(ctx, "tools/call", map[string]any{"name": env.extTool(FixtureSleep),
			"arguments": env.Config.FixtureArguments(FixtureSleep, map[string]any{"ms": 100})})
		Expect(err).NotTo(HaveOccurred(), "a plain tools/call on a 2025-11-25 session")
		var m map[string]json.RawMessage
		Expect(json.Unmarshal(raw, &m)).To(Succeed())
		Expect(m).NotTo(HaveKey("taskId"), "a 2025-11-25 session got a flat extension task: %s", raw)
		Expect(m).NotTo(HaveKey("task"), "a plain 2025-11-25 call got a task: %s", raw)
		Expect(string(m["resultType"])).NotTo(Equal(`"task"`), "a 2025-11-25 session got resultType task: %s", raw)
	})

})
