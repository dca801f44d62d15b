package suites

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/schema/exttasks"
	"github.com/mcptasks/mcptasks/tasks/client"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// Invariants both protocol profiles share are written once, against a
// profileDriver, and registered once per profile under that profile's
// requirement: what differs between 2025-11-25 and 2026-07-28 (the
// handshake, the wire, who answers a foreign request how) lives in the
// two drivers only.

// profileDriver drives one profile for the shared invariants.
type profileDriver struct {
	name string
	// create starts a task of the fixture role as identity A and
	// returns its id (not-supported when the server will not make one).
	create func(ctx context.Context, role Role, ms int) string
	// lookup polls the task once as identity A and reports whether the
	// server answered that it does not know it (-32602), the way a
	// purged or expired task is answered in both profiles.
	lookup func(ctx context.Context, id string) (snap taskSnap, gone bool)
	// foreign reports, for each request identity B makes on A's task
	// (read, and cancel when the profile offers it), whether it was
	// refused and what came back.
	foreign func(ctx context.Context, id string) map[string]foreignAnswer
	// cancel asks, as identity A, for the task to be cancelled and
	// judges the answer by the profile's own rule: the 2025-11-25
	// profile answers with the cancelled task or -32602 for one already
	// ended, the 2026-07-28 profile acknowledges every cancel of a known
	// task. It reports whether the cancel was accepted.
	cancel func(ctx context.Context, id string) (accepted bool)
	// cancelBinds says an accepted cancel fixes the final status as
	// cancelled (2025-11-25); under 2026-07-28 the work may still win.
	cancelBinds bool
	// plain calls the fixture role without a task and returns its outcome.
	plain func(ctx context.Context, role Role, args map[string]any) taskOutcome
	// outcome waits for a task to end and returns the outcome it holds.
	outcome func(ctx context.Context, id string) taskOutcome
	// sleepRole is the fixture role for timed tasks.
	sleepRole func() Role
	// alive fails the spec unless the server still answers requests.
	alive func(ctx context.Context)
	// ttlFixed says the ttl reported at creation may not change
	// (2025-11-25); under 2026-07-28 ttlMs may move during a task's life.
	ttlFixed bool
	// failf fails the spec with the profile's evidence attached.
	failf func(format string, args ...any)
}

// taskSnap is one poll of a task.
type taskSnap struct {
	status string
	ttl    *int64
}

// taskOutcome is what a request ended with: a result (without _meta and
// resultType, which may differ between a plain answer and a task's) or a
// JSON-RPC error; status is the terminal status of the task that held
// it, empty for a call made without a task.
type taskOutcome struct {
	result map[string]any
	err    *client.RPCError
	status string
	detail string
}

func (o taskOutcome) String() string {
	switch {
	case o.err != nil:
		return fmt.Sprintf("the JSON-RPC error %d %q", o.err.Code, o.err.Message)
	case o.result != nil:
		b, _ := json.Marshal(o.result)
		return "the result " + excerpt(b, 300)
	}
	return "nothing (" + o.detail + ")"
}

type foreignAnswer struct {
	refused bool
	detail  string
}

// legacyDriver drives the 2025-11-25 profile (initialize, params.task).
func (env *ServerEnv) legacyDriver() profileDriver {
	lookup := func(ctx context.Context, id string) (taskSnap, bool) {
		GinkgoHelper()
		got, err := env.A.GetTask(ctx, id)
		if code, isRPC := rpcCode(err); isRPC && code == -32602 {
			return taskSnap{}, true
		}
		checkCall(err, "tasks/get %s", id)
		return taskSnap{status: string(got.Status), ttl: got.TTL}, false
	}
	return profileDriver{
		name: string(Protocol2025),
		create: func(ctx context.Context, role Role, ms int) string {
			GinkgoHelper()
			return env.Create(ctx, role, map[string]any{"ms": ms}).Task.TaskID
		},
		lookup: lookup,
		foreign: func(ctx context.Context, id string) map[string]foreignAnswer {
			GinkgoHelper()
			b := env.B(ctx)
			out := map[string]foreignAnswer{}
			_, err := b.GetTask(ctx, id)
			out["tasks/get"] = foreignAnswer{refused: err != nil, detail: errText(err)}
			if env.Has(FeatureCancel) {
				_, err := b.CancelTask(ctx, id)
				out["tasks/cancel"] = foreignAnswer{refused: err != nil, detail: errText(err)}
			}
			return out
		},
		cancel: func(ctx context.Context, id string) bool {
			GinkgoHelper()
			t, err := env.A.CancelTask(ctx, id)
			if err != nil {
				ExpectRPCError(err, -32602, "tasks/cancel racing completion")
				return false
			}
			Expect(t.Status).To(Equal(schema.TaskStatusCancelled), "tasks/cancel answered with status %s", t.Status)
			return true
		},
		cancelBinds: true,
		sleepRole:   env.TaskSleep,
		plain: func(ctx context.Context, role Role, args map[string]any) taskOutcome {
			GinkgoHelper()
			name := env.Fixture(role)
			raw, err := env.A.CallTool(ctx, name, env.Args(role, args))
			return legacyOutcome(raw, err, "", fmt.Sprintf("tools/call %s without a task", name))
		},
		outcome: func(ctx context.Context, id string) taskOutcome {
			GinkgoHelper()
			final := env.Await(ctx, id)
			raw, err := env.A.Result(ctx, id)
			return legacyOutcome(raw, err, string(final.Status), "tasks/result "+id)
		},
		alive: func(ctx context.Context) {
			GinkgoHelper()
			_, err := env.A.Call(ctx, wire.MethodPing, nil)
			Expect(err).NotTo(HaveOccurred(), "the server stopped answering")
		},
		ttlFixed: true,
		failf:    env.failf,
	}
}

// legacyOutcome turns a 2025-11-25 answer into an outcome; an error that
// is not a JSON-RPC error fails the spec (or is a harness error when the
// connection broke).
func legacyOutcome(raw json.RawMessage, err error, status, what string) taskOutcome {
	GinkgoHelper()
	var rpc *client.RPCError
	if errors.As(err, &rpc) {
		return taskOutcome{err: rpc, status: status}
	}
	checkCall(err, "%s", what)
	return taskOutcome{result: stripResult(raw), status: status, detail: string(raw)}
}

// modernDriver drives the 2026-07-28 profile (server/discover, _meta).
func (env *ServerEnv) modernDriver() profileDriver {
	return profileDriver{
		name: string(Protocol2026),
		create: func(ctx context.Context, role Role, ms int) string {
			GinkgoHelper()
			id, _ := env.extCreate(ctx, role, map[string]any{"ms": ms})
			return id
		},
		lookup: func(ctx context.Context, id string) (taskSnap, bool) {
			GinkgoHelper()
			r := env.extGet(ctx, id)
			if r.Error != nil && r.Error.Code == -32602 {
				return taskSnap{}, true
			}
			Expect(r.Error).To(BeNil(), "tasks/get of the harness's own task: %s", r)
			return taskSnap{status: r.str("status"), ttl: ttlMsOf(r)}, false
		},
		foreign: func(ctx context.Context, id string) map[string]foreignAnswer {
			GinkgoHelper()
			out := map[string]foreignAnswer{}
			for _, m := range []string{exttasks.MethodGet, exttasks.MethodUpdate, exttasks.MethodCancel} {
				params := map[string]any{"taskId": id}
				if m == exttasks.MethodUpdate {
					params["inputResponses"] = map[string]any{}
				}
				r := env.extDo(ctx, extRequest{Method: m, Identity: env.Config.HeadersB, Params: params})
				refused := r.Error != nil || r.Status == http.StatusUnauthorized || r.Status == http.StatusForbidden
				out[m] = foreignAnswer{refused: refused, detail: r.String()}
			}
			return out
		},
		cancel: func(ctx context.Context, id string) bool {
			GinkgoHelper()
			// A cancel of a task that ended first is acknowledged too
			// (EXT-DISC-09), so every cancel of a known task is.
			r := env.extCall(ctx, exttasks.MethodCancel, map[string]any{"taskId": id})
			Expect(r.Error).To(BeNil(), "tasks/cancel of a task racing its completion: %s", r)
			return true
		},
		plain: func(ctx context.Context, role Role, args map[string]any) taskOutcome {
			GinkgoHelper()
			r := env.extToolCall(ctx, role, args, capsNoExt)
			if r.Error != nil {
				return taskOutcome{err: r.Error, detail: r.String()}
			}
			if r.str("resultType") == exttasks.ResultTypeTask {
				Fail("the server answered a call without the extension with a task: " + r.String())
			}
			return taskOutcome{result: stripResult(r.Result), detail: r.String()}
		},
		outcome: func(ctx context.Context, id string) taskOutcome {
			GinkgoHelper()
			last := env.extTerminalReply(ctx, id)
			o := taskOutcome{status: last.str("status"), detail: last.String()}
			if last.has("result") {
				o.result = stripResult(last.field("result"))
			}
			if raw := last.field("error"); raw != nil {
				var e client.RPCError
				if json.Unmarshal(raw, &e) == nil {
					o.err = &e
				}
			}
			return o
		},
		sleepRole: func() Role { return FixtureSleep },
		alive: func(ctx context.Context) {
			GinkgoHelper()
			r := env.extDo(ctx, extRequest{Method: "server/discover"})
			Expect(r.Error).To(BeNil(), "the server stopped answering: %s", r)
		},
		failf: env.failf,
	}
}

// status polls the task once as identity A; a task the server no longer
// knows fails the spec.
func (d profileDriver) status(ctx context.Context, id string) string {
	GinkgoHelper()
	snap, gone := d.lookup(ctx, id)
	Expect(gone).To(BeFalse(), "%s: tasks/get of the harness's own task %s answered that the task is unknown", d.name, id)
	return snap.status
}

// ttlMsOf reads a 2026-07-28 task's ttlMs: nil when it is null (no
// limit) or not an integer.
func ttlMsOf(r *extReply) *int64 {
	var ttl *int64
	if json.Unmarshal(r.field("ttlMs"), &ttl) != nil {
		return nil
	}
	return ttl
}

func errText(err error) string {
	if err == nil {
		return "succeeded"
	}
	return err.Error()
}

// terminalStaysTerminal: a task that reached completed, failed or
// cancelled shows that same status on every later poll.
func terminalStaysTerminal(ctx context.Context, d profileDriver, poll time.Duration, deadline time.Duration) {
	GinkgoHelper()
	for _, role := range []Role{d.sleepRole(), FixtureToolError, FixtureRPCError} {
		id := d.create(ctx, role, 50)
		var final string
		for end := time.Now().Add(deadline); ; {
			final = d.status(ctx, id)
			if extTerminal(final) || time.Now().After(end) {
				break
			}
			time.Sleep(poll)
		}
		Expect(extTerminal(final)).To(BeTrue(), "%s: a %s task did not end within %s (last status %q)", d.name, role, deadline, final)
		for range 3 {
			Expect(d.status(ctx, id)).To(Equal(final), "%s: a %s task changed status after reaching %s", d.name, role, final)
		}
	}
}

// foreignRefused: another authorization context cannot read (or cancel)
// a task, and its attempts change nothing.
func foreignRefused(ctx context.Context, d profileDriver) {
	GinkgoHelper()
	id := d.create(ctx, d.sleepRole(), 3000)
	for m, a := range d.foreign(ctx, id) {
		Expect(a.refused).To(BeTrue(), "%s: identity B's %s of identity A's task was served: %s", d.name, m, a.detail)
	}
	Expect(d.status(ctx, id)).NotTo(Equal(stCancelled), "%s: identity B's refused cancel cancelled A's task", d.name)
}

// retentionProbe is a task whose retention a spec watches.
type retentionProbe struct {
	asked    string // the ttl the harness requested, for messages
	id       string
	reported *int64 // the ttl the server reported (the smallest seen)
	born     time.Time
	horizon  time.Duration
}

// newRetentionProbe watches a task up to half the ttl it reported, at
// most watch: enough to catch a task dropped long before its time
// without slowing the run.
func newRetentionProbe(asked, id string, reported *int64, born time.Time, watch time.Duration) retentionProbe {
	h := watch
	if reported != nil {
		h = min(h, time.Duration(*reported)*time.Millisecond/2)
	}
	return retentionProbe{asked: asked, id: id, reported: reported, born: born, horizon: h}
}

// watchRetention: every probe stays readable right after creation and
// still at its horizon. A task answered as unknown earlier than 90 % of
// the ttl it reported was dropped before its time. Where the profile
// fixes the ttl at creation, every poll reports the same ttl; where it
// may change, a later, shorter ttl is what the task is judged by.
func watchRetention(ctx context.Context, d profileDriver, probes []retentionProbe) {
	GinkgoHelper()
	check := func(p *retentionProbe, when string) {
		GinkgoHelper()
		asked := time.Now()
		snap, gone := d.lookup(ctx, p.id)
		if gone {
			if p.reported != nil && asked.Sub(p.born) >= time.Duration(*p.reported)*time.Millisecond*9/10 {
				// A stalled harness asked too late to tell an early
				// deletion from a due one.
				AddReportEntry("ttl not judged", fmt.Sprintf("task %s (ttl %s) was polled %s after creation", p.id, ttlString(p.reported), asked.Sub(p.born)), ReportEntryVisibilityFailureOrVerbose)
				return
			}
			d.failf("%s: the task created with ttl %s requested and %s reported was gone %s after creation (%s); a task must last as long as the ttl it reports",
				d.name, p.asked, ttlString(p.reported), time.Since(p.born).Round(time.Millisecond), when)
		}
		if d.ttlFixed {
			Expect(ttlString(snap.ttl)).To(Equal(ttlString(p.reported)),
				"tasks/get reports ttl %s for a task whose CreateTaskResult reported %s (requested %s); the ttl counts from creation and does not change", ttlString(snap.ttl), ttlString(p.reported), p.asked)
		} else if snap.ttl != nil && (p.reported == nil || *snap.ttl < *p.reported) {
			p.reported = snap.ttl
		}
	}
	for i := range probes {
		if probes[i].horizon > 0 {
			check(&probes[i], "right after creation")
		}
	}
	slices.SortFunc(probes, func(a, b retentionProbe) int { return cmp.Compare(a.horizon, b.horizon) })
	for i := range probes {
		if probes[i].horizon <= 0 {
			continue
		}
		time.Sleep(time.Until(probes[i].born.Add(probes[i].horizon)))
		check(&probes[i], "polled within half its reported ttl")
	}
}

// awaitEnd polls a task until it is terminal or the server no longer
// knows it, within deadline.
func awaitEnd(ctx context.Context, d profileDriver, id string, poll, deadline time.Duration) (taskSnap, bool) {
	GinkgoHelper()
	end := time.Now().Add(deadline)
	for {
		snap, gone := d.lookup(ctx, id)
		if gone || extTerminal(snap.status) {
			return snap, gone
		}
		if time.Now().After(end) {
			d.failf("%s: task %s was still %s %s after it was cancelled", d.name, id, snap.status, deadline)
		}
		time.Sleep(poll)
	}
}

// cancelRace: cancels that race a short task's completion are each
// answered by the profile's rule, every task then ends in one terminal
// status and keeps it (cancelled, where an accepted cancel binds), and the
// server keeps answering.
func cancelRace(ctx context.Context, d profileDriver, poll, deadline time.Duration) {
	GinkgoHelper()
	finals := map[string]int{}
	for i := range 5 {
		id := d.create(ctx, d.sleepRole(), 20)
		time.Sleep(time.Duration(15+2*i) * time.Millisecond)
		accepted := d.cancel(ctx, id)
		final, gone := awaitEnd(ctx, d, id, poll, deadline)
		if gone {
			// Dropping a task once it ended is the profile's own
			// business (2025-11-25 allows it for a cancelled task).
			finals["gone"]++
			continue
		}
		finals[final.status]++
		if accepted && d.cancelBinds {
			Expect(final.status).To(Equal(stCancelled), "%s: tasks/cancel was accepted, yet the task ended %s", d.name, final.status)
		}
		for range 2 {
			if again, gone := d.lookup(ctx, id); !gone {
				Expect(again.status).To(Equal(final.status), "%s: a task that ended %s in a cancel race later showed %s", d.name, final.status, again.status)
			}
		}
	}
	AddReportEntry("final statuses of tasks cancelled while finishing", fmt.Sprint(finals))
	d.alive(ctx)
}

// exactResults: for each role, the result a task holds is the result the
// same call gives without a task (ignoring _meta and resultType).
func exactResults(ctx context.Context, d profileDriver, roles ...Role) {
	GinkgoHelper()
	for _, role := range roles {
		args := map[string]any{"ms": 10}
		plain := d.plain(ctx, role, args)
		Expect(plain.err).To(BeNil(), "%s: the %s fixture called without a task gave %s, not a result", d.name, role, plain)
		id := d.create(ctx, role, 10)
		got := d.outcome(ctx, id)
		endedOnItsOwn(got, role)
		if got.err != nil || got.result == nil {
			d.failf("%s: the %s task ended %s with %s, while the same call without a task gave %s", d.name, role, got.status, got, plain)
		}
		Expect(got.result).To(Equal(plain.result), "%s: the %s task's result differs from the same call's without a task (ignoring _meta and resultType)", d.name, role)
	}
}

// exactError: a task whose call raised a JSON-RPC error holds that very
// error: code, message and data.
func exactError(ctx context.Context, d profileDriver) {
	GinkgoHelper()
	plain := d.plain(ctx, FixtureRPCError, map[string]any{"ms": 0})
	if plain.err == nil {
		NotSupported("the rpc_error fixture did not end in a JSON-RPC error when called without a task (it gave %s); "+
			"this spec needs a tool whose call fails at the JSON-RPC level", plain)
	}
	if plain.err.Code == -32601 {
		// Refused before the tool ran (a tool that only runs as a task):
		// there is no error of the tool to compare with.
		NotSupported("the plain call of the rpc_error fixture was refused with -32601 (%q): the tool did not run, "+
			"so there is no JSON-RPC error of the tool to compare the task's with", plain.err.Message)
	}
	id := d.create(ctx, FixtureRPCError, 0)
	got := d.outcome(ctx, id)
	endedOnItsOwn(got, FixtureRPCError)
	if got.err == nil {
		d.failf("%s: the task should hold the JSON-RPC error %d %q that the plain call gave, but it holds %s", d.name, plain.err.Code, plain.err.Message, got)
	}
	Expect(got.err.Code).To(Equal(plain.err.Code), "%s: error code", d.name)
	Expect(got.err.Message).To(Equal(plain.err.Message), "%s: error message", d.name)
	if len(plain.err.Data) > 0 || len(got.err.Data) > 0 {
		Expect(string(got.err.Data)).To(MatchJSON(string(plain.err.Data)), "%s: error data", d.name)
	}
}

// endedOnItsOwn skips a spec whose task the server cancelled although
// nobody asked: such a task holds no outcome of the tool to compare, and
// the early end is judged elsewhere (TASKS-XPORT-021).
func endedOnItsOwn(got taskOutcome, role Role) {
	GinkgoHelper()
	if got.status == stCancelled {
		NotSupported("the %s task ended cancelled on its own (the harness never cancelled it), so it holds no outcome "+
			"of the tool to compare; the early end is judged by TASKS-XPORT-021", role)
	}
}

var _ = describeServer("Invariants shared by both profiles", "invariants", func(env *ServerEnv) {
	env.It("2025-11-25: keeps a terminal status on every later poll", "TASKS-LIFE-002", func(ctx SpecContext) {
		terminalStaysTerminal(ctx, env.legacyDriver(), 25*time.Millisecond, env.Config.TaskTimeout)
	})
	env.It("2026-07-28: keeps a terminal status on every later poll", "EXT-LIFE-009", func(ctx SpecContext) {
		terminalStaysTerminal(ctx, env.modernDriver(), 25*time.Millisecond, env.Config.TaskTimeout)
	})
	env.It("2025-11-25: serves another authorization context nothing of a task", "TASKS-SEC-006", func(ctx SpecContext) {
		foreignRefused(ctx, env.legacyDriver())
	})
	env.It("2026-07-28: serves another authorization context nothing of a task", "EXT-SEC-003", func(ctx SpecContext) {
		foreignRefused(ctx, env.modernDriver())
	})
	// The 2025-11-25 retention spec (TASKS-TTL-004, in server_ttl.go)
	// asks for several ttls first; both watch through watchRetention.
	env.It("2026-07-28: keeps a task readable for the ttlMs it reports, running or finished", "EXT-TTL-007", func(ctx SpecContext) {
		d := env.modernDriver()
		var probes []retentionProbe
		for _, ms := range []int{int(ttlProbeWork.Milliseconds()), 0} {
			born := time.Now()
			id, created := env.extCreate(ctx, FixtureSleep, map[string]any{"ms": ms})
			ttl := ttlMsOf(created)
			if ttl != nil && *ttl < 0 {
				continue // a negative ttlMs is EXT-WIRE-005's failure
			}
			probes = append(probes, newRetentionProbe("none (the server chooses)", id, ttl, born, ttlWatch/2))
		}
		watchRetention(ctx, d, probes)
	})
	env.It("2025-11-25: copes with a cancel racing the task's completion", "TASKS-NCANCEL-008", func(ctx SpecContext) {
		cancelRace(ctx, env.legacyDriver(), 25*time.Millisecond, env.Config.TaskTimeout)
	})
	// The 2026-07-28 race is judged under terminal finality: which
	// terminal status a raced task ends in is free (EXT-CANCEL-006, a
	// MAY), that it keeps it is not.
	env.It("2026-07-28: keeps the terminal status a task reached while a cancel raced its completion", "EXT-LIFE-009", func(ctx SpecContext) {
		cancelRace(ctx, env.modernDriver(), 25*time.Millisecond, env.Config.TaskTimeout)
	})
	env.It("2025-11-25: returns through tasks/result exactly the result the tool gives without a task", "TASKS-RESULT-005", func(ctx SpecContext) {
		exactResults(ctx, env.legacyDriver(), FixtureSleep)
	})
	env.It("2026-07-28: inlines exactly the result the request produced, isError or not", "EXT-ERR-011", func(ctx SpecContext) {
		exactResults(ctx, env.modernDriver(), FixtureToolError, FixtureSleep)
	})
	env.It("2025-11-25: returns through tasks/result the very JSON-RPC error the tool call produces", "TASKS-ERR-008", func(ctx SpecContext) {
		exactError(ctx, env.legacyDriver())
	})
	env.It("2026-07-28: inlines exactly the JSON-RPC error the request raised", "EXT-ERR-008", func(ctx SpecContext) {
		exactError(ctx, env.modernDriver())
	})
})
