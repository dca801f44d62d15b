package report_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/mcptasks/mcptasks/suites/report"
)

var registry = map[string]report.Requirement{
	"T-MUST-1":   {ID: "T-MUST-1", Level: "MUST", Section: "s1", Summary: "first"},
	"T-MUST-2":   {ID: "T-MUST-2", Level: "MUST", Section: "s2", Summary: "second"},
	"T-SHOULD-1": {ID: "T-SHOULD-1", Level: "SHOULD", Section: "s3", Summary: "third"},
	"T-MAY-1":    {ID: "T-MAY-1", Level: "MAY", Section: "s4", Summary: "fourth"},
	"TK-MUST-1":  {ID: "TK-MUST-1", Level: "MUST", Section: "s5", Summary: "a toolkit rule", Toolkit: true},
}

func lookup(id string) (report.Requirement, bool) {
	r, ok := registry[id]
	return r, ok
}

// spec builds a spec report for requirement id.
func spec(name, id string, state types.SpecState, msg string) types.SpecReport {
	return types.SpecReport{
		ContainerHierarchyTexts:  []string{"suite", "area"},
		ContainerHierarchyLabels: [][]string{{"mode:store"}, {"area:x"}},
		LeafNodeType:             types.NodeTypeIt,
		LeafNodeText:             name,
		LeafNodeLabels:           []string{"req:" + id, "level:must"},
		State:                    state,
		RunTime:                  1500 * time.Microsecond,
		Failure:                  types.Failure{Message: msg, Location: types.CodeLocation{FileName: "x_test.go", LineNumber: 7}},
	}
}

func ginkgoReport(specs ...types.SpecReport) types.Report {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return types.Report{SuiteDescription: "t", StartTime: start, EndTime: start.Add(2 * time.Second), SpecReports: specs}
}

func TestClassification(t *testing.T) {
	tests := []struct {
		name  string
		state types.SpecState
		msg   string
		want  report.Status
	}{
		{"pass", types.SpecStatePassed, "", report.StatusPass},
		{"fail", types.SpecStateFailed, "expected 1 got 2", report.StatusFail},
		{"timeout", types.SpecStateTimedout, "timed out", report.StatusFail},
		{"panic", types.SpecStatePanicked, "Test Panicked", report.StatusFail},
		{"harness", types.SpecStateFailed, report.PrefixHarnessError + "factory failed", report.StatusError},
		{"interrupted", types.SpecStateInterrupted, "interrupted", report.StatusError},
		{"not supported", types.SpecStateSkipped, report.PrefixNotSupported + "no fixture", report.StatusNotSupported},
		{"not applicable", types.SpecStateSkipped, report.PrefixNotApplicable + "no list", report.StatusNotApplicable},
		{"filtered", types.SpecStateSkipped, "", report.StatusSkipped},
		{"skipped", types.SpecStateSkipped, "later", report.StatusSkipped},
		{"pending", types.SpecStatePending, "", report.StatusSkipped},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := report.FromGinkgo(ginkgoReport(spec("one", "T-MUST-1", tt.state, tt.msg)), lookup, report.Meta{Mode: "store"})
			if len(r.Requirements) != 1 {
				t.Fatalf("got %d entries", len(r.Requirements))
			}
			e := r.Requirements[0]
			if e.Status != tt.want {
				t.Errorf("status %q, want %q", e.Status, tt.want)
			}
			if strings.HasPrefix(e.Message, "not-") || strings.HasPrefix(e.Message, "harness-") {
				t.Errorf("message keeps its prefix: %q", e.Message)
			}
		})
	}
}

func TestVerdictAndExitCode(t *testing.T) {
	tests := []struct {
		name    string
		specs   []types.SpecReport
		strict  bool
		verdict report.Verdict
		exit    int
	}{
		{"all pass", []types.SpecReport{
			spec("a", "T-MUST-1", types.SpecStatePassed, ""),
			spec("b", "T-MUST-2", types.SpecStatePassed, ""),
		}, false, report.VerdictConformant, report.ExitConformant},
		{"one case of a MUST fails", []types.SpecReport{
			spec("a", "T-MUST-1", types.SpecStatePassed, ""),
			spec("a2", "T-MUST-1", types.SpecStateFailed, "boom"),
		}, false, report.VerdictNonConformant, report.ExitNonConformant},
		{"a MUST filtered out", []types.SpecReport{
			spec("a", "T-MUST-1", types.SpecStatePassed, ""),
			spec("b", "T-MUST-2", types.SpecStateSkipped, ""),
		}, false, report.VerdictPartial, report.ExitConformant},
		{"a MUST not supported", []types.SpecReport{
			spec("b", "T-MUST-2", types.SpecStateSkipped, report.PrefixNotSupported+"x"),
		}, false, report.VerdictPartial, report.ExitConformant},
		{"a MUST not applicable", []types.SpecReport{
			spec("a", "T-MUST-1", types.SpecStatePassed, ""),
			spec("b", "T-MUST-2", types.SpecStateSkipped, report.PrefixNotApplicable+"x"),
		}, false, report.VerdictConformant, report.ExitConformant},
		{"a SHOULD fails", []types.SpecReport{
			spec("a", "T-MUST-1", types.SpecStatePassed, ""),
			spec("c", "T-SHOULD-1", types.SpecStateFailed, "meh"),
		}, false, report.VerdictConformant, report.ExitConformant},
		{"a SHOULD fails, strict", []types.SpecReport{
			spec("a", "T-MUST-1", types.SpecStatePassed, ""),
			spec("c", "T-SHOULD-1", types.SpecStateFailed, "meh"),
		}, true, report.VerdictNonConformant, report.ExitNonConformant},
		{"harness error", []types.SpecReport{
			spec("a", "T-MUST-1", types.SpecStateFailed, report.PrefixHarnessError+"down"),
		}, false, report.VerdictPartial, report.ExitHarnessError},
		{"failure beats harness error", []types.SpecReport{
			spec("a", "T-MUST-1", types.SpecStateFailed, report.PrefixHarnessError+"down"),
			spec("b", "T-MUST-2", types.SpecStateFailed, "wrong"),
		}, false, report.VerdictNonConformant, report.ExitNonConformant},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := report.FromGinkgo(ginkgoReport(tt.specs...), lookup, report.Meta{Mode: "store", Strict: tt.strict})
			if r.Summary.Verdict != tt.verdict {
				t.Errorf("verdict %q, want %q", r.Summary.Verdict, tt.verdict)
			}
			if got := r.ExitCode(); got != tt.exit {
				t.Errorf("exit code %d, want %d", got, tt.exit)
			}
		})
	}
}

func TestHarnessProblems(t *testing.T) {
	noLabel := spec("x", "T-MUST-1", types.SpecStatePassed, "")
	noLabel.LeafNodeLabels = nil
	unknown := spec("y", "NOPE-1", types.SpecStatePassed, "")
	before := types.SpecReport{LeafNodeType: types.NodeTypeBeforeSuite, State: types.SpecStateFailed, Failure: types.Failure{Message: "db down"}}
	gr := ginkgoReport(noLabel, unknown, before)
	gr.SpecialSuiteFailureReasons = []string{"Interrupted by User"}
	r := report.FromGinkgo(gr, lookup, report.Meta{Mode: "server"})
	if len(r.HarnessErrors) != 4 {
		t.Fatalf("harness errors %q, want 4", r.HarnessErrors)
	}
	if r.ExitCode() != report.ExitHarnessError {
		t.Errorf("exit code %d, want %d", r.ExitCode(), report.ExitHarnessError)
	}
}

func TestCountsAndFailingOrder(t *testing.T) {
	r := report.FromGinkgo(ginkgoReport(
		spec("a", "T-MUST-1", types.SpecStatePassed, ""),
		spec("b", "T-MUST-2", types.SpecStateFailed, "bad"),
		spec("c", "T-SHOULD-1", types.SpecStateSkipped, report.PrefixNotSupported+"no"),
		spec("d", "T-MAY-1", types.SpecStateFailed, "eh"),
	), lookup, report.Meta{Mode: "store"})
	if got := r.Summary.Counts["MUST"][report.StatusPass]; got != 1 {
		t.Errorf("MUST pass = %d", got)
	}
	if got := r.Summary.Counts["MUST"][report.StatusFail]; got != 1 {
		t.Errorf("MUST fail = %d", got)
	}
	if got := r.Summary.Totals[report.StatusFail]; got != 2 {
		t.Errorf("fail total = %d", got)
	}
	var ids []string
	for _, e := range r.Failing() {
		ids = append(ids, e.ID)
	}
	if want := "T-MUST-2,T-MAY-1,T-SHOULD-1"; strings.Join(ids, ",") != want {
		t.Errorf("failing order %v, want %s", ids, want)
	}
}

func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"memory", "memory"},
		{"postgres://bob:hunter2@db:5432/x?sslmode=disable", "postgres://bob:REDACTED@db:5432/x?sslmode=disable"},
		{"redis://localhost:6379/0", "redis://localhost:6379/0"},
		{"https://h/mcp?access_token=abc&x=1", "https://h/mcp?access_token=REDACTED&x=1"},
		{"dynamodb://t?endpoint=http://x&aws_secret_access_key=s", "dynamodb://t?aws_secret_access_key=REDACTED&endpoint=http%3A%2F%2Fx"},
	}
	for _, tt := range tests {
		if got := report.Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if strings.Contains(report.Redact(tt.in), "hunter2") {
			t.Errorf("password leaked")
		}
	}
}

// TestWriteAllValidates writes every file and validates the JSON against
// the shipped schema.
func TestWriteAllValidates(t *testing.T) {
	gr := ginkgoReport(
		spec("a <b>", "T-MUST-1", types.SpecStatePassed, ""),
		spec("b", "T-MUST-2", types.SpecStateFailed, "got <script>alert(1)</script> | pipe"),
		spec("c", "T-SHOULD-1", types.SpecStateSkipped, report.PrefixNotSupported+"no fixture"),
		spec("d", "T-MAY-1", types.SpecStateSkipped, ""),
	)
	r := report.FromGinkgo(gr, lookup, report.Meta{
		Mode: "store", Targets: []string{"postgres://u:secret@h/db"},
		Implementation: &report.Implementation{Name: "memory", Version: "1"},
		SchemaSHA256:   strings.Repeat("ab", 32),
	})
	dir := t.TempDir()
	if err := report.WriteAll(dir, r, gr); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{report.FileJSON, report.FileJUnit, report.FileMarkdown, report.FileHTML} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("secret")) {
			t.Errorf("%s leaks the password", f)
		}
	}
	html, _ := os.ReadFile(filepath.Join(dir, report.FileHTML))
	if bytes.Contains(html, []byte("<script>")) {
		t.Error("report.html does not escape messages")
	}
	for _, ext := range []string{"src=", "href=", "@import", "url("} {
		if bytes.Contains(html, []byte(ext)) {
			t.Errorf("report.html refers to an external asset (%s)", ext)
		}
	}
	if !bytes.Contains(html, []byte("non-conformant")) {
		t.Error("report.html does not show the verdict")
	}
	md, _ := os.ReadFile(filepath.Join(dir, report.FileMarkdown))
	if !bytes.Contains(md, []byte("| T-MUST-2 | MUST | fail |")) {
		t.Errorf("summary.md does not list the failure:\n%s", md)
	}
	validate(t, filepath.Join(dir, report.FileJSON))
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "Verdict: non-conformant") || !strings.Contains(text.String(), "T-MUST-2") {
		t.Errorf("text summary:\n%s", text.String())
	}
}

// validate checks a report file against report.Schema, and that the
// schema rejects a broken copy of it.
func validate(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := report.Validate(b); err != nil {
		t.Fatalf("%s does not match the report schema: %v", path, err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m["summary"].(map[string]any)["verdict"] = "fine"
	broken, _ := json.Marshal(m)
	if err := report.Validate(broken); err == nil {
		t.Error("the schema accepts an unknown verdict")
	}
}

// TestToolkitRulesAreRecommendations checks the verdict rule for the
// toolkit's own rules: reported apart and never deciding the verdict,
// unless the mcptasks profile or strict mode binds them.
func TestToolkitRulesAreRecommendations(t *testing.T) {
	specs := []types.SpecReport{
		spec("a", "T-MUST-1", types.SpecStatePassed, ""),
		spec("k", "TK-MUST-1", types.SpecStateFailed, "toolkit rule broken"),
	}
	tests := []struct {
		name    string
		meta    report.Meta
		verdict report.Verdict
		apart   bool
	}{
		{"mcp profile", report.Meta{Mode: "server"}, report.VerdictConformant, true},
		{"explicit mcp profile", report.Meta{Mode: "server", Profile: report.ProfileMCP}, report.VerdictConformant, true},
		{"toolkit profile", report.Meta{Mode: "server", Profile: report.ProfileToolkit}, report.VerdictNonConformant, false},
		{"strict", report.Meta{Mode: "server", Strict: true}, report.VerdictNonConformant, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gr := ginkgoReport(specs...)
			r := report.FromGinkgo(gr, lookup, tt.meta)
			if r.Summary.Verdict != tt.verdict {
				t.Errorf("verdict %q, want %q", r.Summary.Verdict, tt.verdict)
			}
			inRecs := len(r.Recommendations) == 1 && r.Recommendations[0].ID == "TK-MUST-1"
			if inRecs != tt.apart {
				t.Errorf("recommendations %+v, want TK-MUST-1 apart: %v", r.Recommendations, tt.apart)
			}
			for _, e := range r.Requirements {
				if e.ID == "TK-MUST-1" && tt.apart {
					t.Error("TK-MUST-1 is listed among the requirements too")
				}
				if e.ID == "T-MUST-1" && e.Origin != report.OriginSpec {
					t.Errorf("T-MUST-1 origin %q", e.Origin)
				}
			}
			if tt.apart {
				if r.Summary.Totals[report.StatusFail] != 0 || r.Summary.Recommendations[report.StatusFail] != 1 {
					t.Errorf("totals %v, recommendations %v: the toolkit failure must be counted apart", r.Summary.Totals, r.Summary.Recommendations)
				}
				if got := r.RecommendationsNotMet(); len(got) != 1 || got[0].Origin != report.OriginToolkit {
					t.Errorf("RecommendationsNotMet %+v", got)
				}
			}
			dir := t.TempDir()
			if err := report.WriteAll(dir, r, gr); err != nil {
				t.Fatal(err)
			}
			validate(t, filepath.Join(dir, report.FileJSON))
			junit, _ := os.ReadFile(filepath.Join(dir, report.FileJUnit))
			md, _ := os.ReadFile(filepath.Join(dir, report.FileMarkdown))
			html, _ := os.ReadFile(filepath.Join(dir, report.FileHTML))
			if tt.apart {
				if !bytes.Contains(junit, []byte(report.RecommendationPrefix+"k")) || bytes.Contains(junit, []byte("failures=\"1\"")) {
					t.Errorf("junit.xml does not report the recommendation apart as a non-failure:\n%s", junit)
				}
				if !bytes.Contains(md, []byte("## Recommendations")) || !bytes.Contains(md, []byte("| TK-MUST-1 | MUST | fail | toolkit rule broken |")) {
					t.Errorf("summary.md has no recommendations section:\n%s", md)
				}
				if !bytes.Contains(html, []byte("<h2>Recommendations</h2>")) {
					t.Error("report.html has no recommendations section")
				}
			} else {
				if !bytes.Contains(junit, []byte("failures=\"1\"")) {
					t.Errorf("junit.xml does not count the bound toolkit rule as a failure:\n%s", junit)
				}
				if bytes.Contains(md, []byte("## Recommendations")) {
					t.Error("summary.md lists recommendations although the toolkit rules are bound")
				}
			}
		})
	}
}

// TestFeatureDecisionsShown checks that summary.md and report.html show
// the feature decisions, so a reader sees why a requirement was not
// judged without opening the JSON.
func TestFeatureDecisionsShown(t *testing.T) {
	gr := ginkgoReport(spec("a", "T-MUST-1", types.SpecStateSkipped, report.PrefixNotSupported+"no cancel"))
	r := report.FromGinkgo(gr, lookup, report.Meta{
		Mode: "server",
		Features: report.Features{
			Overridden: []string{"progress=off"},
			Decisions: []report.FeatureDecision{
				{Name: "cancel", State: "off", Source: "declared", Reason: "capabilities.tasks.cancel absent <b>"},
				{Name: "progress", State: "off", Source: "overridden", Reason: "--feature progress=off"},
			},
		},
	})
	dir := t.TempDir()
	if err := report.WriteAll(dir, r, gr); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, report.FileMarkdown))
	for _, want := range []string{"## Features", "| cancel | off | declared | capabilities.tasks.cancel absent", "Overridden by the operator: progress=off"} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("summary.md lacks %q:\n%s", want, md)
		}
	}
	html, _ := os.ReadFile(filepath.Join(dir, report.FileHTML))
	for _, want := range []string{"<h2>Features</h2>", "<b>progress</b>", "Overridden by the operator: progress=off", "absent &lt;b&gt;"} {
		if !bytes.Contains(html, []byte(want)) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	// A run without decisions (an old caller) has no empty section.
	r.Features = report.Features{}
	var b bytes.Buffer
	if err := r.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "## Features") {
		t.Error("an empty Features section was written")
	}
}
