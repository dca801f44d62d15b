// Package certify_test dogfoods the store suite through its doors: RunStore
// with a report, DescribeStore embedded twice, and a dry run proving the
// registry and the specs agree.
package certify_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/extensions/globals"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/mcptasks/mcptasks/stores/memory"
	"github.com/mcptasks/mcptasks/suites"
	"github.com/mcptasks/mcptasks/suites/internal/suitetest"
	"github.com/mcptasks/mcptasks/suites/report"
	"github.com/mcptasks/mcptasks/tasks"
)

func memoryFactory(_ testing.TB, cfg tasks.Config) (tasks.Store, error) { return memory.New(cfg), nil }

// TestRunStoreReport certifies the memory store through RunStore and checks
// the report it writes. It comes first: RunSpecs keeps the configuration of
// the last run as Ginkgo's global one, and RunStore starts from it.
func TestRunStoreReport(t *testing.T) {
	globals.Reset()
	dir := t.TempDir()
	suites.RunStore(t, memoryFactory,
		suites.WithReportDir(dir),
		suites.WithImplementation("memory", "test"),
		suites.WithTarget("memory"))
	for _, f := range []string{report.FileJSON, report.FileJUnit, report.FileMarkdown, report.FileHTML} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatalf("report file missing: %v", err)
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, report.FileJSON))
	if err != nil {
		t.Fatal(err)
	}
	var rep report.Report
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Summary.Verdict != report.VerdictConformant || rep.ExitCode() != report.ExitConformant {
		t.Errorf("verdict %s, exit %d", rep.Summary.Verdict, rep.ExitCode())
	}
	if rep.Mode != "store" || rep.Implementation == nil || rep.Implementation.Name != "memory" {
		t.Errorf("metadata: mode %q implementation %+v", rep.Mode, rep.Implementation)
	}
	if got, want := len(rep.Requirements), len(suites.StoreRequirements()); got != want {
		t.Errorf("%d requirement entries, want %d", got, want)
	}
	for _, e := range rep.Requirements {
		if slices.Contains(e.Features, "leases") && e.Status == report.StatusNotApplicable {
			continue // the memory store serves one process and has no leases
		}
		if e.Status != report.StatusPass {
			t.Errorf("%s: %s %s", e.ID, e.Status, e.Message)
		}
	}
	// Waiting specs really wait, so a run that executed them takes time; a
	// dry run (which would pass everything) does not.
	if rep.Summary.DurationSeconds < 0.05 {
		t.Errorf("the run took %.3f s: the specs did not really run", rep.Summary.DurationSeconds)
	}
	if len(rep.HarnessErrors) != 0 {
		t.Errorf("harness errors: %v", rep.HarnessErrors)
	}

	if err := report.Validate(raw); err != nil {
		t.Errorf("conformance-report.json does not match its schema: %v", err)
	}
}

// TestRegistryCoverage walks the spec tree in a dry run.
func TestRegistryCoverage(t *testing.T) {
	rep := suitetest.Run(func() { suites.DescribeStore(memoryFactory) }, func(sc *types.SuiteConfig) { sc.DryRun = true })

	seen := map[string]bool{}
	for _, r := range suites.Requirements() {
		if seen[r.ID] {
			t.Errorf("requirement %s is registered twice", r.ID)
		}
		seen[r.ID] = true
		if r.Summary == "" || r.Section == "" || r.Level == "" {
			t.Errorf("requirement %s lacks a summary, section or level", r.ID)
		}
	}

	specsPerReq := map[string]int{}
	specs := 0
	for _, sr := range rep.SpecReports {
		if !sr.LeafNodeType.Is(types.NodeTypeIt) {
			continue
		}
		specs++
		var reqs, areas, modes []string
		for _, l := range sr.Labels() {
			switch {
			case strings.HasPrefix(l, suites.LabelReq+":"):
				reqs = append(reqs, strings.TrimPrefix(l, suites.LabelReq+":"))
			case strings.HasPrefix(l, suites.LabelArea+":"):
				areas = append(areas, l)
			case strings.HasPrefix(l, suites.LabelMode+":"):
				modes = append(modes, l)
			}
		}
		if len(reqs) != 1 {
			t.Errorf("spec %q has %d requirement labels, want 1", sr.FullText(), len(reqs))
			continue
		}
		if _, ok := suites.Lookup(reqs[0]); !ok {
			t.Errorf("spec %q names the unknown requirement %s", sr.FullText(), reqs[0])
		}
		if len(areas) != 1 || len(modes) != 1 || modes[0] != "mode:store" {
			t.Errorf("spec %q has areas %v and modes %v, want one area and mode:store", sr.FullText(), areas, modes)
		}
		specsPerReq[reqs[0]]++
	}
	for _, r := range suites.StoreRequirements() {
		if specsPerReq[r.ID] == 0 {
			t.Errorf("store requirement %s has no spec", r.ID)
		}
	}
	if specs < 80 {
		t.Errorf("only %d store specs, want at least 80", specs)
	}
	t.Logf("%d store specs cover %d requirements", specs, len(specsPerReq))
}

// TestEmbeddedTwice certifies two configurations in one run through
// DescribeStore.
func TestEmbeddedTwice(t *testing.T) {
	rep := suitetest.Run(func() {
		ginkgo.Describe("default options", func() { suites.DescribeStore(memoryFactory) })
		ginkgo.Describe("fast polling", func() {
			suites.DescribeStore(memoryFactory, suites.WithPollInterval(5e6), suites.WithImplementation("memory", "fast"))
		})
	}, nil)
	passed, total := 0, 0
	for _, sr := range rep.SpecReports {
		if !sr.LeafNodeType.Is(types.NodeTypeIt) {
			continue
		}
		total++
		if sr.State == types.SpecStatePassed || notApplicable(sr) {
			passed++
		} else {
			t.Errorf("%s: %s %s", sr.FullText(), sr.State, sr.Failure.Message)
		}
	}
	if total < 160 || passed != total {
		t.Errorf("%d of %d specs passed", passed, total)
	}
}

// TestFactoryErrorIsHarnessError checks that a store that cannot be opened
// is reported as a harness error, not as a non-conformant store.
func TestFactoryErrorIsHarnessError(t *testing.T) {
	broken := func(testing.TB, tasks.Config) (tasks.Store, error) {
		return nil, os.ErrPermission
	}
	gr := suitetest.Run(func() { suites.DescribeStore(broken) }, func(sc *types.SuiteConfig) { sc.LabelFilter = "area:lifecycle" })
	rep := report.FromGinkgo(gr, suites.ReportLookup, report.Meta{Mode: "store"})
	if rep.Summary.Totals[report.StatusError] == 0 || rep.Summary.Totals[report.StatusFail] != 0 {
		t.Errorf("totals %v, want only errors", rep.Summary.Totals)
	}
	if rep.ExitCode() != report.ExitHarnessError {
		t.Errorf("exit code %d, want %d", rep.ExitCode(), report.ExitHarnessError)
	}
	for _, e := range rep.Requirements {
		if e.Status == report.StatusError && !strings.Contains(e.Message, "factory failed") {
			t.Errorf("%s: message %q does not say the factory failed", e.ID, e.Message)
		}
	}
}

// notApplicable reports whether a spec was skipped because the memory store
// lacks an optional interface (leases).
func notApplicable(sr types.SpecReport) bool {
	return sr.State == types.SpecStateSkipped && strings.HasPrefix(sr.Failure.Message, suites.PrefixNotApplicable) &&
		slices.Contains(sr.Labels(), "feature:leases")
}
