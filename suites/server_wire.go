package suites

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/client"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// validateDef validates raw against a $def of the MCP schema with the
// generated validator; the error is the validator's message.
func validateDef(def string, raw []byte) error {
	if len(raw) == 0 {
		return fmt.Errorf("%s: nothing to validate (member absent)", def)
	}
	return schema.Validate(def, raw)
}

// wireRequirement names the requirement under which a malformed answer of
// each result $def is judged. Only the spec of that requirement fails for
// it; other specs that receive the same answer report it as context.
var wireRequirement = map[string]string{
	"CreateTaskResult":     "TASKS-WIRE-CREATE-001",
	"GetTaskResult":        "TASKS-WIRE-GET-001",
	"CancelTaskResult":     "TASKS-WIRE-CANCEL-001",
	"ListTasksResult":      "TASKS-WIRE-LIST-001",
	"GetTaskPayloadResult": "TASKS-WIRE-CALLRESULT-001",
	"CallToolResult":       "TASKS-WIRE-CALLRESULT-001",
	"InitializeResult":     "TASKS-INIT-003",
	"ListToolsResult":      "TASKS-TOOLDEF-002",
}

// judgeOf returns the requirement that judges a malformed message.
func judgeOf(m *client.Message) string {
	switch {
	case m.Kind == client.KindInvalid:
		return "TASKS-JSONRPC-001"
	case m.Kind == client.KindError:
		return "TASKS-JSONRPC-005"
	case m.Method == wire.NotificationTaskStatus:
		return "TASKS-WIRE-NOTIF-002"
	case m.Method == wire.NotificationProgress:
		return "TASKS-WIRE-PROGRESS-001"
	case m.Method == wire.MethodElicitationCreate:
		return "TASKS-ELICIT-003"
	}
	if id, ok := wireRequirement[m.ResultDef]; ok {
		return id
	}
	return "TASKS-JSONRPC-001"
}

// validateMessages checks every received message against the $def it
// should conform to and returns the violations, each naming the
// requirement that judges it.
func validateMessages(msgs []*client.Message) []string {
	var out []string
	for _, m := range msgs {
		if v := validateMessage(m); v != "" {
			out = append(out, v+" (judged under "+judgeOf(m)+")")
		}
	}
	return out
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

// envelopeViolation checks only the JSON-RPC envelope of a message: its
// params and result are replaced by empty objects first, since their
// shape is judged by the requirement of their own message type.
func envelopeViolation(m *client.Message) string {
	what := describeMessage(m)
	var obj map[string]json.RawMessage
	if m.Kind == client.KindInvalid || json.Unmarshal(m.Raw, &obj) != nil {
		return fmt.Sprintf("%s: not a JSON-RPC message: %s", what, truncateRaw(m.Raw))
	}
	for _, k := range []string{"params", "result"} {
		if v, ok := obj[k]; ok && strings.HasPrefix(strings.TrimSpace(string(v)), "{") {
			obj[k] = json.RawMessage(`{}`)
		}
	}
	raw, _ := json.Marshal(obj)
	if err := schema.Validate("JSONRPCMessage", raw); err != nil {
		return fmt.Sprintf("%s: %v: %s", what, err, truncateRaw(m.Raw))
	}
	return ""
}

// expectAnswersConform fails the running spec if any answer received in it
// whose result should be a def does not validate against def (and, for
// task-bearing results, the Task it carries against Task). It also fails
// when the spec received no such answer at all.
func (env *ServerEnv) expectAnswersConform(def string) {
	GinkgoHelper()
	var bad []string
	n := 0
	for _, m := range env.Messages() {
		if m.Kind != client.KindResult || m.ResultDef != def {
			continue
		}
		n++
		if err := schema.Validate(def, m.Result()); err != nil {
			bad = append(bad, fmt.Sprintf("%s: %v\n  received: %s", describeMessage(m), err, truncateRaw(m.Raw)))
			continue
		}
		var inner []byte
		switch def {
		case "GetTaskResult", "CancelTaskResult":
			inner = m.Result()
		case "CreateTaskResult":
			inner = mustMember(m.Result(), "task")
		}
		if inner != nil {
			if err := schema.Validate("Task", inner); err != nil {
				bad = append(bad, fmt.Sprintf("%s: the task: %v\n  received: %s", describeMessage(m), err, truncateRaw(m.Raw)))
			}
		}
	}
	Expect(n).To(BeNumerically(">", 0), "no %s was received during this spec", def)
	if len(bad) > 0 {
		env.failf("%d of %d %s answers do not conform to the MCP 2025-11-25 schema:\n%s", len(bad), n, def, strings.Join(bad, "\n"))
	}
}

// tasksIn returns the raw Task objects a received message carries: the
// task of a CreateTaskResult, a flat get or cancel result, the items of a
// list, or the params of a status notification.
func tasksIn(m *client.Message) []json.RawMessage {
	if m.Kind == client.KindNotification && m.Method == wire.NotificationTaskStatus {
		return []json.RawMessage{m.Params()}
	}
	if m.Kind != client.KindResult {
		return nil
	}
	switch m.ResultDef {
	case "CreateTaskResult":
		if t := mustMember(m.Result(), "task"); len(t) > 0 {
			return []json.RawMessage{t}
		}
	case "GetTaskResult", "CancelTaskResult":
		return []json.RawMessage{m.Result()}
	case "ListTasksResult":
		var res struct {
			Tasks []json.RawMessage `json:"tasks"`
		}
		_ = json.Unmarshal(m.Result(), &res)
		return res.Tasks
	}
	return nil
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
		if env.Has(FeatureList) {
			_, err := env.A.ListTasks(ctx, "")
			Expect(err).NotTo(HaveOccurred())
		}
		if env.Has(FeatureCancel) {
			slow := env.Running(ctx, 3000)
			_, err := env.A.CancelTask(ctx, slow.Task.TaskID)
			env.cancelOK(ctx, err, slow.Task.TaskID, wire.MethodTasksCancel)
		}
	}

	env.It("sends only valid JSON-RPC 2.0 messages during a full task flow", "TASKS-JSONRPC-001", func(ctx SpecContext) {
		fullFlow(ctx)
		msgs := env.Messages()
		Expect(msgs).NotTo(BeEmpty())
		var bad []string
		for _, m := range msgs {
			if v := envelopeViolation(m); v != "" {
				bad = append(bad, v)
			}
		}
		Expect(bad).To(BeEmpty(), "JSON-RPC envelopes that break JSON-RPC 2.0 (members of params and result are judged by their own message types)")
	})

	env.It("gives every Task the members taskId, status, createdAt, lastUpdatedAt and ttl", "TASKS-WIRE-TASK-001", func(ctx SpecContext) {
		fullFlow(ctx)
		checked := 0
		for _, m := range env.Messages() {
			for _, t := range tasksIn(m) {
				var obj map[string]json.RawMessage
				Expect(json.Unmarshal(t, &obj)).To(Succeed(), "%s: a task that is not a JSON object: %s", describeMessage(m), truncateRaw(t))
				for _, k := range []string{"taskId", "status", "createdAt", "lastUpdatedAt", "ttl"} {
					Expect(obj).To(HaveKey(k), "%s: Task lacks %s: %s", describeMessage(m), k, truncateRaw(t))
				}
				Expect(t).To(ConformTo("Task"), describeMessage(m))
				checked++
			}
		}
		Expect(checked).To(BeNumerically(">", 0), "no task-bearing result was received")
	})

	env.It("reports every task status as one of the five defined values", "TASKS-WIRE-STATUS-001", func(ctx SpecContext) {
		_ = env.A.OpenStream(ctx)
		fullFlow(ctx)
		checked := 0
		for _, m := range env.Messages() {
			for _, t := range tasksIn(m) {
				var v struct {
					Status json.RawMessage `json:"status"`
				}
				_ = json.Unmarshal(t, &v)
				var st string
				Expect(json.Unmarshal(v.Status, &st)).To(Succeed(), "%s: status %s is not a string", describeMessage(m), v.Status)
				Expect(tasks.Status(st).Valid()).To(BeTrue(), "%s: status %q is none of working, input_required, completed, failed, cancelled", describeMessage(m), st)
				checked++
			}
		}
		Expect(checked).To(BeNumerically(">", 0), "no task-bearing message was received")
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
		rr, err := env.A.NotifyRaw(ctx, wire.NotificationCancelled, map[string]any{"requestId": "mcptasks-unknown", "reason": "probe"})
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
		// Status notifications of the flow may still be on their way on
		// the GET stream: give them a moment, so that a reused id has a
		// second event to show up in.
		withIDs := func() int {
			n := 0
			for _, m := range env.Messages() {
				if m.EventID != "" && m.SessionID == env.A.SessionID() {
					n++
				}
			}
			return n
		}
		for deadline := time.Now().Add(env.scaled(time.Second)); withIDs() < 2 && time.Now().Before(deadline); {
			time.Sleep(env.scaled(20 * time.Millisecond))
		}
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
