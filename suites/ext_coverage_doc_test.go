package suites

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

var updateExtCoverage = flag.Bool("update", false, "rewrite docs/ext-coverage.md from the catalog and the specs")

// extCatalogEntry is the part of a catalog entry the coverage doc reads.
type extCatalogEntry struct {
	ID         string   `yaml:"id"`
	Level      string   `yaml:"level"`
	TestableBy []string `yaml:"testable_by"`
}

// findSharedSpec locates the directory of the requirement catalogs: the
// environment variable MCPTASKS_SHARED_SPEC, else a shared/spec beside
// the clone (CI) or beside the worktrees; "" when the extension catalog
// is in none of them.
func findSharedSpec() string {
	dirs := []string{filepath.Join("..", "..", "shared", "spec"), filepath.Join("..", "..", "..", "shared", "spec")}
	if dir := os.Getenv("MCPTASKS_SHARED_SPEC"); dir != "" {
		dirs = []string{dir}
	}
	for _, dir := range dirs {
		if _, err := os.Stat(filepath.Join(dir, "ext-tasks-requirements.yaml")); err == nil {
			return dir
		}
	}
	return ""
}

// extSpecRef is one spec carrying an EXT- id: its file and its text.
type extSpecRef struct {
	file, text string
}

// extSpecsInSource finds the env.It and env.ItNeeding calls of the suite's
// source files that carry an EXT- id.
func extSpecsInSource(t *testing.T) map[string][]extSpecRef {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	itCall := regexp.MustCompile(`env\.It(?:Needing)?\(\s*"((?:[^"\\]|\\.)*)",\s*"(EXT-[A-Z]+-[0-9]+)"`)
	out := map[string][]extSpecRef{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range itCall.FindAllStringSubmatch(string(src), -1) {
			out[m[2]] = append(out[m[2]], extSpecRef{file: f, text: m[1]})
		}
	}
	return out
}

// TestExtNotJudgedIsApart needs no catalog: a requirement the suite
// registers is not also listed as not judged, every registered EXT- id
// has a spec, and every reason says something.
func TestExtNotJudgedIsApart(t *testing.T) {
	specs := extSpecsInSource(t)
	for _, r := range extRequirements {
		if _, ok := extNotJudged[r.ID]; ok {
			t.Errorf("%s is registered with a spec and also listed as not judged", r.ID)
		}
		if len(specs[r.ID]) == 0 {
			t.Errorf("%s is registered, but no env.It in suites/ carries it", r.ID)
		}
	}
	registered := map[string]bool{}
	for _, r := range extRequirements {
		registered[r.ID] = true
	}
	// A reason that names the spec judging the rule instead ("judged
	// by", "guarded by") must name registered requirements.
	clause := regexp.MustCompile(`(?i)(?:judged (?:by|within|as)|guarded by)([^.]*)`)
	for id, reason := range extNotJudged {
		if len(strings.TrimSpace(reason)) < 10 {
			t.Errorf("%s: the reason %q says nothing", id, reason)
		}
		for _, m := range clause.FindAllStringSubmatch(reason, -1) {
			for _, named := range extIDsIn(m[1]) {
				if !registered[named] {
					t.Errorf("%s: the reason says %s judges it, but %s is not registered", id, named, named)
				}
			}
		}
	}
	for id := range specs {
		if !slices.ContainsFunc(extRequirements, func(r Requirement) bool { return r.ID == id }) {
			t.Errorf("a spec carries %s, which extRequirements does not register", id)
		}
	}
}

// extIDsIn lists the requirement ids a text names, expanding the short
// form EXT-GET-008/009 into EXT-GET-008 and EXT-GET-009; discrepancy
// decisions (EXT-DISC-…) are not requirements and are left out.
func extIDsIn(text string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`EXT-([A-Z]+)-([0-9]{3})((?:/[0-9]{3})*)`).FindAllStringSubmatch(text, -1) {
		if m[1] == "DISC" {
			continue
		}
		out = append(out, "EXT-"+m[1]+"-"+m[2])
		for _, n := range strings.Split(m[3], "/")[1:] {
			out = append(out, "EXT-"+m[1]+"-"+n)
		}
	}
	return out
}

// TestExtCoverageDoc checks that every server-testable entry of the tasks
// extension catalog is either judged by a registered spec or listed in
// extNotJudged with a reason, and that docs/ext-coverage.md is what the
// two render to (go test ./suites -run TestExtCoverageDoc -update
// rewrites it).
func TestExtCoverageDoc(t *testing.T) {
	dir := findSharedSpec()
	if dir == "" {
		t.Skip("the catalog ext-tasks-requirements.yaml is not beside the clone (set MCPTASKS_SHARED_SPEC to its directory)")
	}
	raw, err := os.ReadFile(filepath.Join(dir, "ext-tasks-requirements.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cat struct {
		Requirements []extCatalogEntry `yaml:"requirements"`
	}
	if err := yaml.Unmarshal(raw, &cat); err != nil {
		t.Fatalf("reading the catalog: %v", err)
	}
	registered := map[string]Requirement{}
	for _, r := range extRequirements {
		registered[r.ID] = r
	}
	var rows []extCatalogEntry
	inCatalog := map[string]bool{}
	for _, e := range cat.Requirements {
		if !slices.Contains(e.TestableBy, "server") {
			continue
		}
		rows = append(rows, e)
		inCatalog[e.ID] = true
		_, judged := registered[e.ID]
		_, skipped := extNotJudged[e.ID]
		switch {
		case !judged && !skipped:
			t.Errorf("%s (%s) is server-testable in the catalog but neither registered nor in extNotJudged", e.ID, e.Level)
		case judged && skipped:
			t.Errorf("%s is both registered and in extNotJudged", e.ID)
		}
	}
	if len(rows) < 100 {
		t.Fatalf("only %d server-testable entries in %s", len(rows), dir)
	}
	for id := range registered {
		if !inCatalog[id] {
			t.Errorf("%s is registered but is no server-testable entry of the catalog", id)
		}
	}
	for id := range extNotJudged {
		if !inCatalog[id] {
			t.Errorf("%s is in extNotJudged but is no server-testable entry of the catalog", id)
		}
	}

	// docs/ext-tasks.md states the counts in prose; keep them true.
	prose, err := os.ReadFile(filepath.Join("..", "docs", "ext-tasks.md"))
	if err != nil {
		t.Fatal(err)
	}
	flat := strings.Join(strings.Fields(string(prose)), " ")
	for _, want := range []string{
		fmt.Sprintf("judge %d server-testable requirements", len(extRequirements)),
		fmt.Sprintf("Not judged (%d of the catalog's %d server-testable entries)", len(rows)-len(extRequirements), len(rows)),
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("docs/ext-tasks.md does not say %q", want)
		}
	}

	doc := renderExtCoverage(rows, registered, extSpecsInSource(t))
	path := filepath.Join("..", "docs", "ext-coverage.md")
	if *updateExtCoverage {
		if err := os.WriteFile(path, doc, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, doc) {
		t.Errorf("docs/ext-coverage.md is out of date with the catalog, extRequirements and extNotJudged; rewrite it with: go test ./suites -run TestExtCoverageDoc -update")
	}
}

// renderExtCoverage writes the coverage table: one row per server-testable
// catalog entry, in catalog order.
func renderExtCoverage(rows []extCatalogEntry, registered map[string]Requirement, specs map[string][]extSpecRef) []byte {
	// Per level: judged, guarded by another requirement, not judged.
	const judgedCol, guardedCol, notCol = 0, 1, 2
	kind := func(id string) int {
		if _, ok := registered[id]; ok {
			return judgedCol
		}
		if strings.HasPrefix(extNotJudged[id], "Guarded by") {
			return guardedCol
		}
		return notCol
	}
	levels := map[string][3]int{}
	var total [3]int
	order := []string{"MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY", "INFORMATIVE"}
	for _, e := range rows {
		c := levels[e.Level]
		c[kind(e.ID)]++
		total[kind(e.ID)]++
		if !slices.Contains(order, e.Level) {
			order = append(order, e.Level)
		}
		levels[e.Level] = c
	}
	var b bytes.Buffer
	b.WriteString("# The tasks extension catalog and the specs that judge it\n\n")
	b.WriteString("<!-- Generated by `go test ./suites -run TestExtCoverageDoc -update`; do not edit by hand. -->\n\n")
	fmt.Fprintf(&b, "Every entry of the 2026-07-28 tasks extension catalog (`shared/spec/ext-tasks-requirements.yaml`)\n"+
		"that a server suite can test (`testable_by` names `server`): %d entries. The server suite judges %d of\n"+
		"them with specs of their own (registered in `suites/requirements_ext.go`, specs in `suites/ext_*.go`\n"+
		"and `suites/shared_invariants.go`); the other %d are listed with the reason they are not judged\n"+
		"(`extNotJudged` in `suites/ext_not_judged.go`). Of those, %d are **guarded**: the specs of the\n"+
		"requirements the reason names already fail a server that breaks the rule, so it gets no spec of its\n"+
		"own (one violation, one failing requirement). \"Not yet written\" marks a rule a spec could judge\n"+
		"that nobody has written one for.\n\n", len(rows), total[judgedCol], len(rows)-total[judgedCol], total[guardedCol])
	b.WriteString("`TestExtCoverageDoc` (package `suites`) fails when a server-testable entry is in neither list, when\n" +
		"one is in both, or when this page differs from what they render to; `TestExtNotJudgedIsApart` fails\n" +
		"when a reason says a requirement judges the rule that is not registered. The catalog level is the\n" +
		"catalog's; the suite level is the one the spec reports at (MUST NOT and SHOULD NOT fold into MUST and\n" +
		"SHOULD, informative entries are MAY unless a discrepancy decision makes a violation a failure). How\n" +
		"a spec decides is in [conformance.md](conformance.md#how-a-spec-decides); the profile itself is in\n" +
		"[ext-tasks.md](ext-tasks.md).\n\n")
	b.WriteString("| catalog level | judged | guarded | not judged |\n|---|---|---|---|\n")
	for _, l := range order {
		fmt.Fprintf(&b, "| %s | %d | %d | %d |\n", l, levels[l][judgedCol], levels[l][guardedCol], levels[l][notCol])
	}
	fmt.Fprintf(&b, "| all | %d | %d | %d |\n\n", total[judgedCol], total[guardedCol], total[notCol])
	b.WriteString("| requirement | catalog level | suite level | judged by (spec, file) or why not |\n|---|---|---|---|\n")
	for _, e := range rows {
		switch kind(e.ID) {
		case judgedCol:
			var by []string
			for _, s := range specs[e.ID] {
				by = append(by, fmt.Sprintf("%s (`%s`)", s.text, s.file))
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", e.ID, e.Level, registered[e.ID].Level, strings.Join(by, "; "))
		case guardedCol:
			fmt.Fprintf(&b, "| %s | %s | guarded | %s |\n", e.ID, e.Level, strings.ReplaceAll(extNotJudged[e.ID], "|", "\\|"))
		default:
			fmt.Fprintf(&b, "| %s | %s | not judged | %s |\n", e.ID, e.Level, strings.ReplaceAll(extNotJudged[e.ID], "|", "\\|"))
		}
	}
	return b.Bytes()
}
