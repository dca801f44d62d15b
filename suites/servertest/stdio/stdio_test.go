// Package stdio_test certifies `taskserver --stdio` through the go test
// door (suites.RunServer with a Command) and checks that the report equals
// the one the conformance command writes for the same server.
package stdio_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/suites"
	"github.com/mcptasks/mcptasks/suites/report"
)

// build compiles a command of this module into dir.
func build(t *testing.T, dir, pkg string) string {
	t.Helper()
	out := filepath.Join(dir, filepath.Base(pkg))
	if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	return out
}

// TestRunServerEqualsTheCLI runs the same stdio server through both doors
// with the same seed: the two reports agree field for field, apart from
// times and the build data of the binary that wrote them.
func TestRunServerEqualsTheCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("two full conformance runs")
	}
	bins := t.TempDir()
	server := build(t, bins, "../../../cmd/taskserver")
	cli := build(t, bins, "../../../cmd/conformance")
	command := []string{server, "--stdio", "--fixtures"}
	const seed = 4242

	cliDir := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, cli, "--command", strings.Join(command, " "), "--seed", "4242", "--report-dir", cliDir)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("running the CLI: %v", err)
		}
		t.Logf("CLI exit %d:\n%s", ee.ExitCode(), out.String())
	}

	goDir := t.TempDir()
	suites.RunServer(t, suites.ServerConfig{Command: command},
		suites.WithReportDir(goDir), suites.WithSeed(seed))

	fromCLI, fromGo := load(t, cliDir), load(t, goDir)
	if fromGo.SchemaSHA256 == "" || len(fromGo.Features.Declared) == 0 || len(fromGo.Features.Inferred) == 0 {
		t.Errorf("the go test report lacks the schema hash or features: %q %v", fromGo.SchemaSHA256, fromGo.Features)
	}
	if fromGo.Summary.Verdict == report.VerdictNonConformant || fromGo.Summary.Totals[report.StatusFail] > 0 {
		t.Errorf("taskserver --stdio: verdict %s", fromGo.Summary.Verdict)
	}
	// The 2026-07-28 stdio specs run here and pass.
	for _, id := range []string{"EXT-BASE-015", "EXT-XPORT-023", "EXT-XPORT-024"} {
		got := report.Status("")
		for _, e := range fromGo.Requirements {
			if e.ID == id {
				got = e.Status
			}
		}
		if got != report.StatusPass {
			t.Errorf("%s over stdio: %q, want pass", id, got)
		}
	}
	a, b := canonical(t, fromCLI), canonical(t, fromGo)
	if !bytes.Equal(a, b) {
		t.Errorf("the reports differ:\nCLI:     %s\ngo test: %s", firstDiff(a, b), firstDiff(b, a))
	}
}

func load(t *testing.T, dir string) *report.Report {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, report.FileJSON))
	if err != nil {
		t.Fatal(err)
	}
	var r report.Report
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// canonical renders a report without what legitimately differs between
// two runs: times, durations and the build of the writing binary. Specs
// of one requirement are sorted by name.
func canonical(t *testing.T, r *report.Report) []byte {
	t.Helper()
	r.GeneratedAt = time.Time{}
	r.Tool = report.Tool{}
	r.Summary.DurationSeconds = 0
	for _, es := range [][]report.Entry{r.Requirements, r.Recommendations} {
		for i := range es {
			es[i].DurationSeconds = 0
			for j := range es[i].Specs {
				es[i].Specs[j].DurationSeconds = 0
			}
			slices.SortFunc(es[i].Specs, func(x, y report.Spec) int { return strings.Compare(x.Name, y.Name) })
		}
	}
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// firstDiff shows a's lines around its first line that differs from b.
func firstDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	i := 0
	for i < len(la) && i < len(lb) && la[i] == lb[i] {
		i++
	}
	return strings.Join(la[max(i-4, 0):min(i+3, len(la))], "\n")
}
