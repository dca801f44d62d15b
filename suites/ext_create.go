package suites

import (
	"encoding/json"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/schema/exttasks"
	"github.com/mcptasks/mcptasks/schema/v20260728"
)

// taskMembers are the members every Task carries.
var taskMembers = []string{"taskId", "status", "createdAt", "lastUpdatedAt", "ttlMs"}

// expectTaskShape checks the Task members of a CreateTaskResult, a
// tasks/get result or notification params.
func expectTaskShape(raw json.RawMessage, what string) map[string]json.RawMessage {
	GinkgoHelper()
	var m map[string]json.RawMessage
	Expect(json.Unmarshal(raw, &m)).To(Succeed(), "%s is not an object: %s", what, raw)
	for _, k := range taskMembers {
		Expect(m).To(HaveKey(k), "%s lacks the Task member %q: %s", what, k, raw)
	}
	var id string
	Expect(json.Unmarshal(m["taskId"], &id)).To(Succeed(), "%s: taskId is not a string: %s", what, raw)
	var st string
	Expect(json.Unmarshal(m["status"], &st)).To(Succeed(), "%s: status is not a string: %s", what, raw)
	Expect([]string{stWorking, stInputRequired, stCompleted, stFailed, stCancelled}).To(ContainElement(st), "%s: status %q is none of the five", what, st)
	return m
}

// parseTime reads an RFC 3339 timestamp member.
func parseTime(m map[string]json.RawMessage, key, what string) time.Time {
	GinkgoHelper()
	var s string
	Expect(json.Unmarshal(m[key], &s)).To(Succeed(), "%s: %s is not a string", what, key)
	t, err := time.Parse(time.RFC3339Nano, s)
	Expect(err).NotTo(HaveOccurred(), "%s: %s %q is not an RFC 3339 timestamp", what, key, s)
	return t
}

// intOrNull reads a member that is an integer or null; ok is false for
// null.
func intOrNull(m map[string]json.RawMessage, key, what string) (int64, bool) {
	GinkgoHelper()
	raw := m[key]
	if string(raw) == "null" {
		return 0, false
	}
	var f float64
	Expect(json.Unmarshal(raw, &f)).To(Succeed(), "%s: %s is neither a number nor null: %s", what, key, raw)
	Expect(f).To(Equal(float64(int64(f))), "%s: %s is not an integer: %s", what, key, raw)
	return int64(f), true
}

var _ = describeServer("2026-07-28: task creation", "ext-create", func(env *ServerEnv) {
	env.It("lets clientInfo decide neither whether a task is made nor who owns it", "EXT-BASE-014", func(ctx SpecContext) {
		env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 100})
		r := env.extDo(ctx, extRequest{Method: "tools/call",
			Params: map[string]any{"name": env.extTool(FixtureSleep), "arguments": env.Config.FixtureArguments(FixtureSleep, map[string]any{"ms": 100})},
			Meta: map[string]any{
				v20260728.ProtocolVersionMetaKey:    string(Protocol2026),
				v20260728.ClientCapabilitiesMetaKey: capsFull,
				v20260728.ClientInfoMetaKey:         map[string]string{"name": "another-client", "version": "0.0.1"},
			}})
		Expect(r.Error).To(BeNil(), "the same tools/call of the sleep fixture under another clientInfo: %s", r)
		Expect(r.str("resultType")).To(Equal(exttasks.ResultTypeTask), "the sleep fixture made a task under the suite's clientInfo but not under another one: %s", r)
		id := r.str("taskId")
		env.ext.mu.Lock()
		env.ext.created = append(env.ext.created, extCreated{id: id, headers: env.Config.Headers})
		env.ext.mu.Unlock()
		g := env.extGet(ctx, id)
		Expect(g.Error).To(BeNil(), "tasks/get, under the suite's clientInfo, of a task created by the same identity under another clientInfo: %s", g)
	})

	env.It("creates a task from the declaration in the request's own _meta, with no earlier request", "EXT-CAP-003", func(ctx SpecContext) {
		_, r := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 1000})
		Expect(r.str("resultType")).To(Equal(exttasks.ResultTypeTask))
	})

	env.It("marks every reply carrying a top-level taskId with resultType task", "EXT-CREATE-003", func(ctx SpecContext) {
		_, r := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 1000})
		Expect(r.str("resultType")).To(Equal(exttasks.ResultTypeTask), "a tools/call reply with a taskId: %s", r)
	})

	env.It("sends a flat CreateTaskResult without a nested task member", "EXT-CREATE-006", func(ctx SpecContext) {
		_, r := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 1000})
		Expect(r.has("task")).To(BeFalse(), "the CreateTaskResult nests a task member (the 2025-11-25 shape): %s", r)
		expectTaskShape(r.Result, "the CreateTaskResult")
	})

	env.It("carries the five Task members in the CreateTaskResult and in every tasks/get", "EXT-WIRE-001", func(ctx SpecContext) {
		id, r := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 300})
		expectTaskShape(r.Result, "the CreateTaskResult")
		for _, g := range env.extPollUntil(ctx, id, extTerminal) {
			expectTaskShape(g.Result, "a tasks/get result")
		}
	})

	env.It("gives ttlMs as a non-negative integer or null", "EXT-WIRE-005", func(ctx SpecContext) {
		id, r := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 300})
		for _, x := range append([]*extReply{r}, env.extPollUntil(ctx, id, extTerminal)...) {
			m := expectTaskShape(x.Result, x.Method+" result")
			if ttl, ok := intOrNull(m, "ttlMs", x.Method+" result"); ok {
				Expect(ttl).To(BeNumerically(">=", 0), "negative ttlMs: %s", x)
			}
		}
	})

	env.It("gives pollIntervalMs, when present, as a positive integer", "EXT-WIRE-006", func(ctx SpecContext) {
		id, r := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 300})
		for _, x := range append([]*extReply{r}, env.extPollUntil(ctx, id, extTerminal)...) {
			var m map[string]json.RawMessage
			_ = json.Unmarshal(x.Result, &m)
			if _, present := m["pollIntervalMs"]; !present {
				continue
			}
			v, ok := intOrNull(m, "pollIntervalMs", x.Method+" result")
			Expect(ok).To(BeTrue(), "pollIntervalMs is null: %s", x)
			Expect(v).To(BeNumerically(">", 0), "pollIntervalMs is not positive: %s", x)
		}
	})

	env.It("stamps createdAt as an RFC 3339 time that never changes", "EXT-LIFE-004", func(ctx SpecContext) {
		id, r := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 300})
		first := parseTime(expectTaskShape(r.Result, "the CreateTaskResult"), "createdAt", "the CreateTaskResult")
		for _, g := range env.extPollUntil(ctx, id, extTerminal) {
			Expect(parseTime(expectTaskShape(g.Result, "tasks/get"), "createdAt", "tasks/get")).To(BeTemporally("==", first), "createdAt changed: %s", g)
		}
	})

	env.It("stamps lastUpdatedAt as an RFC 3339 time, never before createdAt and never going back", "EXT-LIFE-005", func(ctx SpecContext) {
		id, r := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 300})
		var prev time.Time
		for _, x := range append([]*extReply{r}, env.extPollUntil(ctx, id, extTerminal)...) {
			m := expectTaskShape(x.Result, x.Method+" result")
			created, updated := parseTime(m, "createdAt", x.Method), parseTime(m, "lastUpdatedAt", x.Method)
			Expect(updated).To(BeTemporally(">=", created), "lastUpdatedAt before createdAt: %s", x)
			Expect(updated).To(BeTemporally(">=", prev), "lastUpdatedAt went back: %s", x)
			prev = updated
		}
	})

	env.ItNeeding("makes a new task readable at once, on a fresh request and on the other instance", "EXT-CREATE-009", nil, func(ctx SpecContext) {
		id, _ := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 2000})
		urls := []string{env.Config.URLs[0]}
		if env.Has(FeatureMultiInstance) {
			urls = append(urls, env.Config.URLs[1])
		}
		for _, u := range urls {
			r := env.extDo(ctx, extRequest{Method: exttasks.MethodGet, URL: u, Params: map[string]any{"taskId": id}})
			Expect(r.Error).To(BeNil(), "tasks/get on %s right after creation: %s", u, r)
			Expect(r.str("taskId")).To(Equal(id), "tasks/get on %s right after creation: %s", u, r)
		}
	})

	env.It("never uses resultType task for anything but a CreateTaskResult", "EXT-CREATE-004", func(ctx SpecContext) {
		id, _ := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 200})
		env.extTerminalReply(ctx, id)
		env.extCall(ctx, exttasks.MethodCancel, map[string]any{"taskId": id})
		env.extToolCall(ctx, FixtureForbidden, map[string]any{}, nil)
		env.extCall(ctx, "tools/list", nil)
		env.extCall(ctx, "server/discover", nil)
		for _, r := range env.extReplies() {
			if r.Method == "tools/call" && r.has("taskId") {
				continue
			}
			Expect(r.str("resultType")).NotTo(Equal(exttasks.ResultTypeTask), "%s answered with resultType task: %s", r.Method, r)
		}
	})

	env.It("does not remember an earlier declaration: a request without the extension gets no task", "EXT-CAP-009", func(ctx SpecContext) {
		env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 200})
		r := env.extToolCall(ctx, FixtureSleep, map[string]any{"ms": 500}, capsNoExt)
		expectNoTask(r, "tools/call of the sleep fixture without the extension, after one with it")
	})

	env.It("falls back to the plain core or refuses when the extension is not declared", "EXT-CAP-016", func(ctx SpecContext) {
		for _, role := range []Role{FixtureSleep, FixtureSleepRequired} {
			r := env.extToolCall(ctx, role, map[string]any{"ms": 200}, capsNoExt)
			expectNoTask(r, "tools/call of the "+string(role)+" fixture without the extension")
			if r.Error != nil {
				Expect(r.Error.Code).To(BeEquivalentTo(-32021), "a refusal for want of the extension uses -32021: %s", r)
			}
		}
	})

	env.It("refuses a call it can serve only as a task with -32021 and HTTP 400 when the extension is missing", "EXT-CAP-012", func(ctx SpecContext) {
		r := env.extToolCall(ctx, FixtureSleepRequired, map[string]any{"ms": 200}, capsNoExt)
		expectExtError(r, -32021, http.StatusBadRequest, "tools/call of the sleep_required fixture without the extension")
	})

	env.It("names the missing extension in data.requiredCapabilities of -32021", "EXT-CAP-013", func(ctx SpecContext) {
		r := env.extToolCall(ctx, FixtureSleepRequired, map[string]any{"ms": 200}, capsNoExt)
		expectExtError(r, -32021, 0, "tools/call of the sleep_required fixture without the extension")
		v, ok := requiredExtension(r.Error)
		Expect(ok).To(BeTrue(), "data.requiredCapabilities.extensions lacks the tasks extension: %s", r)
		Expect(isObject(v)).To(BeTrue(), "the missing extension's value is not an object: %s", r)
	})

	env.It("answers a call it does not turn into a task with a CallToolResult carrying content and resultType", "EXT-WIRE-036", func(ctx SpecContext) {
		r := env.extToolCall(ctx, FixtureForbidden, map[string]any{}, nil)
		Expect(r.Error).To(BeNil(), "tools/call of the forbidden fixture: %s", r)
		if r.str("resultType") == exttasks.ResultTypeTask {
			NotApplicable("the server made a task of the forbidden fixture")
		}
		var content []json.RawMessage
		Expect(json.Unmarshal(r.field("content"), &content)).To(Succeed(), "content is not an array: %s", r)
		Expect(r.str("resultType")).To(Equal("complete"), "resultType of a plain CallToolResult: %s", r)
		if r.has("isError") {
			var b bool
			Expect(json.Unmarshal(r.field("isError"), &b)).To(Succeed(), "isError is not a boolean: %s", r)
		}
	})

	env.It("never runs a task on arguments that break the tool's input schema", "EXT-SEC-006", func(ctx SpecContext) {
		name := env.extTool(FixtureSleep)
		for _, caps := range []json.RawMessage{capsFull, capsNoExt} {
			r := env.extDo(ctx, extRequest{Method: "tools/call", Caps: caps, Params: map[string]any{"name": name,
				"arguments": env.Config.FixtureArguments(FixtureSleep, map[string]any{"ms": "not a number"})}})
			if r.Error != nil {
				continue
			}
			if r.str("resultType") != exttasks.ResultTypeTask {
				var isErr bool
				_ = json.Unmarshal(r.field("isError"), &isErr)
				Expect(isErr).To(BeTrue(), "a call with invalid arguments succeeded: %s", r)
				continue
			}
			id := r.str("taskId")
			env.ext.mu.Lock()
			env.ext.created = append(env.ext.created, extCreated{id: id, headers: env.Config.Headers})
			env.ext.mu.Unlock()
			last := env.extTerminalReply(ctx, id)
			var res struct {
				IsError bool `json:"isError"`
			}
			_ = json.Unmarshal(last.field("result"), &res)
			Expect(last.str("status") == stFailed || res.IsError).To(BeTrue(), "a task on invalid arguments ended successfully: %s", last)
		}
	})

	env.It("keeps every task's own state when many run at once", "EXT-BASE-007", func(ctx SpecContext) {
		ids := map[string]bool{}
		for i := range 6 {
			id, _ := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 100 + 50*i})
			Expect(ids).NotTo(HaveKey(id), "two tasks got the same taskId %q", id)
			ids[id] = true
		}
		for id := range ids {
			last := env.extTerminalReply(ctx, id)
			Expect(last.str("taskId")).To(Equal(id), "tasks/get answered for another task: %s", last)
			Expect(last.str("status")).To(Equal(stCompleted), "a sleep task did not complete: %s", last)
		}
	})

	env.It("hands out task ids that are long, distinct and not guessable by a one-character change", "EXT-SEC-002", func(ctx SpecContext) {
		seen := map[string]bool{}
		for range 5 {
			id, _ := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 100})
			Expect(len(id)).To(BeNumerically(">=", 16), "taskId %q is shorter than 16 characters", id)
			Expect(seen).NotTo(HaveKey(id), "taskId %q handed out twice", id)
			seen[id] = true
			mutated := []byte(id)
			last := len(mutated) - 1
			if mutated[last] == 'a' {
				mutated[last] = 'b'
			} else {
				mutated[last] = 'a'
			}
			r := env.extGet(ctx, string(mutated))
			expectExtError(r, -32602, 0, "tasks/get of a taskId one character away from a real one")
		}
	})
})

// expectNoTask fails when r is a task in any shape.
func expectNoTask(r *extReply, what string) {
	GinkgoHelper()
	if r.Error != nil {
		return
	}
	Expect(r.str("resultType")).NotTo(Equal(exttasks.ResultTypeTask), "%s answered with a task: %s", what, r)
	Expect(r.has("taskId")).To(BeFalse(), "%s answered with a top-level taskId: %s", what, r)
	Expect(r.has("task")).To(BeFalse(), "%s answered with a nested task: %s", what, r)
}
