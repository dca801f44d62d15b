package suites

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/suites/report"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// StoreFactory returns a fresh, empty store that honours cfg: its clock
// (always a *tasks.FakeClock in the suite), its limits and its TTL policy.
// The suite calls it once per spec, in a BeforeEach, with the spec's
// testing.TB (so tb.TempDir and tb.Cleanup work), and closes the store
// when the spec ends. An error is reported as a harness error, not as a
// failure of the store.
type StoreFactory func(tb testing.TB, cfg tasks.Config) (tasks.Store, error)

// SuiteEpoch is where the fake clock handed to store factories starts. It
// lies deliberately between two milliseconds (0.345678 ms past one), so a
// store that keeps the clock's raw reading instead of tasks.Config.Now,
// which truncates to the millisecond, shows timestamps the specs reject.
func SuiteEpoch() time.Time {
	return time.Date(2026, time.January, 1, 0, 0, 0, 345_678, time.UTC)
}

// StoreEnv is what a store spec sees: the store under test, the fake clock
// it runs on, the configuration it was built with, and two fresh owners.
// The fields are set before every spec; read them only inside setup and
// subject nodes.
type StoreEnv struct {
	// Store is the store under test, empty at the start of each spec.
	Store tasks.Store
	// Clock drives the store's notion of time.
	Clock *tasks.FakeClock
	// Config is the configuration (defaults applied) handed to the factory.
	// A container's BeforeEach may change it; the store is opened after
	// every BeforeEach has run.
	Config tasks.Config
	// Owner and Other are two random owners, fresh for each spec.
	Owner, Other tasks.Owner

	factory StoreFactory
	opts    *options
}

// storeGroup is one area of store specs, registered at init by the spec
// files and instantiated by DescribeStore.
type storeGroup struct {
	name, area string
	body       func(env *StoreEnv)
}

var storeGroups []storeGroup

// describeStore registers a group of store specs. It is called from the
// spec files' package-level var declarations and only records the group;
// nothing is built until DescribeStore runs.
func describeStore(name, area string, body func(env *StoreEnv)) bool {
	storeGroups = append(storeGroups, storeGroup{name: name, area: area, body: body})
	return true
}

// DescribeStore registers every store spec under one container, to be run
// by the caller's own RunSpecs. Use it to embed the suite in an existing
// Ginkgo suite or to certify several configurations in one test binary;
// RunStore is the one-call alternative. It returns true so it can be used
// as `var _ = suites.DescribeStore(...)`.
func DescribeStore(f StoreFactory, opts ...Option) bool {
	o := newOptions(opts)
	env := &StoreEnv{factory: f, opts: o}
	title := "mcptasks store conformance"
	if o.implName != "" {
		title += " of " + o.implName
	}
	ginkgo.Describe(title, modeLabel(ModeStore), func() {
		ginkgo.BeforeEach(func() {
			env.Clock = tasks.NewFakeClock(SuiteEpoch())
			env.Config = tasks.Config{
				Clock:        env.Clock,
				PollInterval: o.pollInterval,
			}.WithDefaults()
			env.Owner = tasks.Owner("suite-a-" + uuid.NewString())
			env.Other = tasks.Owner("suite-b-" + uuid.NewString())
			env.Store = nil
		})
		ginkgo.JustBeforeEach(func() {
			st, err := env.factory(ginkgo.GinkgoTB(), env.Config)
			if err != nil {
				HarnessError("the store factory failed: %v", err)
			}
			if st == nil {
				HarnessError("the store factory returned a nil store")
			}
			env.Store = st
			ginkgo.DeferCleanup(func() {
				if err := st.Close(); err != nil {
					ginkgo.GinkgoWriter.Printf("closing the store: %v\n", err)
				}
			})
		})
		for _, g := range storeGroups {
			ginkgo.Describe(g.name, areaLabel(g.area), func() { g.body(env) })
		}
	})
	return true
}

// RunStore certifies a store in a Go test: it registers the store specs,
// runs them with Ginkgo and, with WithReportDir, writes the conformance
// report. Call it once per test binary (Ginkgo runs one suite per process);
// use DescribeStore to run more configurations.
func RunStore(t *testing.T, f StoreFactory, opts ...Option) {
	t.Helper()
	o := newOptions(opts)
	gr, rep := runSuite(t, ModeStore, "mcptasks store conformance", func() { DescribeStore(f, opts...) }, o, report.Meta{})
	if o.reportDir != "" {
		if err := report.WriteAll(o.reportDir, rep, gr); err != nil {
			t.Errorf("suites.RunStore: writing the conformance report: %v", err)
		}
	}
}

// andFilters combines two label filters, either of which may be empty.
func andFilters(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return "(" + a + ") && (" + b + ")"
}

// It registers a spec that tests exactly one requirement: it carries the
// requirement's labels and the suite's spec timeout. The spec is reported
// (and ordered) at the line that called It, not inside this helper.
func (env *StoreEnv) It(text, reqID string, body func(ctx ginkgo.SpecContext)) bool {
	return ginkgo.It(text, storeReq(reqID), ginkgo.SpecTimeout(env.opts.specTimeout), ginkgo.Offset(1), body)
}

// Entry is a DescribeTable entry for exactly one requirement, reported at
// the line that called Entry.
func (env *StoreEnv) Entry(text, reqID string, params ...any) ginkgo.TableEntry {
	// A CodeLocation decoration replaces the one Entry records (an Offset
	// would be counted from inside Ginkgo's table code).
	args := append([]any{storeReq(reqID), ginkgo.SpecTimeout(env.opts.specTimeout), types.NewCodeLocation(1)}, params...)
	return ginkgo.Entry(text, args...)
}

// WaitLatency is how long a waiting spec lets Wait take to notice a change.
func (env *StoreEnv) WaitLatency() time.Duration { return env.opts.waitLatency }

// Create makes a task for owner with default parameters and fails the spec
// if the store refuses.
func (env *StoreEnv) Create(ctx context.Context, owner tasks.Owner) tasks.Record {
	ginkgo.GinkgoHelper()
	r, err := env.Store.Create(ctx, owner, tasks.CreateParams{Method: wire.MethodToolsCall})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "Create")
	return r
}

// CreateIn makes a task and moves it to status, using Transition, Complete
// or Cancel as needed.
func (env *StoreEnv) CreateIn(ctx context.Context, owner tasks.Owner, status tasks.Status) tasks.Record {
	ginkgo.GinkgoHelper()
	r := env.Create(ctx, owner)
	var err error
	switch status {
	case tasks.StatusWorking:
		return r
	case tasks.StatusInputRequired:
		r, err = env.Store.Transition(ctx, owner, r.ID, status, "needs input")
	case tasks.StatusCompleted:
		r, err = env.Store.Complete(ctx, owner, r.ID, status, "done", resultOutcome(`{"content":[]}`))
	case tasks.StatusFailed:
		r, err = env.Store.Complete(ctx, owner, r.ID, status, "broke", errorOutcome(-32000, "boom"))
	case tasks.StatusCancelled:
		r, err = env.Store.Cancel(ctx, owner, r.ID, "stop")
	default:
		ginkgo.Fail(harnessErrorPrefix + fmt.Sprintf("no way to reach status %q", status))
	}
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "moving the new task to %s", status)
	gomega.Expect(r.Status).To(gomega.Equal(status))
	return r
}

// resultOutcome is a successful outcome with the given JSON result.
func resultOutcome(js string) tasks.Outcome {
	return tasks.Outcome{Result: json.RawMessage(js)}
}

// errorOutcome is an outcome carrying a JSON-RPC error.
func errorOutcome(code int64, msg string) tasks.Outcome {
	return tasks.Outcome{Error: &tasks.RPCError{Code: code, Message: msg}}
}
