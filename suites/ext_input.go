package suites

import (
	"encoding/json"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/schema/exttasks"
)

// inputRequests reads the inputRequests map of a tasks/get result.
func inputRequests(r *extReply) map[string]struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
} {
	var m map[string]struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	_ = json.Unmarshal(r.field("inputRequests"), &m)
	return m
}

var _ = describeServer("2026-07-28: input required and tasks/update", "ext-input", func(env *ServerEnv) {
	// park creates an input task and polls until it asks for input.
	park := func(ctx SpecContext) (string, *extReply) {
		GinkgoHelper()
		id, _ := env.extCreate(ctx, FixtureInput, map[string]any{"question": "conformance?"})
		rs := env.extPollUntil(ctx, id, func(s string) bool { return s == stInputRequired || extTerminal(s) })
		last := rs[len(rs)-1]
		Expect(last.str("status")).To(Equal(stInputRequired), "the input fixture's task never asked for input: %s", last)
		return id, last
	}
	accept := func(r *extReply) map[string]any {
		out := map[string]any{}
		for k, req := range inputRequests(r) {
			out[k] = map[string]any{"action": "accept", "content": formAnswer(req.Params)}
		}
		return out
	}
	update := func(ctx SpecContext, id string, responses any) *extReply {
		GinkgoHelper()
		return env.extCall(ctx, exttasks.MethodUpdate, map[string]any{"taskId": id, "inputResponses": responses})
	}

	env.It("shows a task waiting for input as input_required with its requests", "EXT-GET-006", func(ctx SpecContext) {
		_, r := park(ctx)
		reqs := inputRequests(r)
		Expect(reqs).NotTo(BeEmpty(), "input_required without inputRequests: %s", r)
		for k, v := range reqs {
			Expect(v.Method).NotTo(BeEmpty(), "input request %q has no method: %s", k, r)
			if v.Method != "roots/list" {
				Expect(isObject(v.Params)).To(BeTrue(), "input request %q has no params object: %s", k, r)
			}
		}
	})

	env.It("asks only for elicitation, sampling or roots in inputRequests", "EXT-INPUT-012", func(ctx SpecContext) {
		_, r := park(ctx)
		for k, v := range inputRequests(r) {
			Expect([]string{"elicitation/create", "sampling/createMessage", "roots/list"}).To(ContainElement(v.Method), "input request %q: %s", k, r)
		}
	})

	env.It("gives a form elicitation a message and a requestedSchema", "EXT-INPUT-015", func(ctx SpecContext) {
		_, r := park(ctx)
		for k, v := range inputRequests(r) {
			if v.Method != "elicitation/create" {
				continue
			}
			var p map[string]json.RawMessage
			_ = json.Unmarshal(v.Params, &p)
			if mode := strings.Trim(string(p["mode"]), `"`); mode != "" && mode != "form" {
				continue
			}
			Expect(p).To(HaveKey("message"), "form elicitation %q without message: %s", k, r)
			Expect(isObject(p["requestedSchema"])).To(BeTrue(), "form elicitation %q without requestedSchema: %s", k, r)
		}
	})

	env.It("uses no elicitation mode the client did not declare", "EXT-INPUT-014", func(ctx SpecContext) {
		_, r := park(ctx)
		for k, v := range inputRequests(r) {
			var p struct {
				Mode string `json:"mode"`
			}
			_ = json.Unmarshal(v.Params, &p)
			Expect(p.Mode).NotTo(Equal("url"), "input request %q uses URL mode, which the client did not declare: %s", k, r)
		}
	})

	env.It("acknowledges tasks/update with an empty result", "EXT-UPDATE-002", func(ctx SpecContext) {
		id, r := park(ctx)
		ack := update(ctx, id, accept(r))
		Expect(ack.Error).To(BeNil(), "tasks/update: %s", ack)
		for _, k := range ack.members() {
			Expect([]string{"resultType", "_meta"}).To(ContainElement(k), "the tasks/update acknowledgement carries %q: %s", k, ack)
		}
	})

	env.It("marks the tasks/update acknowledgement resultType complete", "EXT-UPDATE-009", func(ctx SpecContext) {
		id, r := park(ctx)
		ack := update(ctx, id, accept(r))
		Expect(ack.Error).To(BeNil(), "tasks/update: %s", ack)
		Expect(ack.str("resultType")).To(Equal("complete"), "tasks/update: %s", ack)
	})

	env.It("never asks again under a key the client already answered", "EXT-INPUT-007", func(ctx SpecContext) {
		id, r := park(ctx)
		answered := accept(r)
		Expect(update(ctx, id, answered).Error).To(BeNil())
		for _, g := range env.extPollUntil(ctx, id, extTerminal) {
			for k := range inputRequests(g) {
				Expect(answered).NotTo(HaveKey(k), "answered key %q asked again: %s", k, g)
			}
		}
	})

	env.It("moves on when an elicitation is declined", "EXT-INPUT-019", func(ctx SpecContext) {
		id, r := park(ctx)
		decline := map[string]any{}
		for k := range inputRequests(r) {
			decline[k] = map[string]any{"action": "decline"}
		}
		Expect(update(ctx, id, decline).Error).To(BeNil(), "tasks/update with a decline")
		rs := env.extPollUntil(ctx, id, func(s string) bool { return s != stInputRequired || extTerminal(s) })
		last := rs[len(rs)-1]
		for k := range inputRequests(last) {
			Expect(decline).NotTo(HaveKey(k), "the task stays parked on the declined key %q: %s", k, last)
		}
	})

	env.It("surfaces no elicitation for a task whose creating call did not declare elicitation", "EXT-INPUT-013", func(ctx SpecContext) {
		r := env.extToolCall(ctx, FixtureInput, map[string]any{"question": "conformance?"}, extCaps(true, false))
		if r.Error != nil || r.str("resultType") != exttasks.ResultTypeTask {
			return // refused or answered at once: nothing was surfaced
		}
		id := r.str("taskId")
		env.ext.mu.Lock()
		env.ext.created = append(env.ext.created, extCreated{id: id, headers: env.Config.Headers})
		env.ext.mu.Unlock()
		for _, g := range env.extPollUntil(ctx, id, func(s string) bool { return s == stInputRequired || extTerminal(s) }) {
			for k, v := range inputRequests(g) {
				Expect(v.Method).NotTo(Equal("elicitation/create"), "input request %q is an elicitation the client never declared: %s", k, g)
			}
		}
	})

	env.It("acknowledges and ignores answers under keys that are not outstanding", "EXT-UPDATE-006", func(ctx SpecContext) {
		id, r := park(ctx)
		ack := update(ctx, id, map[string]any{"unknown-key": map[string]any{"action": "accept", "content": map[string]any{}}})
		Expect(ack.Error).To(BeNil(), "tasks/update with an unknown key: %s", ack)
		after := env.extGet(ctx, id)
		Expect(after.str("status")).To(Equal(stInputRequired), "an answer under an unknown key changed the task: %s", after)
		Expect(sortedKeys(inputRequests(after))).To(Equal(sortedKeys(inputRequests(r))), "an answer under an unknown key changed the requests: %s", after)
	})

	env.It("acknowledges an answer carrying a member it does not know and moves on", "EXT-UPDATE-012", func(ctx SpecContext) {
		id, r := park(ctx)
		answers := accept(r)
		for _, a := range answers {
			a.(map[string]any)["x-conformance-extra"] = map[string]any{"note": "ignore me"}
		}
		ack := update(ctx, id, answers)
		Expect(ack.Error).To(BeNil(), "tasks/update whose answers carry an extra member was refused: %s", ack)
		rs := env.extPollUntil(ctx, id, func(s string) bool { return s != stInputRequired || extTerminal(s) })
		last := rs[len(rs)-1]
		for k := range inputRequests(last) {
			Expect(answers).NotTo(HaveKey(k), "the task stays parked on key %q, answered with an extra member: %s", k, last)
		}
	})

	env.It("refuses a malformed inputResponses with a JSON-RPC error and leaves the task as it was", "EXT-UPDATE-011", func(ctx SpecContext) {
		id, r := park(ctx)
		for what, bad := range map[string]any{"an array": []any{1}, "a string": "yes"} {
			ack := update(ctx, id, bad)
			Expect(ack.Error).NotTo(BeNil(), "tasks/update with inputResponses as %s was accepted: %s", what, ack)
		}
		ack := env.extCall(ctx, exttasks.MethodUpdate, map[string]any{"taskId": id})
		Expect(ack.Error).NotTo(BeNil(), "tasks/update without inputResponses was accepted: %s", ack)
		after := env.extGet(ctx, id)
		Expect(after.str("status")).To(Equal(stInputRequired), "a refused update changed the task: %s", after)
		Expect(sortedKeys(inputRequests(after))).To(Equal(sortedKeys(inputRequests(r))))
	})

	env.It("keeps a task parked on input cancellable", "EXT-INPUT-020", func(ctx SpecContext) {
		id, _ := park(ctx)
		Expect(env.extGet(ctx, id).Error).To(BeNil())
		ack := env.extCall(ctx, exttasks.MethodCancel, map[string]any{"taskId": id})
		Expect(ack.Error).To(BeNil(), "tasks/cancel of a task parked on input: %s", ack)
	})

	env.It("never sends a JSON-RPC request to the client, not even for input", "EXT-INPUT-022", func(ctx SpecContext) {
		id, r := park(ctx)
		Expect(update(ctx, id, accept(r)).Error).To(BeNil())
		env.extTerminalReply(ctx, id)
		for _, x := range env.extReplies() {
			Expect(x.Requests).To(BeEmpty(), "the server sent a JSON-RPC request on the stream of %s: %s", x.Method, x.Requests)
		}
	})

	env.It("never answers a tasks/* request with resultType input_required", "EXT-MRTR-002", func(ctx SpecContext) {
		id, r := park(ctx)
		env.extGet(ctx, id)
		Expect(update(ctx, id, accept(r)).Error).To(BeNil())
		env.extTerminalReply(ctx, id)
		env.extCall(ctx, exttasks.MethodCancel, map[string]any{"taskId": id})
		for _, x := range env.extReplies() {
			if strings.HasPrefix(x.Method, "tasks/") {
				Expect(x.str("resultType")).NotTo(Equal("input_required"), "%s: %s", x.Method, x)
			}
		}
	})

	env.It("completes an answered input task with the answer", "EXT-UPDATE-010", func(ctx SpecContext) {
		id, r := park(ctx)
		Expect(update(ctx, id, accept(r)).Error).To(BeNil())
		last := env.extTerminalReply(ctx, id)
		Expect(last.str("status")).To(Equal(stCompleted), "an answered input task: %s", last)
	})

	// pollWhile polls the task until keep(reply) is false or the task
	// timeout ends, and returns the last reply.
	pollWhile := func(ctx SpecContext, id string, keep func(*extReply) bool) *extReply {
		GinkgoHelper()
		deadline := time.Now().Add(env.Config.TaskTimeout)
		for {
			r := env.extGet(ctx, id)
			Expect(r.Error).To(BeNil(), "tasks/get of a task the harness created failed: %s", r)
			if !keep(r) || extTerminal(r.str("status")) || time.Now().After(deadline) || ctx.Err() != nil {
				return r
			}
			time.Sleep(25 * time.Millisecond)
		}
	}
	// parkMulti creates an input_multi task and polls until it lists two
	// input requests (or gives up), returning the last reply.
	parkMulti := func(ctx SpecContext) (string, *extReply) {
		GinkgoHelper()
		id, _ := env.extCreate(ctx, FixtureInputMulti, map[string]any{"question": "conformance?"})
		last := pollWhile(ctx, id, func(r *extReply) bool { return len(inputRequests(r)) < 2 })
		Expect(extTerminal(last.str("status"))).To(BeFalse(), "the input_multi fixture's task ended before asking: %s", last)
		return id, last
	}
	answerOne := func(r *extReply, key string) map[string]any {
		return map[string]any{key: map[string]any{"action": "accept", "content": formAnswer(inputRequests(r)[key].Params)}}
	}

	env.It("lists every outstanding input request in inputRequests, and only those", "EXT-GET-007", func(ctx SpecContext) {
		id, r := parkMulti(ctx)
		keys := sortedKeys(inputRequests(r))
		Expect(r.str("status")).To(Equal(stInputRequired), "the input_multi task with two requests outstanding: %s", r)
		Expect(len(keys)).To(BeNumerically(">=", 2), "the input_multi fixture keeps two requests outstanding at once, but tasks/get listed %d within %s: %s", len(keys), env.Config.TaskTimeout, r)
		Expect(update(ctx, id, answerOne(r, keys[0])).Error).To(BeNil(), "tasks/update answering %q", keys[0])
		// The answer may take effect a little later (EXT-DISC-10).
		after := pollWhile(ctx, id, func(g *extReply) bool {
			_, still := inputRequests(g)[keys[0]]
			return still && g.str("status") == stInputRequired
		})
		Expect(after.str("status")).To(Equal(stInputRequired), "with %q still unanswered the task left input_required: %s", keys[1], after)
		Expect(inputRequests(after)).To(HaveKey(keys[1]), "the unanswered request %q is no longer listed: %s", keys[1], after)
		Expect(inputRequests(after)).NotTo(HaveKey(keys[0]), "the answered request %q is still listed: %s", keys[0], after)
		Expect(update(ctx, id, answerOne(after, keys[1])).Error).To(BeNil(), "tasks/update answering %q", keys[1])
	})

	// keyLedger drives a task to its end, answering its input requests
	// one at a time (accept, or decline when declining), and checks on
	// every poll that a key keeps naming the request it named first.
	keyLedger := func(ctx SpecContext, id string, decline bool) {
		GinkgoHelper()
		seen := map[string]string{}
		answered := map[string]bool{}
		deadline := time.Now().Add(env.Config.TaskTimeout)
		for ctx.Err() == nil {
			r := env.extGet(ctx, id)
			Expect(r.Error).To(BeNil(), "tasks/get of a task the harness created failed: %s", r)
			var raw map[string]json.RawMessage
			_ = json.Unmarshal(r.field("inputRequests"), &raw)
			for _, k := range sortedKeys(raw) {
				c := canonicalJSON(raw[k])
				if first, ok := seen[k]; ok {
					Expect(c).To(Equal(first), "the key %q first named the request %s and now names %s: %s", k, first, c, r)
				}
				seen[k] = c
			}
			if extTerminal(r.str("status")) || time.Now().After(deadline) {
				return
			}
			for _, k := range sortedKeys(raw) {
				if answered[k] {
					continue
				}
				answered[k] = true
				resp := answerOne(r, k)
				if decline {
					resp = map[string]any{k: map[string]any{"action": "decline"}}
				}
				Expect(update(ctx, id, resp).Error).To(BeNil(), "tasks/update answering %q", k)
				break
			}
			time.Sleep(25 * time.Millisecond)
		}
	}

	env.It("gives every input request of a task a key no other request of the task ever had", "EXT-INPUT-006", func(ctx SpecContext) {
		id, _ := parkMulti(ctx)
		keyLedger(ctx, id, false)
	})

	env.It("never lets one input key stand for two different requests", "EXT-INPUT-008", func(ctx SpecContext) {
		id, _ := parkMulti(ctx)
		keyLedger(ctx, id, false)
		// A declined question may be asked again, under a new key.
		id, _ = park(ctx)
		keyLedger(ctx, id, true)
	})
})

// canonicalJSON re-encodes raw with sorted members, so two encodings of
// one value compare equal.
func canonicalJSON(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return string(raw)
	}
	return string(b)
}
