package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mcptasks/mcptasks/suites"
)

// EnvPrefix starts every environment variable the tool reads.
const EnvPrefix = "MCPTASKS_CONFORMANCE_"

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ", ") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// config is everything the command line (and environment) says.
type config struct {
	servers      listFlag
	command      string
	commandB     string
	headers      listFlag
	headersB     listFlag
	fixtures     listFlag
	fixtureArgs  listFlag
	fixtureConst listFlag
	features     listFlag
	labelFilter  string
	focus        string
	profile      string
	protocol     string
	authContexts string
	reportDir    string
	timeout      time.Duration
	specTimeout  time.Duration
	list         bool
	strict       bool
	verbose      bool
	noColor      bool
	version      bool
	seed         int64
	timeoutScale float64
	// tty is true when stdout is a terminal (set by run, not a flag).
	tty bool
}

// usageError is a mistake in flags or environment (exit 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// parseFlags reads args, then fills what they left unset from the
// environment (flags win).
func parseFlags(args []string, getenv func(string) string, stderr io.Writer) (*config, error) {
	c := &config{}
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Var(&c.servers, "server", "MCP endpoint URL of the server under test (repeat once for a second instance sharing the store); none: certify the built-in reference server")
	fs.StringVar(&c.command, "command", "", "certify a stdio server instead of a URL: the command line that starts it (split like a shell does, leading NAME=value words set its environment); every client of a spec starts it as its own child process")
	fs.StringVar(&c.commandB, "command-b", "", "with --command: the command line of identity B, another principal on the same backing store (e.g. the same SQLite file); without it the isolation specs are not-supported")
	fs.Var(&c.headers, "header", "HTTP header 'Name: value' sent by identity A (repeatable), e.g. an Authorization header")
	fs.Var(&c.headersB, "header-b", "HTTP header of a second identity B (repeatable); without it the isolation specs are not-supported")
	fs.Var(&c.fixtures, "fixture", "map a fixture role to the server's tool: role=tool (repeatable; roles: "+strings.Join(roles(), ", ")+"); role= marks it absent")
	fs.Var(&c.fixtureArgs, "fixture-arg", "rename a fixture argument: role.arg=name, e.g. sleep.ms=duration_ms; name/N divides the value by N (sleep.ms=delay/1000 for seconds); role.arg= leaves it out (repeatable)")
	fs.Var(&c.fixtureConst, "fixture-const", "add a fixed argument to every call of a fixture: role.name=JSON, e.g. sleep.items='[\"a\"]' (repeatable)")
	fs.Var(&c.features, "feature", "override what the harness decides about a feature: name=on or name=off (repeatable; features: "+strings.Join(featureNames(), ", ")+"); off makes the requirements that need it not-applicable, on makes them run")
	fs.StringVar(&c.labelFilter, "label-filter", "", "Ginkgo label filter, e.g. 'level:must && !area:ttl'")
	fs.StringVar(&c.focus, "focus", "", "only run specs whose text matches this regular expression")
	fs.StringVar(&c.reportDir, "report-dir", "", "directory for conformance-report.json, junit.xml, summary.md and report.html (default ./conformance-results)")
	fs.DurationVar(&c.timeout, "timeout", 0, "limit for the whole run (default 10m)")
	fs.DurationVar(&c.specTimeout, "spec-timeout", 0, "limit for one spec (default 60s)")
	fs.BoolVar(&c.list, "list", false, "print the requirements the suite checks and exit")
	fs.BoolVar(&c.strict, "strict", false, "count SHOULD requirements like MUST ones in the verdict, and let the toolkit's own rules (MCPT-…) decide it too")
	fs.StringVar(&c.protocol, "protocol", "auto", "which MCP protocol revisions to certify: 2025-11-25 (initialize and the tasks utility), 2026-07-28 (server/discover and the io.modelcontextprotocol/tasks extension), both, or auto (every revision the server answers); not to be confused with --profile")
	fs.StringVar(&c.profile, "profile", "", "which rules decide the verdict: mcp (the MCP specification only; the toolkit's own MCPT-… rules are reported as recommendations) or mcptasks (those rules bind too); default mcp with --server, mcptasks for the built-in reference server")
	fs.StringVar(&c.authContexts, "auth-contexts", "auto", "whether --header and --header-b are two authorization contexts: auto (yes when the server refuses a request without credentials with 401 or 403), yes, or no")
	fs.BoolVar(&c.verbose, "v", false, "print every spec as it runs")
	fs.BoolVar(&c.noColor, "no-color", false, "no colours in the console output")
	fs.BoolVar(&c.version, "version", false, "print the version and exit")
	fs.Float64Var(&c.timeoutScale, "timeout-scale", 1, "multiply the time limits of the specs (spec timeout, task waits, expiry budget) by this factor, for servers with slow fixtures")
	fs.Int64Var(&c.seed, "seed", 0, "random seed for spec order (default: time based)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: conformance [--server URL [--server URL2] | --command 'CMD ARGS' [--command-b 'CMD ARGS']] [flags]\n\n"+
			"Certifies an MCP 2025-11-25 server's task support over Streamable HTTP, or over stdio with\n"+
			"--command. Without either it starts the mcptasks reference server in-process and certifies that.\n\n"+
			"Every flag can also be set with an environment variable %s<FLAG> (upper case,\n"+
			"dashes as underscores; repeatable flags take several values separated by newlines,\n"+
			"or by commas for --server, --fixture and --fixture-arg). Flags win.\n\n"+
			"Exit codes: 0 conformant (or partial without failures), 1 non-conformant, 2 usage error,\n"+
			"3 harness error (e.g. server unreachable).\n\nFlags:\n", EnvPrefix)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, &usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return nil, usagef("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	env := func(name string) (string, bool) {
		if set[name] {
			return "", false
		}
		v := getenv(EnvPrefix + strings.ToUpper(strings.ReplaceAll(name, "-", "_")))
		return v, v != ""
	}
	splitList := func(v string, commas bool) []string {
		sep := "\n"
		if commas {
			v = strings.ReplaceAll(v, "\n", ",")
			sep = ","
		}
		var out []string
		for _, p := range strings.Split(v, sep) {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out
	}
	if v, ok := env("server"); ok {
		c.servers = splitList(v, true)
	}
	if v, ok := env("command"); ok {
		c.command = v
	}
	if v, ok := env("command-b"); ok {
		c.commandB = v
	}
	if v, ok := env("header"); ok {
		c.headers = splitList(v, false)
	}
	if v, ok := env("header-b"); ok {
		c.headersB = splitList(v, false)
	}
	if v, ok := env("fixture"); ok {
		c.fixtures = splitList(v, true)
	}
	if v, ok := env("fixture-arg"); ok {
		c.fixtureArgs = splitList(v, true)
	}
	if v, ok := env("fixture-const"); ok {
		c.fixtureConst = splitList(v, false)
	}
	if v, ok := env("feature"); ok {
		c.features = splitList(v, true)
	}
	for _, f := range c.features {
		if _, _, err := suites.ParseFeatureSetting(f); err != nil {
			return nil, usagef("--feature: %v", err)
		}
	}
	if v, ok := env("label-filter"); ok {
		c.labelFilter = v
	}
	if v, ok := env("focus"); ok {
		c.focus = v
	}
	if v, ok := env("profile"); ok {
		c.profile = v
	}
	if v, ok := env("protocol"); ok {
		c.protocol = v
	}
	if _, err := suites.ParseProtocolSelection(c.protocol); err != nil {
		return nil, usagef("--protocol: %v", err)
	}
	if v, ok := env("auth-contexts"); ok {
		c.authContexts = v
	}
	if v, ok := env("timeout-scale"); ok {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, usagef("%sTIMEOUT_SCALE: %v", EnvPrefix, err)
		}
		c.timeoutScale = f
	}
	if c.timeoutScale <= 0 {
		return nil, usagef("--timeout-scale must be above 0, got %v", c.timeoutScale)
	}
	if getenv("NO_COLOR") != "" && !set["no-color"] {
		c.noColor = true
	}
	if c.profile != "" {
		if _, err := suites.ParseProfile(c.profile); err != nil {
			return nil, usagef("--profile: %v", err)
		}
	}
	if _, err := suites.ParseAuthContexts(c.authContexts); err != nil {
		return nil, usagef("--auth-contexts: %v", err)
	}
	if v, ok := env("report-dir"); ok {
		c.reportDir = v
	}
	for _, d := range []struct {
		name string
		dst  *time.Duration
	}{{"timeout", &c.timeout}, {"spec-timeout", &c.specTimeout}} {
		if v, ok := env(d.name); ok {
			parsed, err := time.ParseDuration(v)
			if err != nil {
				return nil, usagef("%s%s: %v", EnvPrefix, strings.ToUpper(strings.ReplaceAll(d.name, "-", "_")), err)
			}
			*d.dst = parsed
		}
	}
	for _, b := range []struct {
		name string
		dst  *bool
	}{{"strict", &c.strict}, {"v", &c.verbose}, {"no-color", &c.noColor}} {
		if v, ok := env(b.name); ok {
			parsed, err := strconv.ParseBool(v)
			if err != nil {
				return nil, usagef("%s%s: %v", EnvPrefix, strings.ToUpper(strings.ReplaceAll(b.name, "-", "_")), err)
			}
			*b.dst = parsed
		}
	}
	if c.reportDir == "" {
		c.reportDir = "conformance-results"
	}
	if c.timeout <= 0 {
		c.timeout = 10 * time.Minute
	}
	if c.specTimeout <= 0 {
		c.specTimeout = 60 * time.Second
	}
	return c, nil
}

func roles() []string {
	var out []string
	for _, r := range suites.Roles() {
		out = append(out, string(r))
	}
	return out
}

func featureNames() []string {
	var out []string
	for _, f := range suites.ServerFeatures() {
		out = append(out, string(f))
	}
	return out
}

// featureOptions turns the --feature settings into options.
func (c *config) featureOptions() []suites.Option {
	var out []suites.Option
	for _, s := range c.features {
		if f, on, err := suites.ParseFeatureSetting(s); err == nil {
			out = append(out, suites.WithFeature(f, on))
		}
	}
	return out
}

// serverConfig turns the flags into a suites.ServerConfig.
func (c *config) serverConfig() (suites.ServerConfig, error) {
	sc := suites.ServerConfig{URLs: c.servers, Fixtures: map[suites.Role]string{}, FixtureArgs: map[string]string{},
		FixtureConsts: map[string]json.RawMessage{}}
	var err error
	if sc.AuthContexts, err = suites.ParseAuthContexts(c.authContexts); err != nil {
		return sc, usagef("--auth-contexts: %v", err)
	}
	if sc.Headers, err = parseHeaders(c.headers, "--header"); err != nil {
		return sc, err
	}
	if sc.HeadersB, err = parseHeaders(c.headersB, "--header-b"); err != nil {
		return sc, err
	}
	for _, f := range c.fixtures {
		role, tool, ok := strings.Cut(f, "=")
		if !ok {
			return sc, usagef("--fixture %q: want role=tool", f)
		}
		sc.Fixtures[suites.Role(strings.TrimSpace(role))] = strings.TrimSpace(tool)
	}
	for _, f := range c.fixtureArgs {
		key, name, ok := strings.Cut(f, "=")
		if !ok {
			return sc, usagef("--fixture-arg %q: want role.arg=name (an empty name leaves the argument out)", f)
		}
		sc.FixtureArgs[strings.TrimSpace(key)] = strings.TrimSpace(name)
	}
	for _, f := range c.fixtureConst {
		key, value, ok := strings.Cut(f, "=")
		if !ok || !json.Valid([]byte(value)) {
			return sc, usagef("--fixture-const %q: want role.name=JSON", f)
		}
		sc.FixtureConsts[strings.TrimSpace(key)] = json.RawMessage(value)
	}
	if c.command != "" {
		if sc.Command, err = suites.ParseCommand(c.command); err != nil {
			return sc, usagef("--command: %v", err)
		}
	}
	if c.commandB != "" {
		if c.command == "" {
			return sc, usagef("--command-b needs --command")
		}
		if sc.CommandB, err = suites.ParseCommand(c.commandB); err != nil {
			return sc, usagef("--command-b: %v", err)
		}
	}
	if sc.Stdio() && (len(sc.URLs) > 0 || len(sc.Headers) > 0 || len(sc.HeadersB) > 0) {
		return sc, usagef("--command speaks stdio: it does not go with --server, --header or --header-b")
	}
	if len(sc.URLs) > 0 || sc.Stdio() {
		if err := sc.Validate(); err != nil {
			return sc, usagef("%v", err)
		}
	} else if len(sc.Fixtures) > 0 || len(sc.FixtureArgs) > 0 || len(sc.FixtureConsts) > 0 {
		return sc, usagef("--fixture and --fixture-arg need --server (the built-in reference server has the standard fixtures)")
	}
	return sc, nil
}

// parseHeaders reads "Name: value" lines.
func parseHeaders(lines []string, flagName string) (http.Header, error) {
	if len(lines) == 0 {
		return nil, nil
	}
	h := http.Header{}
	for _, l := range lines {
		name, value, ok := strings.Cut(l, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return nil, usagef("%s %q: want 'Name: value'", flagName, redactHeader(l))
		}
		h.Add(name, strings.TrimSpace(value))
	}
	return h, nil
}

// redactHeader hides the value of a header line in messages.
func redactHeader(line string) string {
	if name, _, ok := strings.Cut(line, ":"); ok {
		return name + ": <redacted>"
	}
	return "<redacted>"
}
