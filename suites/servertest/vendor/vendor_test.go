package vendor_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/mcptasks/mcptasks/suites"
	"github.com/mcptasks/mcptasks/suites/report"
	"github.com/mcptasks/mcptasks/suites/servertest/vendor"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/server"
	"github.com/mcptasks/mcptasks/tasks/server/reference"
)

// undeclared is a vendor requirement whose spec relies on tasks/cancel
// without naming the feature: the harness must call that an error of the
// suite, not a verdict on the server.
const undeclared = "X-ACME-TEST-001"

// TestVendorSpecsRunWithTheSuite certifies the reference server with
// ACME's specs only (label filter area:acme) and checks their outcomes,
// then checks that a spec using a feature its requirement does not name
// is a harness error.
func TestVendorSpecsRunWithTheSuite(t *testing.T) {
	if err := vendor.Register(); err != nil {
		t.Fatal(err)
	}
	if err := suites.RegisterRequirement(suites.Requirement{ID: undeclared, Level: suites.LevelMust,
		Summary: "a spec that uses tasks/cancel without saying so"}, suites.Needs{Needs: []suites.Feature{suites.FeatureCore}}); err != nil {
		t.Fatal(err)
	}
	suites.DescribeServerSpecs("ACME: a mistake", "acme", func(env *suites.ServerEnv) {
		env.It("asks about cancel without naming it", undeclared, func(ctx ginkgo.SpecContext) {
			_ = env.Has(suites.FeatureCancel)
		})
	})
	for _, bad := range []suites.Requirement{
		{ID: "ACME-001", Level: suites.LevelMust, Summary: "no vendor prefix"},
		{ID: vendor.StableResult, Level: suites.LevelMust, Summary: "registered twice"},
		{ID: "X-ACME-BAD-002", Level: "SHALL", Summary: "unknown level"},
	} {
		if err := suites.RegisterRequirement(bad, suites.Needs{}); err == nil {
			t.Errorf("RegisterRequirement(%s) accepted %q", bad.ID, bad.Summary)
		}
	}

	ctx := context.Background()
	inst, err := reference.Start(ctx, reference.Options{
		Config:        tasks.Config{PollInterval: 50 * time.Millisecond},
		ServerOptions: []server.Option{server.WithTokenVerifier(server.NewStaticTokens(map[string]string{"tok-a": "a"}))},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = inst.Close(context.Background()) })
	// The deliberate mistake fails its spec; the run is judged from the
	// report, so Ginkgo reports to a recorder instead of t.
	rec := &failRecorder{}
	run, err := suites.CertifyServer(ctx, rec, suites.ServerConfig{
		URLs:    []string{inst.URL},
		Headers: http.Header{"Authorization": {"Bearer tok-a"}},
	}, suites.WithLabelFilter("area:acme"), suites.WithProfile(suites.ProfileToolkit), suites.WithReportDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]report.Entry{}
	for _, e := range run.Report.Requirements {
		got[e.ID] = e
	}
	for id, want := range map[string]report.Status{
		vendor.StableResult:      report.StatusPass,
		vendor.ListedAfterCancel: report.StatusPass,
		undeclared:               report.StatusError,
	} {
		e, ok := got[id]
		switch {
		case !ok:
			t.Errorf("%s is missing from the report", id)
		case e.Status != want:
			t.Errorf("%s is %s (%s), want %s", id, e.Status, e.Message, want)
		case e.Origin != report.OriginVendor:
			t.Errorf("%s has origin %q, want vendor", id, e.Origin)
		}
	}
	if !rec.failed {
		t.Error("the harness error did not fail the Ginkgo run")
	}
	if e := got[undeclared]; !strings.Contains(e.Message, "does not name") {
		t.Errorf("the harness error does not say what is wrong: %s", e.Message)
	}
	if e := got[vendor.ListedAfterCancel]; strings.Join(e.Features, ",") != "core,list,cancel" {
		t.Errorf("%s reports features %q", vendor.ListedAfterCancel, e.Features)
	}
}

// failRecorder is the GinkgoTestingT of the run.
type failRecorder struct{ failed bool }

func (r *failRecorder) Fail() { r.failed = true }
