package suites

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/tasks/client"
)

// validateDef validates raw against a $def of the MCP schema with the
// generated validator; the error is the validator's message.
func validateDef(def string, raw []byte) error {
	if len(raw) == 0 {
		return fmt.Errorf("%s: nothing to validate (member absent)", def)
	}
	return schema.Validate(def, raw)
}

// validateMessages checks every received message against the $def it
// should conform to (the envelope, and the result member of a success
// response). Violations in answers to the spec's own requests come back
// in own: they fail the running spec. Violations in messages the server
// sent on its own initiative (notifications, requests) come back in
// unsolicited: they belong to the requirements of those messages, which
// dedicated specs check (TASKS-WIRE-NOTIF-002, TASKS-WIRE-PROGRESS-001,
// TASKS-ELICIT-003), so the running spec only reports them.
func validateMessages(msgs []*client.Message) (own, unsolicited []string) {
	for _, m := range msgs {
		out := &own
		if m.Kind == client.KindNotification || m.Kind == client.KindRequest {
			out = &unsolicited
		}
		if v := validateMessage(m); v != "" {
			*out = append(*out, v)
		}
	}
	return own, unsolicited
}

// validateMessage returns the violation of one message, or "".
func validateMessage(m *client.Message) string {
	what := describeMessage(m)
	if !utf8.Valid(m.Raw) {
		return what + ": not valid UTF-8"
	}
	if m.Kind == client.KindInvalid {
		return fmt.Sprintf("%s: not a JSON-RPC message: %s", what, truncateRaw(m.Raw))
	}
	if err := schema.Validate(m.Def, m.Raw); err != nil {
		return fmt.Sprintf("%s: %v", what, err)
	}
	if m.Kind == client.KindResult && m.ResultDef != "" {
		if err := schema.Validate(m.ResultDef, m.Result()); err != nil {
			return fmt.Sprintf("%s: %v", what, err)
		}
	}
	return ""
}

func describeMessage(m *client.Message) string {
	s := string(m.Kind)
	if m.Method != "" {
		s += " " + m.Method
	}
	if len(m.ID) > 0 {
		s += " id " + string(m.ID)
	}
	return s + " (" + m.Stream + ")"
}

func truncateRaw(raw []byte) string {
	if len(raw) > 200 {
		return string(raw[:200]) + "…"
	}
	return string(raw)
}

var _ = describeServer("Wire format", "wire", func(env *ServerEnv) {
	// fullFlow runs create, get, result, list and cancel so that the
	// spec's messages cover every task-bearing result.
	fullFlow := func(ctx SpecContext) {
		GinkgoHelper()
		created := env.Sleep(ctx, 0)
		env.Await(ctx, created.Task.TaskID)
		_, err := env.A.Result(ctx, created.Task.TaskID)
		Expect(err).NotTo(HaveOccurred())
		if env.Caps.List {
			_, err := env.A.ListTasks(ctx, "")
			Expect(err).NotTo(HaveOccurred())
		}
		if env.Caps.Cancel {
			slow := env.Running(ctx, 3000)
			_, err := env.A.CancelTask(ctx, slow.Task.TaskID)
			env.cancelOK(ctx, err, slow.Task.TaskID, "tasks/cancel")
		}
	}

	env.It("sends only valid JSON-RPC 2.0 messages during a full task flow", "TASKS-JSONRPC-001", func(ctx SpecContext) {
		fullFlow(ctx)
		msgs := env.Messages()
		Expect(msgs).NotTo(BeEmpty())
		for _, m := range msgs {
			Expect(m.Kind).NotTo(Equal(client.KindInvalid), "not a JSON-RPC message: %s", m.Raw)
			Expect(m.Raw).To(ConformTo("JSONRPCMessage"), describeMessage(m))
		}
	})

	env.It("gives every Task the members taskId, status, createdAt, lastUpdatedAt and ttl", "TASKS-WIRE-TASK-001", func(ctx SpecContext) {
		fullFlow(ctx)
		checked := 0
		for _, m := range env.Messages() {
			if m.Kind != client.KindResult {
				continue
			}
			var tasksIn []json.RawMessage
			switch m.ResultDef {
			case "CreateTaskResult":
				tasksIn = append(tasksIn, mustMember(m.Result(), "task"))
			case "GetTaskResult", "CancelTaskResult":
				tasksIn = append(tasksIn, m.Result())
			case "ListTasksResult":
				var res struct {
					Tasks []json.RawMessage `json:"tasks"`
				}
				_ = json.Unmarshal(m.Result(), &res)
				tasksIn = append(tasksIn, res.Tasks...)
			}
			for _, t := range tasksIn {
				var obj map[string]json.RawMessage
				Expect(json.Unmarshal(t, &obj)).To(Succeed())
				for _, k := range []string{"taskId", "status", "createdAt", "lastUpdatedAt", "ttl"} {
					Expect(obj).To(HaveKey(k), "%s: Task lacks %s: %s", m.ResultDef, k, t)
				}
				Expect(t).To(ConformTo("Task"), m.ResultDef)
				checked++
			}
		}
		Expect(checked).To(BeNumerically(">", 0), "no task-bearing result was received")
	})

	env.It("answers every request with its id and a result member", "TASKS-JSONRPC-004", func(ctx SpecContext) {
		fullFlow(ctx)
		sent := map[string]bool{}
		for _, m := range env.Messages() {
			if m.Kind == client.KindResult && m.Stream == client.StreamPOST {
				Expect(m.ID).NotTo(BeEmpty())
				Expect(m.Result()).NotTo(BeEmpty(), "response %s has no result", m.ID)
				sent[string(m.ID)] = true
			}
		}
		Expect(sent).NotTo(BeEmpty())
	})

	env.It("answers every request with application/json or text/event-stream", "TASKS-XPORT-010", func(ctx SpecContext) {
		fullFlow(ctx)
		for _, m := range env.Messages() {
			if m.Stream != client.StreamPOST || !m.IsResponse() {
				continue
			}
			Expect(m.ContentType).To(Or(HavePrefix("application/json"), HavePrefix("text/event-stream")), describeMessage(m))
		}
	})

	env.It("never gives a notification an id", "TASKS-JSONRPC-006", func(ctx SpecContext) {
		_ = env.A.OpenStream(ctx)
		fullFlow(ctx)
		for _, m := range env.Messages() {
			if m.Method != "" && !m.IsResponse() && m.Kind != client.KindRequest {
				Expect(m.ID).To(BeEmpty(), "notification %s carries an id", m.Method)
			}
		}
		rr, err := env.A.NotifyRaw(ctx, "notifications/cancelled", map[string]any{"requestId": "mcptasks-unknown", "reason": "probe"})
		Expect(err).NotTo(HaveOccurred())
		Expect(strings.TrimSpace(string(rr.Body))).To(BeEmpty(), "a notification was answered with a body: %s", rr.Body)
	})

	env.It("uses only well-formed _meta keys", "TASKS-JSONRPC-007", func(ctx SpecContext) {
		_ = env.A.OpenStream(ctx)
		fullFlow(ctx)
		for _, m := range env.Messages() {
			for _, obj := range [][]byte{m.Result(), m.Params()} {
				var v struct {
					Meta map[string]json.RawMessage `json:"_meta"`
				}
				if len(obj) == 0 || json.Unmarshal(obj, &v) != nil {
					continue
				}
				for k := range v.Meta {
					Expect(metaKeyPattern.MatchString(k)).To(BeTrue(), "%s: _meta key %q breaks the key grammar", describeMessage(m), k)
				}
			}
		}
	})

	env.It("encodes every message as UTF-8", "TASKS-XPORT-001", func(ctx SpecContext) {
		_ = env.A.OpenStream(ctx)
		fullFlow(ctx)
		for _, m := range env.Messages() {
			Expect(utf8.Valid(m.Raw)).To(BeTrue(), "%s is not valid UTF-8", describeMessage(m))
			if ct := strings.ToLower(m.ContentType); strings.Contains(ct, "charset=") {
				Expect(ct).To(ContainSubstring("charset=utf-8"), "%s declares %q", describeMessage(m), m.ContentType)
			}
		}
	})

	env.It("never reuses an SSE event id within a session", "TASKS-XPORT-028", func(ctx SpecContext) {
		_ = env.A.OpenStream(ctx)
		fullFlow(ctx)
		seen := map[string]string{}
		for _, m := range env.Messages() {
			if m.EventID == "" || m.SessionID != env.A.SessionID() {
				continue
			}
			Expect(seen).NotTo(HaveKey(m.EventID), "SSE event id %q used for %s and again for %s", m.EventID, seen[m.EventID], describeMessage(m))
			seen[m.EventID] = describeMessage(m)
		}
	})
})

// metaKeyPattern is the _meta key grammar: an optional prefix of
// dot-separated labels (each starting with a letter, ending with a letter or
// digit, hyphens inside) followed by a slash, then a name that is empty or
// starts and ends with an alphanumeric character, with hyphens,
// underscores, dots and alphanumerics inside.
var metaKeyPattern = regexp.MustCompile(`^(?:[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*/)?(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$`)
