package suites

import (
	"context"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/schema/exttasks"
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
	// status polls the task once as identity A.
	status func(ctx context.Context, id string) string
	// foreign reports, for each request identity B makes on A's task
	// (read, and cancel when the profile offers it), whether it was
	// refused and what came back.
	foreign func(ctx context.Context, id string) map[string]foreignAnswer
}

type foreignAnswer struct {
	refused bool
	detail  string
}

// legacyDriver drives the 2025-11-25 profile (initialize, params.task).
func (env *ServerEnv) legacyDriver() profileDriver {
	return profileDriver{
		name: string(Protocol2025),
		create: func(ctx context.Context, role Role, ms int) string {
			GinkgoHelper()
			if role == FixtureSleep {
				role = env.TaskSleep()
			}
			return env.Create(ctx, role, map[string]any{"ms": ms}).Task.TaskID
		},
		status: func(ctx context.Context, id string) string {
			GinkgoHelper()
			got, err := env.A.GetTask(ctx, id)
			Expect(err).NotTo(HaveOccurred(), "tasks/get of the harness's own task")
			return string(got.Status)
		},
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
	}
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
		status: func(ctx context.Context, id string) string {
			GinkgoHelper()
			r := env.extGet(ctx, id)
			Expect(r.Error).To(BeNil(), "tasks/get of the harness's own task: %s", r)
			return r.str("status")
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
	}
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
	for _, role := range []Role{FixtureSleep, FixtureToolError, FixtureRPCError} {
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
	id := d.create(ctx, FixtureSleep, 3000)
	for m, a := range d.foreign(ctx, id) {
		Expect(a.refused).To(BeTrue(), "%s: identity B's %s of identity A's task was served: %s", d.name, m, a.detail)
	}
	Expect(d.status(ctx, id)).NotTo(Equal(stCancelled), "%s: identity B's refused cancel cancelled A's task", d.name)
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
})
