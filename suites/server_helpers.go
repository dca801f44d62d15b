package suites

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/client"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// Fixture returns the server's tool for role, after checking it is listed
// with a taskSupport that suits the role. A missing or unsuitable tool
// makes the spec not-supported.
func (env *ServerEnv) Fixture(role Role) string {
	ginkgo.GinkgoHelper()
	switch role {
	case FixtureInput:
		env.use(FeatureInput)
	case FixtureProgress:
		env.use(FeatureProgress)
	}
	name := env.Config.ToolName(role)
	if name == "" {
		NotSupported("no tool is mapped to the fixture role %q", role)
	}
	tool, ok := env.Tools[name]
	if !ok {
		NotSupported("the server lists no tool %q for the fixture role %q (map one with --fixture %s=<tool>)", name, role, role)
	}
	ts := tool.TaskSupport()
	switch role {
	case FixtureForbidden:
		if ts != "forbidden" {
			NotSupported("fixture %q (tool %q) has taskSupport %q, want absent or forbidden", role, name, ts)
		}
	case FixtureSleepRequired:
		if ts != "required" {
			NotSupported("fixture %q (tool %q) has taskSupport %q, want required", role, name, ts)
		}
	case FixtureSleep:
		if ts != "optional" {
			NotSupported("fixture %q (tool %q) has taskSupport %q, want optional", role, name, ts)
		}
	default:
		if ts != "optional" && ts != "required" {
			NotSupported("fixture %q (tool %q) has taskSupport %q, so it cannot run as a task", role, name, ts)
		}
	}
	return name
}

// Args renames the arguments of a fixture call to the server's names.
func (env *ServerEnv) Args(role Role, args map[string]any) map[string]any {
	return env.Config.FixtureArguments(role, args)
}

// CreateOn calls the fixture role as a task through c (ttl nil: none
// requested) and fails the spec if no task comes back. The task is
// cancelled at the end of the spec if still running.
func (env *ServerEnv) CreateOn(ctx context.Context, c *client.Client, role Role, args map[string]any, ttl *int64, opts ...client.CallOption) *schema.CreateTaskResult {
	ginkgo.GinkgoHelper()
	env.use(FeatureCore)
	name := env.Fixture(role)
	res, err := c.CallToolAsTask(ctx, name, env.Args(role, args), ttl, opts...)
	env.undeclaredRefusal(err, name)
	checkCall(err, "tools/call %s with a task", name)
	env.checkTask(&res.Task, "CreateTaskResult")
	env.mu.Lock()
	env.created = append(env.created, createdTask{c: c, id: res.Task.TaskID})
	env.mu.Unlock()
	return res
}

// CreateCall sends tc as a task through c after resolving the fixture
// role into the tool name and the server's argument names (tc.Arguments
// must then be a map[string]any with role argument names).
func (env *ServerEnv) CreateCall(ctx context.Context, c *client.Client, role Role, tc client.ToolCall, opts ...client.CallOption) *schema.CreateTaskResult {
	ginkgo.GinkgoHelper()
	env.use(FeatureCore)
	tc.Name = env.Fixture(role)
	if args, ok := tc.Arguments.(map[string]any); ok {
		tc.Arguments = env.Args(role, args)
	}
	if tc.Task == nil {
		tc.Task = &client.TaskParams{}
	}
	res, err := c.CreateTask(ctx, tc, opts...)
	env.undeclaredRefusal(err, tc.Name)
	checkCall(err, "tools/call %s with a task", tc.Name)
	env.checkTask(&res.Task, "CreateTaskResult")
	env.mu.Lock()
	env.created = append(env.created, createdTask{c: c, id: res.Task.TaskID})
	env.mu.Unlock()
	return res
}

// Create is CreateOn with identity A's client.
func (env *ServerEnv) Create(ctx context.Context, role Role, args map[string]any) *schema.CreateTaskResult {
	ginkgo.GinkgoHelper()
	return env.CreateOn(ctx, env.A, role, args, nil)
}

// Sleep creates a sleep fixture task of ms milliseconds.
func (env *ServerEnv) Sleep(ctx context.Context, ms int) *schema.CreateTaskResult {
	ginkgo.GinkgoHelper()
	return env.Create(ctx, env.TaskSleep(), map[string]any{"ms": ms})
}

// Running creates a sleep task of ms milliseconds for a spec that needs
// a task still running (to cancel it, for instance). A server that ends
// the task on its own at once makes the spec not-supported rather than
// failed: the spec's own requirement cannot be judged, and the early end
// is what TASKS-XPORT-021 and TASKS-NCANCEL-006 report.
func (env *ServerEnv) Running(ctx context.Context, ms int) *schema.CreateTaskResult {
	ginkgo.GinkgoHelper()
	created := env.Sleep(ctx, ms)
	t, err := env.A.GetTask(ctx, created.Task.TaskID)
	checkCall(err, "tasks/get %s", created.Task.TaskID)
	env.checkTask(&t.Task, wire.MethodTasksGet)
	if t.Terminal() {
		NotSupported("the server ended a %d ms task on its own right after creating it (status %s, %q); this spec needs a task that keeps running",
			ms, t.Status, t.Message())
	}
	return created
}

// cancelOK checks the answer to tasks/cancel on a task the spec believes
// running. A -32602 for a task that turns out to be terminal already means
// the server ended it first (a correct answer to an unlucky request), so
// the spec cannot judge its requirement: not-supported, not failed.
func (env *ServerEnv) cancelOK(ctx context.Context, err error, id, what string) {
	ginkgo.GinkgoHelper()
	if code, ok := client.ErrorCode(err); ok && code == -32602 {
		if t, gerr := env.A.GetTask(ctx, id); gerr == nil && t.Terminal() {
			NotSupported("the task was already %s (%q) when %s tried to cancel it; this spec needs a task that keeps running",
				t.Status, t.Message(), what)
		}
	}
	checkCall(err, "%s", what)
}

// TaskSleep returns the fixture role used to create timed tasks: the
// optional sleep tool if the server lists it, else the required one. Only
// specs that also call the tool plainly insist on the optional one.
func (env *ServerEnv) TaskSleep() Role {
	ginkgo.GinkgoHelper()
	for _, role := range []Role{FixtureSleep, FixtureSleepRequired} {
		want := schema.ToolExecutionTaskSupportOptional
		if role == FixtureSleepRequired {
			want = schema.ToolExecutionTaskSupportRequired
		}
		if t, ok := env.Tools[env.Config.ToolName(role)]; ok && env.Config.ToolName(role) != "" && t.TaskSupport() == want {
			return role
		}
	}
	NotSupported("the server lists neither a %q nor a %q fixture tool (map one with --fixture sleep=<tool> or --fixture sleep_required=<tool>)", FixtureSleep, FixtureSleepRequired)
	return ""
}

// AwaitOn polls tasks/get through c until the task is terminal, honouring
// the server's pollInterval, within the configured task timeout. seen
// receives every polled state.
func (env *ServerEnv) AwaitOn(ctx context.Context, c *client.Client, id string, seen func(*schema.GetTaskResult)) *schema.GetTaskResult {
	ginkgo.GinkgoHelper()
	wctx, cancel := context.WithTimeout(ctx, env.Config.TaskTimeout)
	defer cancel()
	t, err := c.WaitTerminal(wctx, id, 10*time.Millisecond, env.Config.MaxPoll, func(t *schema.GetTaskResult) {
		env.checkTask(&t.Task, wire.MethodTasksGet)
		if seen != nil {
			seen(t)
		}
	})
	if err != nil && ctx.Err() == nil && wctx.Err() != nil && t != nil {
		env.failf("task %s was still %s (statusMessage %q) when the %s task timeout ran out",
			id, t.Status, t.Message(), env.Config.TaskTimeout)
	}
	checkCall(err, "waiting for task %s to finish", id)
	return t
}

// AwaitCompleted waits for a task nobody cancels to end and fails the spec
// unless it completed, so later checks of its result are not misread.
func (env *ServerEnv) AwaitCompleted(ctx context.Context, c *client.Client, id string) *schema.GetTaskResult {
	ginkgo.GinkgoHelper()
	t := env.AwaitOn(ctx, c, id, nil)
	if t.Status != "completed" {
		// The spec needs a completed task to judge its result; an early
		// end is reported by TASKS-XPORT-021 and TASKS-NCANCEL-006.
		NotSupported("the sleep task ended %s (statusMessage %q) although nothing asked it to stop; this spec needs a completed task",
			t.Status, t.Message())
	}
	return t
}

// Await is AwaitOn with identity A's client.
func (env *ServerEnv) Await(ctx context.Context, id string) *schema.GetTaskResult {
	ginkgo.GinkgoHelper()
	return env.AwaitOn(ctx, env.A, id, nil)
}

// PollUntil polls tasks/get until cond holds or the task is terminal, and
// returns the last state.
func (env *ServerEnv) PollUntil(ctx context.Context, c *client.Client, id string, cond func(*schema.GetTaskResult) bool) *schema.GetTaskResult {
	ginkgo.GinkgoHelper()
	deadline := time.Now().Add(env.Config.TaskTimeout)
	for {
		t, err := c.GetTask(ctx, id)
		checkCall(err, "tasks/get %s", id)
		env.checkTask(&t.Task, wire.MethodTasksGet)
		if cond(t) || t.Terminal() || time.Now().After(deadline) {
			return t
		}
		d := min(max(t.Poll(10*time.Millisecond), 10*time.Millisecond), env.Config.MaxPoll)
		select {
		case <-ctx.Done():
			return t
		case <-time.After(d):
		}
	}
}

// checkCall fails the spec if err is set: as a harness error when the
// connection itself broke (refused, reset, closed before an answer: the
// server went away, so the requirement could not be judged), as a failure
// otherwise.
func checkCall(err error, format string, args ...any) {
	ginkgo.GinkgoHelper()
	if err == nil {
		return
	}
	if connectionLost(err) {
		HarnessError("%s: lost the connection to the server: %v", fmt.Sprintf(format, args...), err)
	}
	var me *client.MalformedError
	if errors.As(err, &me) {
		if id, ok := malformedJudge[me.Method]; ok {
			judgedUnder(id, fmt.Sprintf("%s: %v", fmt.Sprintf(format, args...), err))
		}
	}
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), fmt.Sprintf(format, args...))
}

// malformedJudge names, per method, the requirement under which an answer
// the client cannot even decode is judged.
var malformedJudge = map[string]string{
	wire.MethodToolsCall:   "TASKS-WIRE-CREATE-001",
	wire.MethodTasksGet:    "TASKS-WIRE-GET-001",
	wire.MethodTasksCancel: "TASKS-WIRE-CANCEL-001",
	wire.MethodTasksList:   "TASKS-WIRE-LIST-001",
}

// judgedUnder fails the running spec if it judges reqID, and otherwise
// stops it as not-supported, naming reqID (brokenBy without evidence, for
// code that has no ServerEnv).
func judgedUnder(reqID, msg string) {
	ginkgo.GinkgoHelper()
	if currentRequirement() == reqID {
		ginkgo.Fail(msg)
	}
	NotSupported("cannot judge this requirement: %s (judged under %s)", msg, reqID)
}

// connectionLost reports whether err is a broken connection rather than an
// answer (or a timeout, which is the server's doing).
func connectionLost(err error) bool {
	var ue *url.Error
	if !errors.As(err, &ue) || ue.Timeout() {
		return false
	}
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET)
}

// outcome describes the answer behind err for a failure message: a
// success when err is nil, the HTTP status or the JSON-RPC error
// otherwise.
func outcome(err error) string {
	var he *client.HTTPError
	var rpc *client.RPCError
	switch {
	case err == nil:
		return "a success (a result, no error)"
	case errors.As(err, &he):
		return fmt.Sprintf("HTTP %d", he.StatusCode)
	case errors.As(err, &rpc):
		return fmt.Sprintf("JSON-RPC error %d (%q)", rpc.Code, rpc.Message)
	}
	return err.Error()
}

// ExpectRPCError asserts that err is a JSON-RPC error with code.
func ExpectRPCError(err error, code int64, what string) *client.RPCError {
	ginkgo.GinkgoHelper()
	gomega.Expect(err).To(gomega.HaveOccurred(), "%s: expected JSON-RPC error %d, got a success", what, code)
	var rpc *client.RPCError
	gomega.Expect(errors.As(err, &rpc)).To(gomega.BeTrue(), "%s: expected JSON-RPC error %d, got %s", what, code, outcome(err))
	gomega.Expect(rpc.Code).To(gomega.Equal(code), "%s: JSON-RPC error code (message %q)", what, rpc.Message)
	return rpc
}

// brokenBy stops the running spec because the server broke reqID, a rule
// the spec relies on but does not judge: the spec of reqID fails, every
// other spec reports not-supported with the reason, so one breach is judged
// once and the run does not wait for timeouts that can only follow.
func (env *ServerEnv) brokenBy(reqID, format string, args ...any) {
	ginkgo.GinkgoHelper()
	msg := fmt.Sprintf(format, args...)
	if currentRequirement() == reqID {
		ginkgo.Fail(msg+env.evidence(), 1)
	}
	NotSupported("cannot judge this requirement: %s (judged under %s)", msg, reqID)
}

// checkTask stops the spec at once when a task the server reported cannot
// be trusted: a status outside the five defined values or an unreadable
// timestamp. Waiting loops call it on every state they see, so such a
// server fails fast instead of keeping each spec waiting for a terminal
// status that will never be recognised.
func (env *ServerEnv) checkTask(t *schema.Task, where string) {
	ginkgo.GinkgoHelper()
	if !tasks.Status(t.Status).Valid() {
		env.brokenBy("TASKS-WIRE-STATUS-001", "%s: task %s has status %q, which is none of working, input_required, completed, failed, cancelled", where, t.TaskID, t.Status)
	}
	env.taskTimes(t, where)
}

// taskTimes checks that a task's timestamps are RFC 3339 and ordered and
// returns them. An unreadable createdAt is a breach of TASKS-TTL-001, an
// unreadable or earlier lastUpdatedAt one of TASKS-TTL-002.
func (env *ServerEnv) taskTimes(t *schema.Task, where string) (created, updated time.Time) {
	ginkgo.GinkgoHelper()
	var err error
	created, err = time.Parse(time.RFC3339Nano, t.CreatedAt)
	if err != nil {
		env.brokenBy("TASKS-TTL-001", "%s: task %s has createdAt %q, which is not an RFC 3339 timestamp", where, t.TaskID, t.CreatedAt)
	}
	updated, err = time.Parse(time.RFC3339Nano, t.LastUpdatedAt)
	if err != nil {
		env.brokenBy("TASKS-TTL-002", "%s: task %s has lastUpdatedAt %q, which is not an RFC 3339 timestamp", where, t.TaskID, t.LastUpdatedAt)
	}
	if updated.Before(created) {
		env.brokenBy("TASKS-TTL-002", "%s: task %s has lastUpdatedAt %s before its createdAt %s", where, t.TaskID, t.LastUpdatedAt, t.CreatedAt)
	}
	return created, updated
}

// rawTaskMembers decodes the members of a task object (flat, or under
// "task" when wrapped is true).
func rawTaskMembers(raw json.RawMessage, wrapped bool) map[string]json.RawMessage {
	ginkgo.GinkgoHelper()
	var obj map[string]json.RawMessage
	gomega.Expect(json.Unmarshal(raw, &obj)).To(gomega.Succeed(), "result is not a JSON object: %s", raw)
	if wrapped {
		inner := obj["task"]
		gomega.Expect(inner).NotTo(gomega.BeEmpty(), "result has no task member: %s", raw)
		obj = nil
		gomega.Expect(json.Unmarshal(inner, &obj)).To(gomega.Succeed(), "task member is not an object: %s", inner)
	}
	return obj
}

// expectTTLMember asserts the ttl key is present and is a non-negative
// integer or null.
func expectTTLMember(obj map[string]json.RawMessage, where string) {
	ginkgo.GinkgoHelper()
	raw, ok := obj["ttl"]
	gomega.Expect(ok).To(gomega.BeTrue(), "%s: the task has no ttl member (it must be present, null meaning unlimited)", where)
	s := strings.TrimSpace(string(raw))
	if s == "null" {
		return
	}
	var n int64
	gomega.Expect(json.Unmarshal(raw, &n)).To(gomega.Succeed(), "%s: ttl %s is neither an integer nor null", where, s)
	gomega.Expect(n).To(gomega.BeNumerically(">=", 0), "%s: ttl is negative", where)
}

// hasRelatedTask reports whether a result or params object carries the
// related-task _meta key.
func hasRelatedTask(obj json.RawMessage) bool {
	_, ok := client.RelatedTaskID(obj)
	return ok
}

func ptr[T any](v T) *T { return &v }
