package suites

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/schema/exttasks"
	"github.com/mcptasks/mcptasks/schema/v20260728"
)

// The wire-shape specs of the 2026-07-28 profile check the messages a
// server really sends against the precise $def of the official tasks
// extension schema (exttasks) or of the 2026-07-28 core schema
// (v20260728), both embedded by the generated packages, plus the rules
// the schemas leave to the prose. Each spec judges one requirement and
// only the part of a message that requirement is about, so one defect
// fails the requirements it really breaks and no others.

// metaKeyGrammar is the _meta key grammar of the 2026-07-28 core: an
// optional prefix of dot-separated labels (each starting with a letter,
// ending with a letter or digit, hyphens inside) closed by a slash, then
// a name that is empty or starts and ends with an alphanumeric character
// (hyphens, underscores and dots inside).
var metaKeyGrammar = regexp.MustCompile(`^([A-Za-z]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z]([A-Za-z0-9-]*[A-Za-z0-9])?)*/)?([A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?)?$`)

// wireTask is one task object the server sent: a CreateTaskResult, a
// tasks/get result, or the params of a notifications/tasks.
type wireTask struct {
	// what says where it came from, for failure messages.
	what string
	// kind is "create", "get" or "notification".
	kind string
	raw  json.RawMessage
}

// member returns a top-level member of the task object (nil when absent).
func (t wireTask) member(name string) json.RawMessage {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(t.raw, &m)
	return m[name]
}

// status returns the task's status string ("" when it is none).
func (t wireTask) status() string {
	var s string
	_ = json.Unmarshal(t.member("status"), &s)
	return s
}

// wireTour is what one walk through the extension's task messages
// received.
type wireTour struct {
	tasks []wireTask
	// listen is the subscriptions/listen stream over the tour's tasks
	// (nil when the server refused or does not offer it).
	listen *listenRun
	// created are the ids of the tour's tasks, by fixture role.
	created map[Role]string
	// messages are every message of a walkAll, once it is complete.
	messages []wireMessage
}

// ofKind returns the tour's task objects of one kind.
func (t *wireTour) ofKind(kind string) []wireTask {
	var out []wireTask
	for _, x := range t.tasks {
		if x.kind == kind {
			out = append(out, x)
		}
	}
	return out
}

// needCreated makes the spec not-supported when the tour could not make
// a task of the fixture of role.
func (t *wireTour) needCreated(role Role) {
	GinkgoHelper()
	if t.created[role] == "" {
		NotSupported("the server made no task of the %s fixture (no such tool, an error, or a synchronous answer)", role)
	}
}

// wireTryCreate creates a task from the fixture of role when the server
// has that fixture and answers with a task; "" otherwise. Optional parts
// of a tour use it, so a server without the fixture is simply not
// exercised there (other specs judge the fixture itself).
func (env *ServerEnv) wireTryCreate(ctx context.Context, role Role, args map[string]any) (string, *extReply) {
	GinkgoHelper()
	name := env.Config.ToolName(role)
	if name == "" {
		return "", nil
	}
	r := env.extDo(ctx, extRequest{Method: "tools/call", Params: map[string]any{"name": name, "arguments": env.Config.FixtureArguments(role, args)}})
	if r.Error != nil || r.str("resultType") != exttasks.ResultTypeTask || r.str("taskId") == "" {
		return "", r
	}
	id := r.str("taskId")
	env.ext.mu.Lock()
	env.ext.created = append(env.ext.created, extCreated{id: id, headers: env.Config.Headers})
	env.ext.mu.Unlock()
	return id, r
}

// wireAnswers answers every elicitation of a tasks/get result with content
// that fits its requested schema.
func wireAnswers(r *extReply) map[string]any {
	out := map[string]any{}
	for k, req := range inputRequests(r) {
		if req.Method == "elicitation/create" {
			out[k] = map[string]any{"action": "accept", "content": formAnswer(req.Params)}
		}
	}
	return out
}

// walkTasks creates tasks in every status the fixtures allow (a sleep
// task that completes, an rpc_error task that fails, a sleep task that is
// cancelled, an input task that asks for input and is answered), listens
// to them on one subscriptions/listen stream, polls each until it is
// terminal, and returns every task object the server sent.
//
// The tour is walked once per run: the specs that judge its task objects
// share the first complete walk (a walk a failure cut short is not kept,
// so the next spec walks again).
func (env *ServerEnv) walkTasks(ctx context.Context) *wireTour {
	GinkgoHelper()
	env.wireMu.Lock()
	defer env.wireMu.Unlock()
	if env.wireTasks == nil {
		env.wireTasks = env.walkTasksNow(ctx)
	}
	return env.wireTasks
}

// walkTasksNow walks the tour of walkTasks.
func (env *ServerEnv) walkTasksNow(ctx context.Context) *wireTour {
	GinkgoHelper()
	tour := &wireTour{created: map[Role]string{}}
	var creates []*extReply
	id, r := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 400})
	tour.created[FixtureSleep], creates = id, append(creates, r)
	long, r := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 20000})
	creates = append(creates, r)
	if id, r := env.wireTryCreate(ctx, FixtureRPCError, map[string]any{"ms": 300}); id != "" {
		tour.created[FixtureRPCError], creates = id, append(creates, r)
	}
	if id, r := env.wireTryCreate(ctx, FixtureInput, map[string]any{"question": "conformance?"}); id != "" {
		tour.created[FixtureInput], creates = id, append(creates, r)
	}
	for _, c := range creates {
		tour.tasks = append(tour.tasks, wireTask{what: "the CreateTaskResult of " + c.String(), kind: "create", raw: c.Result})
	}
	ids := []string{long}
	for _, id := range tour.created {
		ids = append(ids, id)
	}
	sort.Strings(ids)

	// One listen stream over every task, read while the tasks move on.
	lctx, stopListen := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var run listenRun
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer GinkgoRecover()
		run = env.extListen(lctx, ids, capsFull, 20*time.Second, func(listenMsg) bool { return false })
	}()
	// Give the stream a moment to subscribe before the tasks change.
	time.Sleep(env.scaled(150 * time.Millisecond))

	gets := env.extPollUntil(ctx, tour.created[FixtureSleep], extTerminal)
	if id := tour.created[FixtureRPCError]; id != "" {
		gets = append(gets, env.extPollUntil(ctx, id, extTerminal)...)
	}
	if id := tour.created[FixtureInput]; id != "" {
		rs := env.extPollUntil(ctx, id, func(s string) bool { return s == stInputRequired || extTerminal(s) })
		gets = append(gets, rs...)
		if last := rs[len(rs)-1]; last.str("status") == stInputRequired {
			if answers := wireAnswers(last); len(answers) > 0 {
				env.extCall(ctx, exttasks.MethodUpdate, map[string]any{"taskId": id, "inputResponses": answers})
				gets = append(gets, env.extPollUntil(ctx, id, extTerminal)...)
			}
		}
	}
	env.extCall(ctx, exttasks.MethodCancel, map[string]any{"taskId": long})
	gets = append(gets, env.extPollUntil(ctx, long, extTerminal)...)
	for _, g := range gets {
		tour.tasks = append(tour.tasks, wireTask{what: "the tasks/get result " + g.String(), kind: "get", raw: g.Result})
	}

	// Let the last notifications arrive, then end the stream.
	time.Sleep(env.scaled(300 * time.Millisecond))
	stopListen()
	wg.Wait()
	if run.errReply == nil && run.status == http.StatusOK {
		tour.listen = &run
		for _, raw := range run.messages {
			var m struct {
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
			}
			if json.Unmarshal(raw, &m) == nil && m.Method == exttasks.MethodNotification {
				tour.tasks = append(tour.tasks, wireTask{what: "the notifications/tasks " + string(raw), kind: "notification", raw: m.Params})
			}
		}
	}
	seen := map[string]int{}
	for _, t := range tour.tasks {
		seen[t.kind+" "+t.status()]++
	}
	AddReportEntry("task objects of the tour (kind status: count)", seen)
	return tour
}

// wireError is one error the harness provoked, and the code it expects.
type wireError struct {
	what  string
	code  int64
	reply *extReply
}

// provokeErrors sends the requests every 2026-07-28 server must refuse:
// an unknown taskId (-32602), an unknown method (-32601), tasks/get
// without the extension (-32021), mismatching routing headers (-32020),
// an unsupported protocol version (-32022) and a _meta without the
// client's capabilities (-32602), plus, when the fixture exists, a call
// that can only run as a task without the extension (-32021). taskID is
// a task of identity A that is still running.
func (env *ServerEnv) provokeErrors(ctx context.Context, taskID string) []wireError {
	GinkgoHelper()
	unknown := "00000000-0000-4000-8000-000000000000"
	get := map[string]any{"taskId": taskID}
	out := []wireError{
		{what: "tasks/get of an unknown taskId", code: -32602, reply: env.extGet(ctx, unknown)},
		{what: "tasks/cancel of an unknown taskId", code: -32602, reply: env.extCall(ctx, exttasks.MethodCancel, map[string]any{"taskId": unknown})},
		{what: "an unknown method", code: -32601, reply: env.extCall(ctx, "tasks/bogus", map[string]any{"taskId": taskID})},
		{what: "tasks/get without the extension", code: -32021, reply: env.extDo(ctx, extRequest{Method: exttasks.MethodGet, Caps: json.RawMessage(`{}`), Params: get})},
		{what: "tasks/get with a mismatching Mcp-Name", code: -32020, reply: env.extDo(ctx, extRequest{Method: exttasks.MethodGet, Params: get,
			Headers: map[string]string{"Mcp-Name": "other-" + taskID}})},
		{what: "tasks/get with a mismatching Mcp-Method", code: -32020, reply: env.extDo(ctx, extRequest{Method: exttasks.MethodGet, Params: get,
			Headers: map[string]string{"Mcp-Method": exttasks.MethodCancel}})},
		{what: "tasks/get with a protocol version header that contradicts _meta", code: -32020, reply: env.extDo(ctx, extRequest{Method: exttasks.MethodGet, Params: get,
			Headers: map[string]string{"Mcp-Protocol-Version": string(Protocol2025)}})},
		{what: "tasks/get naming protocol version 1900-01-01", code: -32022, reply: env.extDo(ctx, extRequest{Method: exttasks.MethodGet, Version: "1900-01-01", Params: get})},
		{what: "tasks/get whose _meta lacks the client's capabilities", code: -32602, reply: env.extDo(ctx, extRequest{Method: exttasks.MethodGet, Params: get,
			Meta: map[string]any{v20260728.ProtocolVersionMetaKey: string(Protocol2026)}})},
	}
	if name := env.Config.ToolName(FixtureSleepRequired); name != "" {
		r := env.extDo(ctx, extRequest{Method: "tools/call", Caps: capsNoExt,
			Params: map[string]any{"name": name, "arguments": env.Config.FixtureArguments(FixtureSleepRequired, map[string]any{"ms": 100})}})
		out = append(out, wireError{what: "tools/call of the sleep_required fixture without the extension", code: -32021, reply: r})
	}
	return out
}

// walkAll runs the task tour, provokes the errors, and asks
// server/discover and tools/list: the messages the JSON-RPC specs judge.
// Like walkTasks it walks once per run; the messages it received are kept
// with the tour (see wireMessages).
func (env *ServerEnv) walkAll(ctx context.Context) *wireTour {
	GinkgoHelper()
	env.wireMu.Lock()
	defer env.wireMu.Unlock()
	if env.wireAll != nil {
		return env.wireAll
	}
	env.extCall(ctx, "server/discover", nil)
	env.extCall(ctx, "tools/list", nil)
	running, _ := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 20000})
	env.provokeErrors(ctx, running)
	env.extCall(ctx, exttasks.MethodCancel, map[string]any{"taskId": running})
	tour := env.walkTasksNow(ctx)
	tour.messages = env.wireMessages(tour)
	env.wireAll = tour
	return tour
}

// wireMessage is one JSON-RPC message the server sent during a spec.
type wireMessage struct {
	// what names it for failure messages.
	what string
	raw  json.RawMessage
	// reqID is the id of the request a response answers ("" for
	// notifications and requests).
	reqID string
	// response: the message answers a request of the harness.
	response bool
}

// wireMessages lists every JSON-RPC message of the spec: each response
// (JSON or SSE), every message that came before it on its stream, and
// every message of the tour's listen stream.
func (env *ServerEnv) wireMessages(tour *wireTour) []wireMessage {
	if tour != nil && tour.messages != nil {
		return tour.messages
	}
	var out []wireMessage
	for _, r := range env.extReplies() {
		for _, n := range r.Notifications {
			out = append(out, wireMessage{what: "a message on the stream of " + r.Method, raw: n})
		}
		for _, q := range r.Requests {
			out = append(out, wireMessage{what: "a request on the stream of " + r.Method, raw: q})
		}
		if r.Message == nil {
			continue
		}
		// A body the server did not label as JSON (or an event stream) is
		// no JSON-RPC message: an HTTP-level refusal, say.
		if !strings.HasPrefix(r.ContentType, "application/json") && !strings.HasPrefix(r.ContentType, "text/event-stream") {
			continue
		}
		out = append(out, wireMessage{what: "the answer to " + r.Method, raw: r.Message, reqID: r.ID, response: true})
	}
	if tour != nil && tour.listen != nil {
		for _, m := range tour.listen.messages {
			var probe struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			_ = json.Unmarshal(m, &probe)
			w := wireMessage{what: "a message on the subscriptions/listen stream", raw: m}
			if probe.ID != nil && probe.Method == "" {
				w.response, w.reqID = true, tour.listen.id
			}
			out = append(out, w)
		}
	}
	return out
}

// expectDef fails unless raw is valid against def of a schema.
func expectDef(validate func(string, []byte) error, schemaName, def string, raw json.RawMessage, what string) {
	GinkgoHelper()
	Expect(raw).NotTo(BeEmpty(), "%s: nothing to check against %s %s", what, schemaName, def)
	err := validate(def, raw)
	Expect(err).NotTo(HaveOccurred(), "%s is not a valid %s of the %s schema: %s", what, def, schemaName, raw)
}

// expectExtDef checks raw against a $def of the tasks extension schema.
func expectExtDef(def string, raw json.RawMessage, what string) {
	GinkgoHelper()
	expectDef(exttasks.Validate, "tasks extension", def, raw, what)
}

// expectCoreDef checks raw against a $def of the 2026-07-28 core schema.
func expectCoreDef(def string, raw json.RawMessage, what string) {
	GinkgoHelper()
	expectDef(v20260728.Validate, "2026-07-28 core", def, raw, what)
}

// taskMemberSpec checks one member of every task object of a tour
// against its Task property, when the member is present (a missing
// required member is EXT-WIRE-001's).
func taskMemberSpec(tour *wireTour, members ...string) {
	GinkgoHelper()
	for _, t := range tour.tasks {
		for _, name := range members {
			if raw := t.member(name); raw != nil {
				expectExtDef("Task/properties/"+name, raw, fmt.Sprintf("%s of %s", name, t.what))
			}
		}
	}
}

// rawJSONType names the JSON type of raw.
func rawJSONType(raw json.RawMessage) string {
	t := strings.TrimSpace(string(raw))
	switch {
	case t == "":
		return "absent"
	case t == "null":
		return "null"
	case t[0] == '{':
		return "object"
	case t[0] == '[':
		return "array"
	case t[0] == '"':
		return "string"
	case t == "true" || t == "false":
		return "boolean"
	}
	return "number"
}

// isIntegerJSON reports whether raw is a JSON number with an integer value.
func isIntegerJSON(raw json.RawMessage) bool {
	var f float64
	return rawJSONType(raw) == "number" && json.Unmarshal(raw, &f) == nil && f == float64(int64(f))
}

// metaObjects returns every _meta object in v with its JSON path; a
// member named _meta among a JSON schema's properties is a property, not
// metadata.
func metaObjects(path string, v any, out map[string]map[string]any) {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			if k == "_meta" && !strings.HasSuffix(path, "/properties") {
				if m, ok := c.(map[string]any); ok {
					out[path+"/_meta"] = m
				}
			}
			metaObjects(path+"/"+k, c, out)
		}
	case []any:
		for i, c := range x {
			metaObjects(fmt.Sprintf("%s/%d", path, i), c, out)
		}
	}
}

var _ = describeServer("2026-07-28: wire shapes of task messages", "ext-wire", func(env *ServerEnv) {
	env.It("sends taskId as a JSON string in every task it shows", "EXT-WIRE-002", func(ctx SpecContext) {
		taskMemberSpec(env.walkTasks(ctx), "taskId")
	})

	env.It("sends a status that is one of the five statuses in every task it shows", "EXT-WIRE-003", func(ctx SpecContext) {
		tour := env.walkTasks(ctx)
		for _, t := range tour.tasks {
			if raw := t.member("status"); raw != nil {
				expectExtDef("TaskStatus", raw, "the status of "+t.what)
			}
		}
	})

	env.It("sends createdAt and lastUpdatedAt as JSON strings in every task it shows", "EXT-WIRE-004", func(ctx SpecContext) {
		taskMemberSpec(env.walkTasks(ctx), "createdAt", "lastUpdatedAt")
	})

	env.It("sends statusMessage, when present, as a string", "EXT-WIRE-007", func(ctx SpecContext) {
		taskMemberSpec(env.walkTasks(ctx), "statusMessage")
	})

	env.It("answers a call it makes a task of with a valid CreateTaskResult", "EXT-WIRE-010", func(ctx SpecContext) {
		tour := env.walkTasks(ctx)
		for _, t := range tour.ofKind("create") {
			expectExtDef("CreateTaskResult", t.raw, t.what)
		}
	})

	env.It("answers every tasks/get with a valid GetTaskResult, in every status reached", "EXT-WIRE-011", func(ctx SpecContext) {
		tour := env.walkTasks(ctx)
		seen := map[string]bool{}
		for _, t := range tour.ofKind("get") {
			expectExtDef("GetTaskResult", t.raw, t.what)
			seen[t.status()] = true
		}
		AddReportEntry("statuses validated", sortedKeys(seen))
	})

	env.It("gives an input_required task a non-empty inputRequests object", "EXT-WIRE-012", func(ctx SpecContext) {
		env.extTool(FixtureInput)
		tour := env.walkTasks(ctx)
		tour.needCreated(FixtureInput)
		n := 0
		for _, t := range tour.tasks {
			// A CreateTaskResult is a plain Task: only detailed tasks list
			// their input requests.
			if t.status() != stInputRequired || t.kind == "create" {
				continue
			}
			n++
			reqs := t.member("inputRequests")
			Expect(rawJSONType(reqs)).To(Equal("object"), "%s: inputRequests is %s, want an object", t.what, rawJSONType(reqs))
			var m map[string]json.RawMessage
			_ = json.Unmarshal(reqs, &m)
			Expect(m).NotTo(BeEmpty(), "%s: an input_required task without any input request (EXT-DISC-16)", t.what)
		}
		if n == 0 {
			NotApplicable("the input fixture's task was never shown as input_required")
		}
	})

	env.It("gives a failed task an error with an integer code and a string message", "EXT-WIRE-014", func(ctx SpecContext) {
		env.extTool(FixtureRPCError)
		tour := env.walkTasks(ctx)
		tour.needCreated(FixtureRPCError)
		n := 0
		for _, t := range tour.tasks {
			if t.status() != stFailed {
				continue
			}
			n++
			// The other Task members are the other requirements' to judge.
			Expect(t.member("error")).NotTo(BeNil(), "a failed task without error: %s", t.what)
			expectExtDef("FailedTask/properties/error", t.member("error"), "the error of "+t.what)
		}
		if n == 0 {
			NotApplicable("no task of the tour failed (the rpc_error fixture's task ended otherwise)")
		}
	})

	env.It("acknowledges tasks/update with a valid UpdateTaskResult", "EXT-WIRE-019", func(ctx SpecContext) {
		id, _ := env.extCreate(ctx, FixtureInput, map[string]any{"question": "conformance?"})
		rs := env.extPollUntil(ctx, id, func(s string) bool { return s == stInputRequired || extTerminal(s) })
		last := rs[len(rs)-1]
		if last.str("status") != stInputRequired {
			NotApplicable("the input fixture's task never asked for input: %s", last)
		}
		answers := wireAnswers(last)
		if len(answers) == 0 {
			NotApplicable("the input fixture's task asks for nothing the harness can answer: %s", last)
		}
		ack := env.extCall(ctx, exttasks.MethodUpdate, map[string]any{"taskId": id, "inputResponses": answers})
		Expect(ack.Error).To(BeNil(), "tasks/update: %s", ack)
		expectExtDef("UpdateTaskResult", ack.Result, "the tasks/update acknowledgement "+ack.String())
	})

	env.It("acknowledges tasks/cancel with a valid CancelTaskResult, running task or finished", "EXT-WIRE-021", func(ctx SpecContext) {
		running, _ := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 20000})
		done, _ := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 50})
		env.extTerminalReply(ctx, done)
		for _, id := range []string{running, done} {
			ack := env.extCall(ctx, exttasks.MethodCancel, map[string]any{"taskId": id})
			if ack.Error != nil {
				continue // an error is EXT-CANCEL-003's or EXT-CANCEL-010's to judge
			}
			expectExtDef("CancelTaskResult", ack.Result, "the tasks/cancel acknowledgement "+ack.String())
		}
	})

	env.It("lists, in the listen acknowledgement, taskIds as an array of strings when it lists them", "EXT-WIRE-024", func(ctx SpecContext) {
		id, _ := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 300})
		run := env.extListen(ctx, []string{id}, capsFull, 3*time.Second, func(listenMsg) bool { return true })
		if run.errReply != nil {
			NotApplicable("the server refused subscriptions/listen for taskIds: %v", run.errReply)
		}
		for _, raw := range run.messages {
			var m struct {
				Method string `json:"method"`
				Params struct {
					Notifications json.RawMessage `json:"notifications"`
				} `json:"params"`
			}
			_ = json.Unmarshal(raw, &m)
			if m.Method != "notifications/subscriptions/acknowledged" {
				continue
			}
			if m.Params.Notifications != nil {
				expectExtDef("TaskSubscriptionAcknowledgedNotifications", m.Params.Notifications, "params.notifications of the acknowledgement "+string(raw))
			}
			return
		}
		NotApplicable("the listen stream carried no acknowledgement (EXT-NOTIFY-009 judges that): %s", run.messages)
	})

	env.It("tags every notification of a listen stream with a subscriptionId that is a string or an integer", "EXT-WIRE-040", func(ctx SpecContext) {
		id, _ := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 300})
		run := env.extListen(ctx, []string{id}, capsFull, 5*time.Second, func(m listenMsg) bool {
			return m.Method == exttasks.MethodNotification && extTerminal(m.Params.Status)
		})
		if run.errReply != nil {
			NotApplicable("the server refused subscriptions/listen for taskIds: %v", run.errReply)
		}
		n := 0
		for _, raw := range run.messages {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					Meta json.RawMessage `json:"_meta"`
				} `json:"params"`
			}
			_ = json.Unmarshal(raw, &m)
			if m.ID != nil || m.Method == "" || !strings.HasPrefix(m.Method, "notifications/") {
				continue
			}
			n++
			Expect(rawJSONType(m.Params.Meta)).To(Equal("object"), "a notification on the listen stream without a _meta object: %s", raw)
			expectCoreDef("NotificationMetaObject", m.Params.Meta, "the _meta of "+string(raw))
			var meta map[string]json.RawMessage
			_ = json.Unmarshal(m.Params.Meta, &meta)
			Expect(meta).To(HaveKey(subscriptionIDKey), "a notification on the listen stream without subscriptionId: %s", raw)
			expectCoreDef("RequestId", meta[subscriptionIDKey], "the subscriptionId of "+string(raw))
		}
		if n == 0 {
			NotApplicable("the listen stream carried no notification")
		}
	})

	env.It("gives every inputRequests value the shape of a sampling, roots or elicitation request", "EXT-WIRE-026", func(ctx SpecContext) {
		env.extTool(FixtureInput)
		tour := env.walkTasks(ctx)
		tour.needCreated(FixtureInput)
		n := 0
		for _, t := range tour.tasks {
			var m map[string]json.RawMessage
			if json.Unmarshal(t.member("inputRequests"), &m) != nil {
				continue
			}
			for k, v := range m {
				n++
				expectExtDef("InputRequest", v, fmt.Sprintf("the input request %q of %s", k, t.what))
			}
		}
		if n == 0 {
			NotApplicable("no task of the tour showed an input request")
		}
	})
})

var _ = describeServer("2026-07-28: wire shapes of discovery, errors and progress", "ext-wire", func(env *ServerEnv) {
	discover := func(ctx SpecContext) *extReply {
		GinkgoHelper()
		r := env.extCall(ctx, "server/discover", nil)
		Expect(r.Error).To(BeNil(), "server/discover failed: %s", r)
		return r
	}

	env.It("advertises capabilities whose extensions map identifiers to objects", "EXT-WIRE-029", func(ctx SpecContext) {
		r := discover(ctx)
		expectCoreDef("ServerCapabilities", r.field("capabilities"), "the capabilities of "+r.String())
	})

	env.It("answers server/discover with cacheScope, capabilities, resultType, supportedVersions and a non-negative integer ttlMs", "EXT-WIRE-034", func(ctx SpecContext) {
		r := discover(ctx)
		for _, k := range []string{"cacheScope", "capabilities", "resultType", "supportedVersions", "ttlMs"} {
			Expect(r.has(k)).To(BeTrue(), "the DiscoverResult lacks %s: %s", k, r)
			if k == "capabilities" {
				Expect(rawJSONType(r.field(k))).To(Equal("object"), "the DiscoverResult's capabilities: %s", r)
				continue
			}
			expectCoreDef("DiscoverResult/properties/"+k, r.field(k), k+" of "+r.String())
		}
	})

	// provoked returns the errors with code that the harness provoked and
	// got; the spec is not applicable when the server sent none.
	provoked := func(ctx SpecContext, code int64) []wireError {
		GinkgoHelper()
		running, _ := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": 20000})
		var out []wireError
		for _, e := range env.provokeErrors(ctx, running) {
			if e.code == code && e.reply.Error != nil && e.reply.Error.Code == code {
				out = append(out, e)
			}
		}
		if len(out) == 0 {
			NotApplicable("no request the harness sent was answered with %d (the requirements on when to send it judge that)", code)
		}
		return out
	}

	env.It("sends -32021 with data.requiredCapabilities shaped like client capabilities", "EXT-WIRE-030", func(ctx SpecContext) {
		for _, e := range provoked(ctx, -32021) {
			expectCoreDef("MissingRequiredClientCapabilityError", e.reply.Message, "the answer to "+e.what)
		}
	})

	env.It("sends -32020 as a well-formed HeaderMismatch error", "EXT-WIRE-031", func(ctx SpecContext) {
		for _, e := range provoked(ctx, -32020) {
			expectCoreDef("HeaderMismatchError", e.reply.Message, "the answer to "+e.what)
		}
	})

	env.It("sends -32022 with data listing the supported versions and the requested one", "EXT-WIRE-032", func(ctx SpecContext) {
		for _, e := range provoked(ctx, -32022) {
			expectCoreDef("UnsupportedProtocolVersionError", e.reply.Message, "the answer to "+e.what)
		}
	})

	env.It("sends progress notifications with a progressToken and a numeric progress", "EXT-WIRE-042", func(ctx SpecContext) {
		name := env.extTool(FixtureProgress)
		token := fmt.Sprintf("wire-progress-%d", extSeq.Add(1))
		r := env.extDo(ctx, extRequest{Method: "tools/call",
			Params: map[string]any{"name": name, "arguments": env.Config.FixtureArguments(FixtureProgress, map[string]any{"ms": 300, "steps": 3})},
			Meta: map[string]any{
				v20260728.ProtocolVersionMetaKey:    string(Protocol2026),
				v20260728.ClientCapabilitiesMetaKey: capsNoExt,
				v20260728.ClientInfoMetaKey:         map[string]string{"name": "mcptasks-conformance", "version": "suite"},
				"progressToken":                     token,
			}})
		n := 0
		for _, raw := range r.Notifications {
			var m struct {
				Method string `json:"method"`
			}
			if json.Unmarshal(raw, &m) != nil || m.Method != "notifications/progress" {
				continue
			}
			n++
			expectCoreDef("ProgressNotification", raw, "a progress notification on the stream of "+r.String())
		}
		if n == 0 {
			NotApplicable("the server sent no progress notification for a call with a progressToken (they are optional): %s", r)
		}
	})
})

var _ = describeServer("2026-07-28: JSON-RPC envelopes, results, errors and _meta", "ext-wire", func(env *ServerEnv) {
	env.It("sends every message as JSON-RPC 2.0", "EXT-BASE-002", func(ctx SpecContext) {
		tour := env.walkAll(ctx)
		for _, w := range env.wireMessages(tour) {
			var m map[string]json.RawMessage
			Expect(json.Unmarshal(w.raw, &m)).To(Succeed(), "%s is not a JSON object: %s", w.what, w.raw)
			Expect(string(m["jsonrpc"])).To(Equal(`"2.0"`), "%s: jsonrpc is not \"2.0\": %s", w.what, w.raw)
			_, hasResult := m["result"]
			_, hasError := m["error"]
			_, hasMethod := m["method"]
			id, hasID := m["id"]
			switch {
			case hasMethod:
				Expect(rawJSONType(m["method"])).To(Equal("string"), "%s: method is not a string: %s", w.what, w.raw)
				Expect(hasResult || hasError).To(BeFalse(), "%s: a request or notification that carries result or error: %s", w.what, w.raw)
				if hasID {
					Expect(rawJSONType(id) == "string" || isIntegerJSON(id)).To(BeTrue(), "%s: a request id that is neither a string nor an integer: %s", w.what, w.raw)
				}
				if p, ok := m["params"]; ok {
					Expect(rawJSONType(p)).To(Equal("object"), "%s: params is not an object: %s", w.what, w.raw)
				}
			default:
				Expect(hasResult != hasError).To(BeTrue(), "%s: a response needs exactly one of result and error: %s", w.what, w.raw)
				Expect(hasID).To(BeTrue(), "%s: a response without id: %s", w.what, w.raw)
				Expect(rawJSONType(id) == "string" || isIntegerJSON(id) || rawJSONType(id) == "null").To(BeTrue(), "%s: a response id that is neither a string, an integer nor null: %s", w.what, w.raw)
				if hasError {
					Expect(rawJSONType(m["error"])).To(Equal("object"), "%s: error is not an object: %s", w.what, w.raw)
				}
			}
		}
	})

	env.It("repeats the request id in every result response and gives it a result object", "EXT-BASE-005", func(ctx SpecContext) {
		tour := env.walkAll(ctx)
		n := 0
		for _, w := range env.wireMessages(tour) {
			var m map[string]json.RawMessage
			if !w.response || json.Unmarshal(w.raw, &m) != nil || m["error"] != nil {
				continue
			}
			n++
			Expect(m).To(HaveKey("result"), "%s: a response without result or error: %s", w.what, w.raw)
			Expect(string(m["id"])).To(MatchJSON(fmt.Sprintf("%q", w.reqID)), "%s: the result response does not repeat the request id %q: %s", w.what, w.reqID, w.raw)
			Expect(rawJSONType(m["result"])).To(Equal("object"), "%s: result is not an object: %s", w.what, w.raw)
		}
		Expect(n).To(BeNumerically(">", 0), "the tour received no result response")
	})

	env.It("gives every result a resultType string, CreateTaskResult and tasks/* acknowledgements included", "EXT-BASE-006", func(ctx SpecContext) {
		tour := env.walkAll(ctx)
		for _, w := range env.wireMessages(tour) {
			var m struct {
				Result map[string]json.RawMessage `json:"result"`
			}
			if !w.response || json.Unmarshal(w.raw, &m) != nil || m.Result == nil {
				continue
			}
			Expect(m.Result).To(HaveKey("resultType"), "%s: a result without resultType: %s", w.what, w.raw)
			expectCoreDef("Result/properties/resultType", m.Result["resultType"], "the resultType of "+w.what)
		}
	})

	env.It("keys every _meta member by the _meta key grammar", "EXT-BASE-009", func(ctx SpecContext) {
		tour := env.walkAll(ctx)
		for _, w := range env.wireMessages(tour) {
			var v any
			if json.Unmarshal(w.raw, &v) != nil {
				continue
			}
			metas := map[string]map[string]any{}
			metaObjects("", v, metas)
			for path, meta := range metas {
				for k := range meta {
					Expect(metaKeyGrammar.MatchString(k)).To(BeTrue(), "%s: the _meta key %q at %s breaks the key grammar: %s", w.what, k, path, w.raw)
				}
			}
		}
	})

	env.It("repeats the request id in every error response and gives the error an integer code and a message", "EXT-ERR-015", func(ctx SpecContext) {
		tour := env.walkAll(ctx)
		n := 0
		for _, w := range env.wireMessages(tour) {
			var m map[string]json.RawMessage
			if !w.response || json.Unmarshal(w.raw, &m) != nil || m["error"] == nil {
				continue
			}
			n++
			Expect(string(m["id"])).To(MatchJSON(fmt.Sprintf("%q", w.reqID)), "%s: the error response does not repeat the request id %q: %s", w.what, w.reqID, w.raw)
			var e map[string]json.RawMessage
			_ = json.Unmarshal(m["error"], &e)
			Expect(isIntegerJSON(e["code"])).To(BeTrue(), "%s: the error code is not an integer: %s", w.what, w.raw)
			Expect(rawJSONType(e["message"])).To(Equal("string"), "%s: the error has no message string: %s", w.what, w.raw)
		}
		Expect(n).To(BeNumerically(">", 0), "the tour provoked no error response")
	})

	env.It("shapes every JSON-RPC error, in responses and in failed tasks, as the Error definition", "EXT-WIRE-043", func(ctx SpecContext) {
		tour := env.walkAll(ctx)
		for _, w := range env.wireMessages(tour) {
			var m map[string]json.RawMessage
			if !w.response || json.Unmarshal(w.raw, &m) != nil || m["error"] == nil {
				continue
			}
			expectCoreDef("Error", m["error"], "the error of "+w.what)
		}
		for _, t := range tour.tasks {
			if e := t.member("error"); e != nil && t.status() == stFailed {
				expectCoreDef("Error", e, "the error of "+t.what)
			}
		}
	})
})
