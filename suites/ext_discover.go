package suites

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/schema/exttasks"
	"github.com/mcptasks/mcptasks/schema/v20260728"
)

// extKeyGrammar is the _meta / extension key grammar of the 2026-07-28
// core: dot-separated labels, a slash, then a name that starts and ends
// with an alphanumeric character.
var extKeyGrammar = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*/([A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?)$`)

var _ = describeServer("2026-07-28: discovery and routing", "ext-discover", func(env *ServerEnv) {
	discover := func(ctx SpecContext) (*extReply, map[string]json.RawMessage) {
		r := env.extCall(ctx, "server/discover", nil)
		Expect(r.Error).To(BeNil(), "server/discover failed: %s", r)
		var caps map[string]json.RawMessage
		_ = json.Unmarshal(r.field("capabilities"), &caps)
		return r, caps
	}

	env.It("answers server/discover with a DiscoverResult naming 2026-07-28", "EXT-CAP-018", func(ctx SpecContext) {
		r, _ := discover(ctx)
		Expect(r.str("resultType")).To(Equal("complete"), "resultType of server/discover: %s", r)
		var versions []string
		Expect(json.Unmarshal(r.field("supportedVersions"), &versions)).To(Succeed(), "supportedVersions is not an array of strings: %s", r)
		Expect(versions).To(ContainElement(string(Protocol2026)), "supportedVersions: %s", r)
		Expect(isObject(r.field("capabilities"))).To(BeTrue(), "capabilities is not an object: %s", r)
		var ttl float64
		Expect(json.Unmarshal(r.field("ttlMs"), &ttl)).To(Succeed(), "ttlMs is missing or not a number: %s", r)
		Expect(ttl).To(BeNumerically(">=", 0), "ttlMs: %s", r)
		Expect(ttl).To(Equal(float64(int64(ttl))), "ttlMs is not an integer: %s", r)
		Expect(r.str("cacheScope")).NotTo(BeEmpty(), "cacheScope: %s", r)
	})

	env.It("lists the tasks extension under capabilities.extensions of server/discover", "EXT-CAP-004", func(ctx SpecContext) {
		r, caps := discover(ctx)
		var ext map[string]json.RawMessage
		_ = json.Unmarshal(caps["extensions"], &ext)
		Expect(ext).To(HaveKey(exttasks.ExtensionID), "capabilities.extensions: %s", r)
	})

	env.It("gives the tasks extension an object as its capability value", "EXT-WIRE-025", func(ctx SpecContext) {
		r, caps := discover(ctx)
		var ext map[string]json.RawMessage
		_ = json.Unmarshal(caps["extensions"], &ext)
		Expect(isObject(ext[exttasks.ExtensionID])).To(BeTrue(), "the extension's value is not an object: %s", r)
	})

	env.It("keys every advertised extension by a prefixed name", "EXT-CAP-020", func(ctx SpecContext) {
		r, caps := discover(ctx)
		var ext map[string]json.RawMessage
		_ = json.Unmarshal(caps["extensions"], &ext)
		for k := range ext {
			Expect(extKeyGrammar.MatchString(k)).To(BeTrue(), "extension key %q lacks a prefix or breaks the key grammar: %s", k, r)
		}
	})

	env.It("does not advertise the 2025-11-25 capabilities.tasks in server/discover", "EXT-COMPAT-009", func(ctx SpecContext) {
		r, caps := discover(ctx)
		Expect(caps).NotTo(HaveKey("tasks"), "server/discover advertises capabilities.tasks: %s", r)
	})

	env.It("answers an unknown protocol version with HTTP 400 and -32022 listing the supported versions", "EXT-XPORT-011", func(ctx SpecContext) {
		r := env.extDo(ctx, extRequest{Method: exttasks.MethodGet, Version: "1900-01-01", Params: map[string]any{"taskId": "x"}})
		expectExtError(r, -32022, http.StatusBadRequest, "tasks/get naming protocol version 1900-01-01")
		var d struct {
			Supported []string `json:"supported"`
			Requested string   `json:"requested"`
		}
		Expect(json.Unmarshal(r.Error.Data, &d)).To(Succeed(), "-32022 without data {supported, requested}: %s", r)
		Expect(d.Supported).To(ContainElement(string(Protocol2026)), "data.supported: %s", r)
		Expect(d.Requested).To(Equal("1900-01-01"), "data.requested: %s", r)
	})

	env.It("answers a method it does not implement with HTTP 404 and -32601", "EXT-XPORT-012", func(ctx SpecContext) {
		r := env.extCall(ctx, "tasks/bogus", map[string]any{"taskId": "x"})
		expectExtError(r, -32601, http.StatusNotFound, "tasks/bogus")
	})

	env.It("refuses a protocol version header that disagrees with _meta with HTTP 400 and -32020", "EXT-XPORT-010", func(ctx SpecContext) {
		id, _ := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 2000})
		r := env.extDo(ctx, extRequest{Method: exttasks.MethodGet, Params: map[string]any{"taskId": id},
			Headers: map[string]string{"Mcp-Protocol-Version": string(Protocol2025)}})
		expectExtError(r, -32020, http.StatusBadRequest, "tasks/get with header 2025-11-25 and _meta 2026-07-28")
	})

	env.It("refuses an Mcp-Method header that disagrees with the body with HTTP 400 and -32020", "EXT-XPORT-004", func(ctx SpecContext) {
		name := env.extTool(FixtureForbidden)
		r := env.extDo(ctx, extRequest{Method: "tools/call", Params: map[string]any{"name": name, "arguments": map[string]any{}},
			Headers: map[string]string{"Mcp-Method": exttasks.MethodGet}})
		expectExtError(r, -32020, http.StatusBadRequest, "tools/call sent with Mcp-Method: tasks/get")
		r = env.extDo(ctx, extRequest{Method: exttasks.MethodGet, Params: map[string]any{"taskId": "x"},
			Headers: map[string]string{"Mcp-Method": exttasks.MethodCancel}})
		expectExtError(r, -32020, http.StatusBadRequest, "tasks/get sent with Mcp-Method: tasks/cancel")
	})

	env.It("refuses an Mcp-Name header that differs from params.taskId with HTTP 400 and -32020", "EXT-XPORT-003", func(ctx SpecContext) {
		id, _ := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 2000})
		for _, m := range []string{exttasks.MethodGet, exttasks.MethodUpdate, exttasks.MethodCancel} {
			params := map[string]any{"taskId": id}
			if m == exttasks.MethodUpdate {
				params["inputResponses"] = map[string]any{}
			}
			r := env.extDo(ctx, extRequest{Method: m, Params: params, Headers: map[string]string{"Mcp-Name": "other-" + id}})
			expectExtError(r, -32020, http.StatusBadRequest, m+" with a mismatching Mcp-Name")
		}
		Expect(env.extGet(ctx, id).str("status")).NotTo(Equal(stCancelled), "a refused tasks/cancel cancelled the task")
	})

	env.It("decodes a Base64-sentinel Mcp-Name before comparing it with params.taskId", "EXT-XPORT-007", func(ctx SpecContext) {
		id, _ := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 2000})
		enc := func(s string) string { return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?=" }
		r := env.extDo(ctx, extRequest{Method: exttasks.MethodGet, Params: map[string]any{"taskId": id}, Headers: map[string]string{"Mcp-Name": enc(id)}})
		Expect(r.Error).To(BeNil(), "tasks/get with the Base64 form of the right taskId: %s", r)
		Expect(r.str("taskId")).To(Equal(id), "tasks/get with the Base64 form of the right taskId: %s", r)
		r = env.extDo(ctx, extRequest{Method: exttasks.MethodGet, Params: map[string]any{"taskId": id}, Headers: map[string]string{"Mcp-Name": enc("other-" + id)}})
		expectExtError(r, -32020, http.StatusBadRequest, "tasks/get with the Base64 form of another id")
	})

	env.It("compares header values case-sensitively", "EXT-XPORT-008", func(ctx SpecContext) {
		id, _ := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 2000})
		flipped := flipCase(id)
		if flipped == id {
			NotApplicable("the taskId %q has no letters whose case could be flipped", id)
		}
		r := env.extDo(ctx, extRequest{Method: exttasks.MethodGet, Params: map[string]any{"taskId": id}, Headers: map[string]string{"Mcp-Name": flipped}})
		expectExtError(r, -32020, http.StatusBadRequest, "tasks/get whose Mcp-Name differs from the taskId only in case")
	})

	env.It("answers a present Origin it does not accept with HTTP 403", "EXT-XPORT-020", func(ctx SpecContext) {
		r := env.extDo(ctx, extRequest{Method: "server/discover", Headers: map[string]string{"Origin": "https://evil.example"}})
		Expect(r.Status).To(Equal(http.StatusForbidden), "server/discover from Origin https://evil.example: %s", r)
	})

	env.It("answers a request without the required _meta with -32602 and HTTP 400", "EXT-BASE-011", func(ctx SpecContext) {
		r := env.extDo(ctx, extRequest{Method: exttasks.MethodGet, Params: map[string]any{"taskId": "x"}, Meta: map[string]any{
			v20260728.ProtocolVersionMetaKey: string(Protocol2026),
		}})
		expectExtError(r, -32602, http.StatusBadRequest, "tasks/get whose _meta lacks clientCapabilities")
	})

	env.It("puts serverInfo into the _meta of its results", "EXT-BASE-013", func(ctx SpecContext) {
		id, created := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 2000})
		for _, r := range []*extReply{env.extCall(ctx, "server/discover", nil), created, env.extGet(ctx, id)} {
			var meta map[string]json.RawMessage
			_ = json.Unmarshal(r.field("_meta"), &meta)
			var info struct{ Name, Version string }
			_ = json.Unmarshal(meta[v20260728.ServerInfoMetaKey], &info)
			Expect(info.Name).NotTo(BeEmpty(), "result without _meta serverInfo name: %s", r)
			Expect(info.Version).NotTo(BeEmpty(), "result without _meta serverInfo version: %s", r)
		}
	})

	env.It("answers task requests as application/json or as an event stream", "EXT-XPORT-016", func(ctx SpecContext) {
		id, _ := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 200})
		env.extTerminalReply(ctx, id)
		env.extCall(ctx, exttasks.MethodCancel, map[string]any{"taskId": id})
		for _, r := range env.extReplies() {
			ok := strings.HasPrefix(r.ContentType, "application/json") || strings.HasPrefix(r.ContentType, "text/event-stream")
			Expect(ok).To(BeTrue(), "%s answered with Content-Type %q", r.Method, r.ContentType)
		}
	})

	env.It("never answers server/discover or tools/list with a task", "EXT-CREATE-001", func(ctx SpecContext) {
		for _, m := range []string{"server/discover", "tools/list"} {
			r := env.extCall(ctx, m, nil)
			Expect(r.Error).To(BeNil(), "%s failed: %s", m, r)
			Expect(r.str("resultType")).NotTo(Equal(exttasks.ResultTypeTask), "%s answered with a task: %s", m, r)
		}
	})
})

// flipCase swaps the case of every ASCII letter.
func flipCase(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 32
		case r >= 'A' && r <= 'Z':
			return r + 32
		}
		return r
	}, s)
}
