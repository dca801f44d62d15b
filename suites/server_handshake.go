package suites

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/tasks/client"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

var _ = describeServer("Handshake and capabilities", "handshake", func(env *ServerEnv) {
	env.It("answers initialize with protocolVersion, capabilities and serverInfo", "TASKS-INIT-003", func(ctx SpecContext) {
		var res map[string]json.RawMessage
		Expect(json.Unmarshal(env.A.InitializeResult(), &res)).To(Succeed())
		for _, k := range []string{"protocolVersion", "capabilities", "serverInfo"} {
			Expect(res).To(HaveKey(k), "InitializeResult lacks %s", k)
		}
		Expect(env.A.InitializeResult()).To(ConformTo("InitializeResult"))
	})

	env.It("accepts the proposed 2025-11-25 revision as is", "TASKS-INIT-009", func(ctx SpecContext) {
		Expect(env.Init.ProtocolVersion).To(Equal(client.ProtocolVersion))
	})

	env.It("answers an unknown proposed version with a version it supports", "TASKS-INIT-010", func(ctx SpecContext) {
		c := env.NewClient(env.Config.URLs[0], env.Config.Headers, client.WithProtocolVersion("2099-01-01"))
		raw, err := c.Call(ctx, wire.MethodInitialize, map[string]any{
			"protocolVersion": "2099-01-01",
			"capabilities":    map[string]any{},
			"clientInfo":      map[string]string{"name": "mcptasks-conformance", "version": "suite"},
		})
		Expect(err).NotTo(HaveOccurred(), "initialize with an unknown version must still succeed with another version (an error reply matches the lifecycle error example, which contradicts the negotiation rule)")
		var res struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		Expect(json.Unmarshal(raw, &res)).To(Succeed())
		Expect(res.ProtocolVersion).NotTo(BeEmpty())
		Expect(res.ProtocolVersion).NotTo(Equal("2099-01-01"), "the server echoed a version it cannot support")
	})

	env.It("offers the newest supported version when the proposal is unknown", "TASKS-INIT-011", func(ctx SpecContext) {
		c := env.NewClient(env.Config.URLs[0], env.Config.Headers)
		raw, err := c.Call(ctx, wire.MethodInitialize, map[string]any{
			"protocolVersion": "2099-01-01",
			"capabilities":    map[string]any{},
			"clientInfo":      map[string]string{"name": "mcptasks-conformance", "version": "suite"},
		})
		if err != nil {
			NotApplicable("the server refused the unknown version (reported under TASKS-INIT-010)")
		}
		var res struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		Expect(json.Unmarshal(raw, &res)).To(Succeed())
		Expect(res.ProtocolVersion).To(Equal(client.ProtocolVersion), "a tasks-capable server should fall back to 2025-11-25")
	})

	env.It("declares a tasks capability whenever it accepts task-augmented calls", "TASKS-CAP-001", func(ctx SpecContext) {
		role := env.TaskSleep()
		_, err := env.A.CallToolAsTask(ctx, env.Config.ToolName(role), env.Args(role, map[string]any{"ms": 0}), nil)
		if err != nil {
			// No task was created, so the rule (creating tasks requires
			// declaring them) is kept whatever was declared; a declared
			// capability whose calls fail is judged by the creation specs.
			checkCall(errIfLost(err), "tools/call %s with a task", env.Config.ToolName(role))
			if env.Caps.ToolsCall {
				NotSupported("the task-augmented call of the %s fixture failed (%v), so no task was created to judge the declaration by", role, err)
			}
			return
		}
		Expect(env.Caps.Tasks).To(BeTrue(), "a task was created but initialize declared no capabilities.tasks")
		Expect(env.Caps.ToolsCall).To(BeTrue(), "a task was created but capabilities.tasks.requests.tools.call is missing")
	})

	env.It("declares each tasks capability member as an object", "TASKS-WIRE-SCAP-001", func(ctx SpecContext) {
		if !env.Caps.Tasks {
			NotApplicable("the server declares no tasks capability")
		}
		var res struct {
			Capabilities struct {
				Tasks map[string]json.RawMessage `json:"tasks"`
			} `json:"capabilities"`
		}
		Expect(json.Unmarshal(env.A.InitializeResult(), &res)).To(Succeed())
		for _, k := range []string{"list", "cancel"} {
			if raw, ok := res.Capabilities.Tasks[k]; ok {
				Expect(strings.TrimSpace(string(raw))).To(HavePrefix("{"), "capabilities.tasks.%s is %s, not an object", k, raw)
			}
		}
		if raw, ok := res.Capabilities.Tasks["requests"]; ok {
			var req map[string]map[string]json.RawMessage
			Expect(json.Unmarshal(raw, &req)).To(Succeed(), "capabilities.tasks.requests is not an object of objects: %s", raw)
			if call, ok := req["tools"]["call"]; ok {
				Expect(strings.TrimSpace(string(call))).To(HavePrefix("{"), "capabilities.tasks.requests.tools.call is %s, not an object", call)
			}
		}
		Expect(mustMember(env.A.InitializeResult(), "capabilities")).To(ConformTo("ServerCapabilities"))
	})

	env.It("declares the tools capability when it offers task-augmented tools", "TASKS-TOOLDEF-001", func(ctx SpecContext) {
		Expect(env.Caps.Tools).To(BeTrue(), "tasks.requests.tools.call is declared without capabilities.tools")
	})

	env.It("issues session ids made only of visible ASCII", "TASKS-XPORT-035", func(ctx SpecContext) {
		sid := env.A.SessionID()
		if sid == "" {
			NotApplicable("the server assigns no Mcp-Session-Id")
		}
		for i := 0; i < len(sid); i++ {
			Expect(sid[i] >= 0x21 && sid[i] <= 0x7e).To(BeTrue(), "Mcp-Session-Id byte %d is 0x%02x", i, sid[i])
		}
	})

	env.It("rejects a request with an unsupported MCP-Protocol-Version header with HTTP 400", "TASKS-XPORT-047", func(ctx SpecContext) {
		for _, v := range []string{"1999-01-01", "garbage"} {
			_, err := env.A.Call(ctx, wire.MethodPing, nil, client.WithCallHeader(client.HeaderProtocolVersion, v))
			var he *client.HTTPError
			Expect(errors.As(err, &he)).To(BeTrue(), "MCP-Protocol-Version %q: expected HTTP 400, got %s", v, outcome(err))
			Expect(he.StatusCode).To(Equal(http.StatusBadRequest), "MCP-Protocol-Version %q", v)
		}
	})

	env.It("answers a GET on the endpoint with an event stream or 405", "TASKS-XPORT-023", func(ctx SpecContext) {
		err := env.A.OpenStream(ctx)
		if errors.Is(err, client.ErrNoStream) {
			return
		}
		Expect(err).NotTo(HaveOccurred(), "GET on the MCP endpoint must give text/event-stream or 405")
	})

	env.It("answers an accepted notification with HTTP 202 and no body", "TASKS-XPORT-008", func(ctx SpecContext) {
		rr, err := env.A.NotifyRaw(ctx, wire.NotificationCancelled, map[string]any{"requestId": "never-sent", "reason": "conformance probe"})
		Expect(err).NotTo(HaveOccurred())
		Expect(rr.StatusCode).To(Equal(http.StatusAccepted))
		Expect(strings.TrimSpace(string(rr.Body))).To(BeEmpty())
	})
})

// errIfLost returns err when it is a broken connection, else nil.
func errIfLost(err error) error {
	if connectionLost(err) {
		return err
	}
	return nil
}

// mustMember returns one member of a JSON object (nil if absent).
func mustMember(obj json.RawMessage, key string) json.RawMessage {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(obj, &m)
	return m[key]
}
