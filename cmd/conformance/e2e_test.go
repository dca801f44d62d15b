package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/suites/report"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// binary builds the conformance command once per test run.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "conformance-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "conformance")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = errors.New(string(out))
		}
	})
	if buildErr != nil {
		t.Fatalf("building the conformance binary: %v", buildErr)
	}
	return binPath
}

// runCLI runs the binary and returns its exit code and output.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(t), args...)
	cmd.Env = append(os.Environ(), EnvPrefix+"NO_COLOR=true")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running the binary: %v", err)
	}
	return code, stdout.String(), stderr.String()
}

// readReport loads conformance-report.json and validates it against the
// JSON schema the project ships for it.
func readReport(t *testing.T, dir string) *report.Report {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, report.FileJSON))
	if err != nil {
		t.Fatalf("report: %v", err)
	}
	if err := report.Validate(raw); err != nil {
		t.Errorf("conformance-report.json does not match its schema: %v", err)
	}
	var r report.Report
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

func messageOf(r *report.Report, id string) string {
	for _, e := range r.Requirements {
		if e.ID == id {
			return e.Message
		}
	}
	return ""
}

func statusOf(r *report.Report, id string) report.Status {
	for _, e := range r.Requirements {
		if e.ID == id {
			return e.Status
		}
	}
	return ""
}

// TestReferenceThroughTheBinary is the README's main command: no flags,
// the built-in reference deployment, verdict conformant, every file.
func TestReferenceThroughTheBinary(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, "--report-dir", dir)
	if code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "CONFORMANT") {
		t.Errorf("no verdict in the output:\n%s", stdout)
	}
	for _, f := range []string{report.FileJSON, report.FileJUnit, report.FileMarkdown, report.FileHTML} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty: %v", f, err)
		}
	}
	r := readReport(t, dir)
	if r.Summary.Verdict != report.VerdictConformant {
		t.Errorf("verdict %s", r.Summary.Verdict)
	}
	for _, e := range r.Requirements {
		if e.Status == report.StatusFail || e.Status == report.StatusError || e.Status == report.StatusNotSupported {
			t.Errorf("%s %s: %s", e.ID, e.Status, e.Message)
		}
	}
	if len(r.Requirements) < 50 {
		t.Errorf("only %d requirements reported", len(r.Requirements))
	}
	// The reference server is the toolkit's own: its rules bind there.
	if r.Profile != report.ProfileToolkit || len(r.Recommendations) != 0 {
		t.Errorf("profile %q with %d recommendations, want %q with the toolkit rules among the requirements",
			r.Profile, len(r.Recommendations), report.ProfileToolkit)
	}
}

func TestUnreachableServerIsAHarnessError(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, "--server", "http://127.0.0.1:1/mcp", "--report-dir", dir)
	if code != 3 {
		t.Fatalf("exit %d, want 3\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "cannot reach the server") {
		t.Errorf("stderr does not say the server is unreachable:\n%s", stderr)
	}
	if strings.Count(stdout+stderr, "\n") > 10 {
		t.Errorf("too much output for an unreachable server:\n%s%s", stdout, stderr)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--no-such-flag"},
		{"--server", "ftp://x/mcp"},
		{"--server", "http://127.0.0.1:1/mcp", "--fixture", "nosuchrole=x"},
		{"--server", "http://127.0.0.1:1/mcp", "--fixture-arg", "sleep.nosuch=x"},
		{"--server", "http://127.0.0.1:1/mcp", "--header", "no colon"},
		{"stray"},
	} {
		code, _, stderr := runCLI(t, args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, stderr)
		}
	}
}

func TestListAndVersion(t *testing.T) {
	code, stdout, _ := runCLI(t, "--list")
	if code != 0 || !strings.Contains(stdout, "TASKS-RESULT-004") || !strings.Contains(stdout, "requirements") {
		t.Errorf("--list: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = runCLI(t, "--version")
	if code != 0 || !strings.Contains(stdout, "2025-11-25") {
		t.Errorf("--version: exit %d %q", code, stdout)
	}
}
