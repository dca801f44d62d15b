package suites

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/suites/report"
	"github.com/mcptasks/mcptasks/tasks/client"
)

// Run options that only the shared run engine reads (CertifyServer,
// RunServer, RunStore); DescribeServer and DescribeStore leave running to
// the caller.

// WithFocus runs only the specs whose text matches the regular expression.
func WithFocus(re string) Option { return func(o *options) { o.focus = re } }

// WithSeed fixes the random order of the specs (0: time based).
func WithSeed(seed int64) Option { return func(o *options) { o.seed = seed } }

// WithRunTimeout bounds the whole run (default: Ginkgo's, one hour).
func WithRunTimeout(d time.Duration) Option { return func(o *options) { o.runTimeout = d } }

// WithConsole tunes Ginkgo's own console output: verbose prints every
// spec, noColor leaves colour codes out.
func WithConsole(verbose, noColor bool) Option {
	return func(o *options) { o.verbose, o.noColor, o.consoleSet = verbose, noColor, true }
}

// WithProgress writes, to w, which area is running and how many specs are
// left, for long runs. On a terminal (tty) the line is rewritten in
// place; otherwise one line is written per area. It never writes colour
// codes.
func WithProgress(w io.Writer, tty bool) Option {
	return func(o *options) { o.progress, o.progressTTY = w, tty }
}

// WithTimeoutScale multiplies every time limit of the server suite (spec
// timeout, TaskTimeout, ExpiryBudget, MaxPoll) and every fixed wait inside
// the spec bodies (settling pauses, grace periods, answer timeouts) by f,
// for servers whose fixtures are slow. It applies to CertifyServer,
// RunServer and DescribeServer alike. Values of f at or below 0 are
// ignored.
func WithTimeoutScale(f float64) Option { return func(o *options) { o.timeoutScale = f } }

// HandshakeError is returned by CertifyServer when the server could not be
// reached or did not complete the MCP handshake: no spec was run.
type HandshakeError struct {
	// Unreachable is true when nothing answered at all.
	Unreachable bool
	Err         error
}

// Error describes the failure.
func (e *HandshakeError) Error() string {
	if e.Unreachable {
		return "cannot reach the server: " + e.Err.Error()
	}
	return "the server did not complete the MCP handshake: " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *HandshakeError) Unwrap() error { return e.Err }

// ServerRun is the outcome of CertifyServer.
type ServerRun struct {
	// Report is the conformance report (also written with WithReportDir).
	Report *report.Report
	// Ginkgo is Ginkgo's own report of the run, for JUnit and tooling.
	Ginkgo ginkgo.Report
	// Authorization is what the harness found about identities A and B.
	Authorization Authorization
}

// CertifyServer is the one run engine of the server suite: the
// conformance command and RunServer both call it. It probes the server
// (initialize and tools/list, outside any spec), registers every server
// spec, runs them with Ginkgo under t and builds the report: the
// capabilities the server declared, what the harness inferred (fixtures,
// identities, instances, transport), the schema hash the suite was built
// from and the options given. With WithReportDir it writes every report
// file. Call it once per process, as Ginkgo runs one suite per process.
//
// The error is a *HandshakeError when no spec could run, or the failure
// to write the reports; a finished run returns its report whatever the
// verdict.
func CertifyServer(ctx context.Context, t ginkgo.GinkgoTestingT, cfg ServerConfig, opts ...Option) (*ServerRun, error) {
	o := newOptions(opts)
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	scaled := newOptions(opts).scale(cfg)
	pctx, cancel := context.WithTimeout(ctx, time.Duration(float64(15*time.Second)*max(o.timeoutScale, 1)))
	p, features, err := probeFeatures(pctx, scaled, o.overrides, o.protocols)
	cancel()
	if err != nil {
		return nil, &HandshakeError{Unreachable: !cfg.Stdio() && Unreachable(err), Err: err}
	}
	init, caps, auth := p.init, p.caps, p.auth
	if init == nil {
		// A server certified in the 2026-07-28 profile only.
		init = &client.InitializeResult{ProtocolVersion: string(Protocol2026)}
		init.ServerInfo.Name, init.ServerInfo.Version = p.modern.serverName, p.modern.version
	}
	var inferred []string
	for _, r := range Roles() {
		if name := cfg.ToolName(r); name != "" && slices.ContainsFunc(p.tools, func(tool schema.Tool) bool { return tool.Name == name }) {
			inferred = append(inferred, "fixture:"+string(r))
		}
	}
	full := cfg.withDefaults()
	if len(full.HeadersB) > 0 {
		inferred = append(inferred, "identity-b")
	}
	switch {
	case auth.Contexts:
		inferred = append(inferred, "authorization-contexts")
	case auth.Anonymous:
		inferred = append(inferred, "no-authorization")
	}
	if len(cfg.URLs) > 1 {
		inferred = append(inferred, "multi-instance")
	}
	if cfg.Stdio() {
		inferred = append(inferred, "transport:stdio")
	}
	switch {
	case o.implName == "":
		o.implName, o.implVersion = init.ServerInfo.Name, init.ServerInfo.Version
	case o.implVersion == "":
		o.implVersion = init.ServerInfo.Version
	}
	meta := report.Meta{
		Features: report.Features{Declared: caps.Names(), Inferred: inferred,
			Overridden: features.overridden(), Decisions: features.report()},
		Targets:   o.targets(cfg),
		Protocols: features.Protocols(),
	}
	if o.progress != nil {
		fmt.Fprintf(o.progress, "Server: %s %s, protocol %s, declares: %s\n", init.ServerInfo.Name, init.ServerInfo.Version,
			init.ProtocolVersion, orNothing(caps.Names()))
		fmt.Fprintf(o.progress, "Features: %s\n", features.summary())
		fmt.Fprintf(o.progress, "Protocols certified: %s\n", strings.Join(features.Protocols(), ", "))
		if len(full.HeadersB) > 0 && !auth.Contexts {
			fmt.Fprintf(o.progress, "Identity B is not a second authorization context (%s): the requirements binding tasks to an authorization context are not judged.\n", auth.Reason)
		}
	}
	title := "mcptasks server conformance"
	gr, rep := runSuite(t, ModeServer, title, func() { DescribeServer(cfg, append(opts, withFeatureSet(features))...) }, o, meta)
	run := &ServerRun{Report: rep, Ginkgo: gr, Authorization: auth}
	if o.reportDir != "" {
		if err := report.WriteAll(o.reportDir, rep, gr); err != nil {
			return run, fmt.Errorf("writing the conformance report: %w", err)
		}
	}
	return run, nil
}

// withFeatureSet hands CertifyServer's feature decision to DescribeServer.
func withFeatureSet(fs FeatureSet) Option { return func(o *options) { o.features = fs } }

// scale applies WithTimeoutScale to the configuration and the options.
func (o *options) scale(cfg ServerConfig) ServerConfig {
	if o.timeoutScale <= 0 || o.timeoutScale == 1 {
		return cfg
	}
	f := o.timeoutScale
	d := cfg.withDefaults()
	mul := func(x time.Duration) time.Duration { return time.Duration(float64(x) * f) }
	cfg.TaskTimeout, cfg.ExpiryBudget, cfg.MaxPoll = mul(d.TaskTimeout), mul(d.ExpiryBudget), mul(d.MaxPoll)
	o.specTimeout = mul(o.specTimeout)
	o.waitLatency = mul(o.waitLatency)
	return cfg
}

// targets is what the report names as certified.
func (o *options) targets(cfg ServerConfig) []string {
	if o.target != "" {
		return []string{o.target}
	}
	if cfg.Stdio() {
		out := []string{cfg.Target()}
		if len(cfg.CommandB) > 0 {
			out = append(out, "stdio (identity B): "+strings.Join(cfg.CommandB, " "))
		}
		return out
	}
	return slices.Clone(cfg.URLs)
}

// runSuite registers the specs, runs them under t with the options'
// Ginkgo settings (added to any -ginkgo.* flags of go test) and builds
// the report. It is shared by every door that runs a suite itself.
func runSuite(t ginkgo.GinkgoTestingT, mode Mode, title string, register func(), o *options, meta report.Meta) (ginkgo.Report, *report.Report) {
	var captured ginkgo.Report
	register()
	ginkgo.ReportAfterSuite("mcptasks conformance report", func(r ginkgo.Report) { captured = r })
	if o.progress != nil {
		p := &progress{w: o.progress, tty: o.progressTTY}
		ginkgo.ReportBeforeSuite(p.start)
		ginkgo.ReportAfterEach(p.after)
		ginkgo.ReportAfterSuite("mcptasks progress", p.end)
	}
	gomega.RegisterFailHandler(ginkgo.Fail)
	sc, rc := ginkgo.GinkgoConfiguration()
	sc.LabelFilter = andFilters(sc.LabelFilter, o.labelFilter)
	if o.focus != "" {
		sc.FocusStrings = append(sc.FocusStrings, o.focus)
	}
	if o.seed != 0 {
		sc.RandomSeed = o.seed
	}
	if o.runTimeout > 0 {
		sc.Timeout = o.runTimeout
	}
	if o.consoleSet {
		rc.Verbose, rc.NoColor, rc.Succinct = o.verbose, o.noColor, !o.verbose
	}
	ginkgo.RunSpecs(t, title, sc, rc)
	rep := o.report(captured, mode, meta)
	if captured.StartTime.IsZero() {
		rep.HarnessErrors = append(rep.HarnessErrors, "the suite did not run to completion")
	}
	return captured, rep
}

// BuildReport builds the conformance report of a run the caller ran
// itself with DescribeServer or DescribeStore (pass the Ginkgo report of
// a ReportAfterSuite and the options given to Describe…). It fills the
// report the way RunServer, RunStore and the command do, apart from what
// only a probe of the server tells (declared and inferred features).
func BuildReport(gr ginkgo.Report, mode Mode, opts ...Option) *report.Report {
	return newOptions(opts).report(gr, mode, report.Meta{})
}

// report completes meta from the options and builds the report.
func (o *options) report(gr ginkgo.Report, mode Mode, meta report.Meta) *report.Report {
	meta.Mode = string(mode)
	if meta.SchemaSHA256 = o.schemaSHA256; meta.SchemaSHA256 == "" {
		meta.SchemaSHA256 = schema.SchemaSHA256
	}
	meta.LabelFilter = gr.SuiteConfig.LabelFilter
	meta.Strict = o.strict
	meta.Profile = string(o.profileFor(mode))
	if o.implName != "" {
		meta.Implementation = &report.Implementation{Name: o.implName, Version: o.implVersion}
	}
	if len(meta.Targets) == 0 && o.target != "" {
		meta.Targets = []string{o.target}
	}
	return report.FromGinkgo(gr, ReportLookup, meta)
}

func orNothing(xs []string) string {
	if len(xs) == 0 {
		return "no task capabilities"
	}
	return strings.Join(xs, ", ")
}
