// Command conformance certifies an MCP 2025-11-25 server's task support
// over Streamable HTTP with the mcptasks conformance suite:
//
//	conformance --server https://example.com/mcp --header 'Authorization: Bearer …'
//
// With no --server it starts the mcptasks reference server in-process (memory
// store, fixture tools, two identities, two instances) and certifies it. It
// writes conformance-report.json, junit.xml, summary.md and report.html into
// --report-dir and exits 0 (conformant, or partial without failures), 1
// (non-conformant), 2 (usage error) or 3 (harness error, e.g. the server is
// unreachable).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/formatter"
	"github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/suites"
	"github.com/mcptasks/mcptasks/suites/report"
)

// Exit codes, shared with the report package.
const (
	exitConformant = report.ExitConformant
	exitUsage      = report.ExitUsage
	exitHarness    = report.ExitHarnessError
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	getenv := os.Getenv
	if fi, err := os.Stdout.Stat(); err == nil && fi.Mode()&os.ModeCharDevice == 0 {
		// Not a terminal: no colour codes unless asked for.
		getenv = func(k string) string {
			if k == EnvPrefix+"NO_COLOR" && os.Getenv(k) == "" {
				return "true"
			}
			return os.Getenv(k)
		}
	}
	code := run(ctx, os.Args[1:], getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// StderrLog is the file in the report directory that receives the stderr
// of every server process of a stdio run.
const StderrLog = "server-stderr.log"

// fakeT is the GinkgoTestingT Ginkgo needs outside go test.
type fakeT struct{ failed bool }

func (t *fakeT) Fail() { t.failed = true }

// run is the whole command; it returns the exit code.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	c, err := parseFlags(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitConformant
	}
	if err != nil {
		fmt.Fprintf(stderr, "conformance: %v (see --help)\n", err)
		return exitUsage
	}
	if f, ok := stdout.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			c.tty = true
		}
	}
	if c.version {
		fmt.Fprintln(stdout, versionString())
		return exitConformant
	}
	cfg, err := c.serverConfig()
	if err != nil {
		fmt.Fprintf(stderr, "conformance: %v (see --help)\n", err)
		return exitUsage
	}
	if c.list {
		return listRequirements(stdout)
	}

	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	impl := ""
	profile := suites.Profile(c.profile)
	if cfg.Stdio() {
		if err := os.MkdirAll(c.reportDir, 0o755); err == nil {
			if f, err := os.Create(filepath.Join(c.reportDir, StderrLog)); err == nil {
				defer f.Close()
				cfg.Stderr = f
			}
		}
		fmt.Fprintf(stdout, "Certifying the stdio server started by: %s\n", strings.Join(cfg.Command, " "))
	}
	if len(cfg.URLs) == 0 && !cfg.Stdio() {
		// The reference server is the toolkit's own: its rules bind.
		if profile == "" {
			profile = suites.ProfileToolkit
		}
		ref, err := startReference(ctx)
		if err != nil {
			fmt.Fprintf(stderr, "conformance: cannot start the built-in reference server: %v\n", err)
			return exitHarness
		}
		defer ref.Close()
		cfg = ref.Config
		impl = "mcptasks reference server (in-process)"
		fmt.Fprintf(stdout, "No --server given: certifying the built-in reference server at %s\n", strings.Join(cfg.URLs, " and "))
	}

	if profile == "" {
		profile = suites.ProfileMCP
	}
	protocols, _ := suites.ParseProtocolSelection(c.protocol) // checked by parseFlags
	opts := []suites.Option{
		suites.WithSpecTimeout(c.specTimeout),
		suites.WithLabelFilter(c.labelFilter),
		suites.WithFocus(c.focus),
		suites.WithSeed(c.seed),
		suites.WithStrict(c.strict),
		suites.WithProfile(profile),
		suites.WithProtocols(protocols),
		suites.WithReportDir(c.reportDir),
		suites.WithTimeoutScale(c.timeoutScale),
		suites.WithConsole(c.verbose, c.noColor),
		suites.WithProgress(stdout, c.tty),
	}
	opts = append(opts, c.featureOptions()...)
	if impl != "" {
		opts = append(opts, suites.WithImplementation(impl, ""))
	}
	if deadline, ok := ctx.Deadline(); ok {
		opts = append(opts, suites.WithRunTimeout(time.Until(deadline)))
	}
	if !c.verbose {
		// The progress lines replace Ginkgo's own dots; failures are
		// in the summary and the reports.
		console := formatter.ColorableStdOut
		formatter.ColorableStdOut = io.Discard
		defer func() { formatter.ColorableStdOut = console }()
	}
	run, err := suites.CertifyServer(ctx, &fakeT{}, cfg, opts...)
	var he *suites.HandshakeError
	switch {
	case errors.As(err, &he):
		switch {
		case cfg.Stdio():
			fmt.Fprintf(stderr, "conformance: the server started by %q did not complete the MCP handshake: %v\n", strings.Join(cfg.Command, " "), he.Err)
			fmt.Fprintln(stderr, "No specs were run. Check that the command speaks newline-delimited JSON-RPC on stdin/stdout (logs go to stderr).")
		case he.Unreachable:
			fmt.Fprintf(stderr, "conformance: cannot reach the server at %s: %v\n", report.Redact(cfg.URLs[0]), he.Err)
		default:
			fmt.Fprintf(stderr, "conformance: the server at %s did not complete the MCP handshake: %v\n", report.Redact(cfg.URLs[0]), he.Err)
		}
		if !cfg.Stdio() {
			fmt.Fprintln(stderr, "No specs were run. Check the URL (the MCP endpoint path, e.g. /mcp) and the --header values.")
		}
		return exitHarness
	case err != nil && run == nil:
		fmt.Fprintf(stderr, "conformance: %v\n", err)
		return exitUsage
	case err != nil:
		fmt.Fprintf(stderr, "conformance: %v\n", err)
		return exitHarness
	}
	r := run.Report
	printSummary(stdout, r, c.reportDir)
	return r.ExitCode()
}

// lookup adapts the suites registry to the report package.
func lookup(id string) (report.Requirement, bool) {
	return suites.ReportLookup(id)
}

// printSummary writes the verdict line, the report's own text summary
// (the same one for every door into the suite) and where the files are.
func printSummary(w io.Writer, r *report.Report, dir string) {
	fmt.Fprintf(w, "\nmcptasks conformance: %s (%d requirements, %d specs, %.1fs)\n",
		strings.ToUpper(string(r.Summary.Verdict)), len(r.Requirements), r.Summary.Specs, r.Summary.DurationSeconds)
	_ = r.WriteText(w)
	if len(r.Recommendations) > 0 {
		met := r.Summary.Recommendations[report.StatusPass]
		fmt.Fprintf(w, "Recommendations (toolkit rules, profile %s: they do not decide the verdict): %d of %d met\n",
			r.Profile, met, len(r.Recommendations))
	}
	fmt.Fprintf(w, "Reports written to %s\n", dir)
}

// listRequirements prints the server requirements by running the suite
// as a dry run.
func listRequirements(w io.Writer) int {
	var captured ginkgo.Report
	suites.DescribeServer(suites.ServerConfig{URLs: []string{"http://127.0.0.1:1/mcp"}})
	ginkgo.ReportAfterSuite("capture", func(r ginkgo.Report) { captured = r })
	gomega.RegisterFailHandler(ginkgo.Fail)
	sc, rc := ginkgo.GinkgoConfiguration()
	sc.DryRun = true
	rc.Succinct = true
	// The dry run is only a way to count specs: keep Ginkgo's progress
	// line out of the listing, which people pipe into other tools.
	console := formatter.ColorableStdOut
	formatter.ColorableStdOut = io.Discard
	ginkgo.RunSpecs(&fakeT{}, "mcptasks server conformance (list)", sc, rc)
	formatter.ColorableStdOut = console
	r := report.FromGinkgo(captured, lookup, report.Meta{Mode: string(suites.ModeServer), Profile: report.ProfileToolkit})
	for _, e := range r.Requirements {
		fmt.Fprintf(w, "%-26s %-6s %-7s %-28s %s\n", e.ID, e.Level, e.Origin, strings.Join(e.Features, ","), e.Summary)
	}
	fmt.Fprintf(w, "%d requirements, %d specs (origin toolkit: a rule of this toolkit, a recommendation unless --profile mcptasks or --strict)\n",
		len(r.Requirements), r.Summary.Specs)
	return exitConformant
}

func versionString() string {
	v := "devel"
	commit := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				commit = s.Value
			}
		}
	}
	out := "mcptasks conformance " + v + " (MCP " + schema.SchemaVersion + ")"
	if commit != "" {
		out += " commit " + commit
	}
	return out
}
