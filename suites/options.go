package suites

import (
	"io"
	"time"
)

// Option tunes RunStore and DescribeStore (and, through the same type, the
// server half of the suite).
type Option func(*options)

// options is what the Option values set.
type options struct {
	reportDir    string
	implName     string
	implVersion  string
	labelFilter  string
	specTimeout  time.Duration
	waitLatency  time.Duration
	pollInterval time.Duration
	schemaSHA256 string
	target       string
	strict       bool
	profile      Profile

	// Read by the run engine only (run.go).
	focus        string
	seed         int64
	runTimeout   time.Duration
	verbose      bool
	noColor      bool
	consoleSet   bool
	progress     io.Writer
	progressTTY  bool
	timeoutScale float64

	// overrides are the operator's feature settings (WithFeature);
	// features is the decision CertifyServer made from its probe, handed
	// to DescribeServer so specs and report agree.
	overrides map[Feature]bool
	features  FeatureSet
	// protocols is the operator's choice of protocol revisions to
	// certify (WithProtocols); empty means ProtocolsAuto.
	protocols ProtocolSelection
}

// profileFor is the profile of a run in mode: the one chosen, else the
// toolkit profile for stores and the MCP profile for servers.
func (o *options) profileFor(mode Mode) Profile {
	switch {
	case o.profile != "":
		return o.profile
	case mode == ModeStore:
		return ProfileToolkit
	}
	return ProfileMCP
}

// defaults for options left unset.
const (
	defaultSpecTimeout  = 30 * time.Second
	defaultWaitLatency  = 5 * time.Second
	defaultPollInterval = 20 * time.Millisecond
)

func newOptions(opts []Option) *options {
	o := &options{
		specTimeout:  defaultSpecTimeout,
		waitLatency:  defaultWaitLatency,
		pollInterval: defaultPollInterval,
	}
	for _, opt := range opts {
		opt(o)
	}
	return o
}

// WithReportDir makes RunStore write the conformance report files
// (conformance-report.json, junit.xml, summary.md, report.html) into dir,
// creating it if needed.
func WithReportDir(dir string) Option { return func(o *options) { o.reportDir = dir } }

// WithImplementation names the implementation under test in the report.
func WithImplementation(name, version string) Option {
	return func(o *options) { o.implName, o.implVersion = name, version }
}

// WithLabelFilter restricts the run to the specs matching a Ginkgo label
// filter such as "area:ttl || level:must". It is ANDed with any
// -ginkgo.label-filter given on the command line. Requirements filtered
// out are reported as skipped and make the verdict partial at best.
func WithLabelFilter(filter string) Option { return func(o *options) { o.labelFilter = filter } }

// WithSpecTimeout bounds each spec (default 30 s); a spec that runs longer
// is interrupted and fails.
func WithSpecTimeout(d time.Duration) Option { return func(o *options) { o.specTimeout = d } }

// WithWaitLatency is how long the waiting specs give Store.Wait to notice
// a change before they call it lost (default 5 s). Stores that wait by
// polling never need more than a few poll intervals; raise it only for
// backends with slow change feeds.
func WithWaitLatency(d time.Duration) Option { return func(o *options) { o.waitLatency = d } }

// WithPollInterval sets Config.PollInterval in the configuration handed to
// the factory (default 20 ms), for stores that poll to implement Wait.
func WithPollInterval(d time.Duration) Option { return func(o *options) { o.pollInterval = d } }

// WithSchemaSHA256 records the sha256 of the MCP schema the run was built
// against in the report.
func WithSchemaSHA256(sum string) Option { return func(o *options) { o.schemaSHA256 = sum } }

// WithTarget records, in the report, what was certified (for example a
// store URL). Pass it without credentials; the report redacts userinfo
// and well-known secret query parameters anyway.
func WithTarget(target string) Option { return func(o *options) { o.target = target } }

// WithStrict makes SHOULD requirements count like MUST ones in the verdict
// and binds the toolkit's own rules (MCPT-…) whatever the profile.
func WithStrict(strict bool) Option { return func(o *options) { o.strict = strict } }

// WithProfile chooses which rules decide the verdict: ProfileMCP (only the
// MCP specification; the toolkit's own rules are reported apart as
// recommendations) or ProfileToolkit (the toolkit's rules bind too). The
// default is ProfileToolkit for stores and ProfileMCP for servers.
func WithProfile(p Profile) Option { return func(o *options) { o.profile = p } }
