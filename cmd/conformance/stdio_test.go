package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcptasks/mcptasks/internal/taskserverproc"
	"github.com/mcptasks/mcptasks/suites"
	"github.com/mcptasks/mcptasks/suites/report"
)

// TestStdioTaskserverThroughTheBinary certifies `taskserver --stdio` with
// --command: two identities are two commands on one SQLite file. The run
// is conformant, and it judges what the HTTP run of the reference
// deployment judges, apart from the rules of the HTTP transport and the
// multi-instance specs (a stdio server has no second instance to reach).
func TestStdioTaskserverThroughTheBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("two full conformance runs")
	}
	bin := taskserverproc.Binary(t)
	db := filepath.Join(t.TempDir(), "tasks.db")
	cmd := bin + " --stdio --fixtures --store 'sqlite:" + db + "'"
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, "--command", cmd, "--command-b", cmd, "--auth-contexts", "yes",
		"--profile", "mcptasks", "--report-dir", dir)
	if code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	r := readReport(t, dir)
	if r.Summary.Verdict != report.VerdictConformant {
		t.Errorf("verdict %s, want conformant\n%s", r.Summary.Verdict, stdout)
	}
	if len(r.Targets) != 2 || !strings.HasPrefix(r.Targets[0], "stdio: ") {
		t.Errorf("targets %q, want the two commands", r.Targets)
	}
	log, err := os.ReadFile(filepath.Join(dir, StderrLog))
	if err != nil || !strings.Contains(string(log), "serving MCP over stdio") {
		t.Errorf("%s does not hold the servers' stderr: %v", StderrLog, err)
	}

	httpDir := t.TempDir()
	if code, out, errOut := runCLI(t, "--report-dir", httpDir); code != 0 {
		t.Fatalf("HTTP reference run: exit %d\n%s\n%s", code, out, errOut)
	}
	overHTTP := readReport(t, httpDir)
	if len(r.Requirements) != len(overHTTP.Requirements) {
		t.Errorf("%d requirements over stdio, %d over HTTP", len(r.Requirements), len(overHTTP.Requirements))
	}
	httpOnly := 0
	for _, e := range overHTTP.Requirements {
		got := statusOf(r, e.ID)
		switch {
		case suites.HTTPOnly(e.ID):
			httpOnly++
			if got != report.StatusNotApplicable || !strings.Contains(messageOf(r, e.ID), "Streamable HTTP") {
				t.Errorf("%s (HTTP only): %s over stdio (%s), want not-applicable", e.ID, got, messageOf(r, e.ID))
			}
		case slices.Contains(stdioExtIDs, e.ID):
			if e.Status != report.StatusNotApplicable || got != report.StatusPass {
				t.Errorf("%s (stdio only): %s over stdio, %s over HTTP, want pass and not-applicable (%s)", e.ID, got, e.Status, messageOf(r, e.ID))
			}
		case strings.HasPrefix(e.ID, "MCPT-MULTI-"):
			if got != report.StatusNotApplicable {
				t.Errorf("%s: %s over stdio, want not-applicable", e.ID, got)
			}
		case got != e.Status:
			t.Errorf("%s: %s over stdio but %s over HTTP: %s", e.ID, got, e.Status, messageOf(r, e.ID))
		}
	}
	if httpOnly < 10 {
		t.Errorf("only %d HTTP-only requirements in the report", httpOnly)
	}
}

// TestStdioUsageAndHarnessErrors: --command does not mix with URLs, and a
// command that is no MCP server is a harness error that shows its stderr.
func TestStdioUsageAndHarnessErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--command", "x", "--server", "http://127.0.0.1:1/mcp"},
		{"--command", "x", "--header", "A: b"},
		{"--command-b", "x"},
		{"--command", "'unterminated"},
		{"--timeout-scale", "0"},
		{"--timeout-scale", "x"},
	} {
		if code, _, stderr := runCLI(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, stderr)
		}
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	code, stdout, stderr := runCLI(t, "--command", sh+` -c 'echo no MCP here >&2; exit 1'`, "--report-dir", t.TempDir())
	if code != 3 {
		t.Fatalf("exit %d, want 3\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "no MCP here") {
		t.Errorf("the child's stderr is not shown:\n%s", stderr)
	}
}
