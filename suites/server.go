package suites

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/tasks/client"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// Fixture roles: the tools a server under test exposes so that every
// server spec can run. ServerConfig.Fixtures maps a role to the server's
// own tool name; by default the role R is the tool "fixture_R".
const (
	// FixtureSleep is a tool with taskSupport "optional" that waits {ms}
	// milliseconds and returns a result that depends only on its
	// arguments.
	FixtureSleep = "sleep"
	// FixtureSleepRequired is like FixtureSleep with taskSupport "required".
	FixtureSleepRequired = "sleep_required"
	// FixtureForbidden is a tool whose taskSupport is absent or "forbidden".
	FixtureForbidden = "forbidden"
	// FixtureToolError waits {ms} and returns a CallToolResult with isError.
	FixtureToolError = "tool_error"
	// FixtureRPCError waits {ms} and ends in a JSON-RPC error.
	FixtureRPCError = "rpc_error"
	// FixtureInput asks the requestor {question} with a form elicitation
	// and completes once it is answered.
	FixtureInput = "input"
	// FixtureProgress reports {steps} progress notifications over {ms}.
	FixtureProgress = "progress"
)

// FixtureRoles lists every fixture role with the arguments it takes.
var FixtureRoles = map[string][]string{
	FixtureSleep:         {"ms"},
	FixtureSleepRequired: {"ms"},
	FixtureForbidden:     {},
	FixtureToolError:     {"ms"},
	FixtureRPCError:      {"ms"},
	FixtureInput:         {"question"},
	FixtureProgress:      {"ms", "steps"},
}

// ServerConfig says how to reach and exercise a live server.
type ServerConfig struct {
	// URLs are MCP endpoints of the server under test. The first one is
	// used by every spec; a second one (another instance sharing the
	// same task store) enables the multi-instance specs.
	URLs []string
	// Headers are sent on every request of identity A (e.g. an
	// Authorization header).
	Headers http.Header
	// HeadersB, when set, are the headers of a second identity B; without
	// them the isolation specs report not-supported.
	HeadersB http.Header
	// Fixtures maps a fixture role to the server's tool name. A role
	// missing from the map uses "fixture_<role>"; an empty name means the
	// server has no such tool.
	Fixtures map[string]string
	// FixtureArgs renames fixture arguments: "sleep.ms" -> "duration_ms".
	// An empty name leaves the argument out of the call (for tools that
	// take no such argument). "name/N" also divides a numeric value by N,
	// e.g. "delay/1000" for a tool that takes seconds.
	FixtureArgs map[string]string
	// FixtureConsts adds fixed arguments to every call of a fixture:
	// "sleep_required.items" -> ["x"] for a tool with extra required
	// arguments.
	FixtureConsts map[string]json.RawMessage
	// TaskTimeout bounds how long a spec waits for a task to reach a
	// status (default 15 s).
	TaskTimeout time.Duration
	// ShortTTL is the ttl requested by the expiry spec; if the server
	// grants more than ExpiryBudget the spec is not-supported (defaults
	// 1 s and 5 s).
	ShortTTL, ExpiryBudget time.Duration
	// HTTPClient replaces the HTTP client of the harness.
	HTTPClient *http.Client
	// MaxPoll caps the polling period whatever pollInterval the server
	// suggests (default 1 s), so slow suggestions don't stall the run.
	MaxPoll time.Duration
	// AuthContexts says whether Headers and HeadersB are two authorization
	// contexts (default auto: yes when the server refuses a request
	// without credentials). Only then are the requirements that bind
	// tasks to an authorization context judged.
	AuthContexts AuthContexts
	// Command, instead of URLs, certifies a server spoken to over stdio:
	// every client of a spec starts this command (argv; leading
	// NAME=value words set environment variables) as its own child
	// process, writes newline-delimited JSON-RPC to its stdin, reads its
	// stdout and kills it when the spec ends. Rules of the Streamable
	// HTTP transport are then not-applicable.
	Command []string
	// CommandB starts the processes of identity B in a stdio run. It must
	// be another principal on the same backing store as Command (for
	// example the same SQLite file): with separate stores isolation
	// would hold trivially. Without it the isolation specs are
	// not-supported.
	CommandB []string
	// Stderr, when set, also receives everything the server processes of
	// a stdio run write on stderr.
	Stderr io.Writer
}

func (c ServerConfig) withDefaults() ServerConfig {
	c = c.stdioDefaults()
	if c.TaskTimeout <= 0 {
		c.TaskTimeout = 15 * time.Second
	}
	if c.ShortTTL <= 0 {
		c.ShortTTL = time.Second
	}
	if c.ExpiryBudget <= 0 {
		c.ExpiryBudget = 5 * time.Second
	}
	if c.MaxPoll <= 0 {
		c.MaxPoll = time.Second
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{}
	}
	return c
}

// ToolName returns the tool the server exposes for a fixture role ("" if
// none is configured).
func (c ServerConfig) ToolName(role string) string {
	if name, ok := c.Fixtures[role]; ok {
		return name
	}
	return "fixture_" + role
}

// ArgName returns the server's name for argument arg of fixture role; ""
// means the argument is left out.
func (c ServerConfig) ArgName(role, arg string) string {
	name, _ := c.argMapping(role, arg)
	return name
}

// argMapping returns the server's name for an argument and the divisor
// applied to numeric values (1 when none).
func (c ServerConfig) argMapping(role, arg string) (string, float64) {
	spec, ok := c.FixtureArgs[role+"."+arg]
	if !ok {
		return arg, 1
	}
	name, div, found := strings.Cut(spec, "/")
	if !found {
		return spec, 1
	}
	d, err := strconv.ParseFloat(div, 64)
	if err != nil || d <= 0 {
		return name, 1
	}
	return name, d
}

// FixtureArguments turns the role's own arguments into the server's: names
// mapped, values scaled, arguments left out, fixed arguments added.
func (c ServerConfig) FixtureArguments(role string, args map[string]any) map[string]any {
	out := make(map[string]any, len(args))
	for k, v := range args {
		name, div := c.argMapping(role, k)
		if name == "" {
			continue
		}
		if div != 1 {
			switch n := v.(type) {
			case int:
				v = float64(n) / div
			case int64:
				v = float64(n) / div
			case float64:
				v = n / div
			}
		}
		out[name] = v
	}
	for key, raw := range c.FixtureConsts {
		r, name, ok := strings.Cut(key, ".")
		if ok && r == role {
			out[name] = raw
		}
	}
	return out
}

// Validate reports configuration mistakes a person can fix.
func (c ServerConfig) Validate() error {
	switch {
	case c.Stdio():
		if err := c.validateStdio(); err != nil {
			return err
		}
	case len(c.URLs) == 0:
		return errors.New("no server URL or command")
	case len(c.URLs) > 2:
		return fmt.Errorf("at most two server URLs, got %d", len(c.URLs))
	}
	for _, u := range c.URLs {
		if c.Stdio() {
			break
		}
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return fmt.Errorf("server URL %q is not an http(s) URL", u)
		}
	}
	for role := range c.Fixtures {
		if _, ok := FixtureRoles[role]; !ok {
			return fmt.Errorf("unknown fixture role %q (known: %s)", role, strings.Join(sortedRoles(), ", "))
		}
	}
	for key, spec := range c.FixtureArgs {
		role, arg, ok := strings.Cut(key, ".")
		if !ok || !slices.Contains(FixtureRoles[role], arg) {
			return fmt.Errorf("unknown fixture argument %q (want role.arg, e.g. sleep.ms)", key)
		}
		if _, div, found := strings.Cut(spec, "/"); found {
			if d, err := strconv.ParseFloat(div, 64); err != nil || d <= 0 {
				return fmt.Errorf("fixture argument %q: divisor %q is not a positive number", key, div)
			}
		}
	}
	for key, raw := range c.FixtureConsts {
		role, name, ok := strings.Cut(key, ".")
		if _, known := FixtureRoles[role]; !ok || !known || name == "" {
			return fmt.Errorf("fixed fixture argument %q: want role.name with a known role", key)
		}
		if !json.Valid(raw) {
			return fmt.Errorf("fixed fixture argument %q: value is not JSON", key)
		}
	}
	return nil
}

func sortedRoles() []string {
	var rs []string
	for r := range FixtureRoles {
		rs = append(rs, r)
	}
	sort.Strings(rs)
	return rs
}

// Capabilities is what a server declared about tasks in initialize.
type Capabilities struct {
	Tasks     bool // capabilities.tasks present
	List      bool // tasks.list
	Cancel    bool // tasks.cancel
	ToolsCall bool // tasks.requests.tools.call
	Tools     bool // capabilities.tools
}

// Names lists the declared task features, for reports.
func (c Capabilities) Names() []string {
	var out []string
	if c.Tasks {
		out = append(out, "tasks")
	}
	if c.ToolsCall {
		out = append(out, "tasks.requests.tools.call")
	}
	if c.List {
		out = append(out, "tasks.list")
	}
	if c.Cancel {
		out = append(out, "tasks.cancel")
	}
	return out
}

// ParseCapabilities reads the task capabilities of an initialize result.
// A member counts as declared when present and not null or false (a
// boolean true is a wire violation the wire specs report, but still
// counts as support).
func ParseCapabilities(initResult json.RawMessage) Capabilities {
	var res struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	_ = json.Unmarshal(initResult, &res)
	present := func(raw json.RawMessage) bool {
		s := strings.TrimSpace(string(raw))
		return s != "" && s != "null" && s != "false"
	}
	var c Capabilities
	c.Tools = present(res.Capabilities["tools"])
	tasksRaw, ok := res.Capabilities["tasks"]
	if !ok || !present(tasksRaw) {
		return c
	}
	c.Tasks = true
	var t map[string]json.RawMessage
	if json.Unmarshal(tasksRaw, &t) != nil {
		return c
	}
	c.List = present(t["list"])
	c.Cancel = present(t["cancel"])
	var req map[string]map[string]json.RawMessage
	if json.Unmarshal(t["requests"], &req) == nil {
		c.ToolsCall = present(req["tools"]["call"])
	}
	return c
}

// Probe connects to the first URL once, outside any spec, and returns the
// server's capabilities and tool list. cmd/conformance uses it to tell an
// unreachable server (a harness error) from a failing one.
func Probe(ctx context.Context, cfg ServerConfig) (*client.InitializeResult, Capabilities, []schema.Tool, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, Capabilities{}, nil, err
	}
	if cfg.Stdio() {
		return probeStdio(ctx, cfg)
	}
	c := client.New(cfg.URLs[0], client.WithHeaders(cfg.Headers), client.WithHTTPClient(cfg.HTTPClient),
		client.WithClientInfo("mcptasks-conformance", "probe"))
	init, err := c.Connect(ctx)
	if err != nil {
		return nil, Capabilities{}, nil, err
	}
	defer c.Close(context.WithoutCancel(ctx))
	caps := ParseCapabilities(c.InitializeResult())
	tools, err := c.ListTools(ctx)
	if err != nil {
		return init, caps, nil, fmt.Errorf("tools/list: %w", err)
	}
	return init, caps, tools, nil
}

// Unreachable reports whether err means the server could not be contacted
// at all (connection refused, DNS failure, timeout before any answer).
func Unreachable(err error) bool {
	var ne net.Error
	var oe *net.OpError
	var de *net.DNSError
	return errors.As(err, &oe) || errors.As(err, &de) || (errors.As(err, &ne) && ne.Timeout())
}

// serverGroup is one area of server specs, registered at init by the
// server_*.go files and instantiated by DescribeServer.
type serverGroup struct {
	name, area string
	body       func(env *ServerEnv)
}

var serverGroups []serverGroup

// describeServer registers a group of server specs; nothing is built until
// DescribeServer runs.
func describeServer(name, area string, body func(env *ServerEnv)) bool {
	serverGroups = append(serverGroups, serverGroup{name: name, area: area, body: body})
	return true
}

// DescribeServer registers every server spec under one container, to be
// run by the caller's own RunSpecs. Use it to embed the suite in an
// existing Ginkgo suite or to certify several servers in one test binary.
// It returns true so it can be used as `var _ = suites.DescribeServer(...)`.
func DescribeServer(cfg ServerConfig, opts ...Option) bool {
	o := newOptions(opts)
	cfg = cfg.withDefaults()
	env := &ServerEnv{Config: cfg, opts: o}
	title := "mcptasks server conformance"
	if o.implName != "" {
		title += " of " + o.implName
	}
	ginkgo.Describe(title, ModeLabel(ModeServer), func() {
		ginkgo.BeforeEach(func(ctx ginkgo.SpecContext) {
			// Failures of the spec's own assertions carry the evidence:
			// the last exchange with the server and the spec section.
			gomega.RegisterFailHandler(env.failWithEvidence)
			ginkgo.DeferCleanup(func() { gomega.RegisterFailHandler(ginkgo.Fail) })
			env.skipHTTPOnly()
			env.setup(ctx)
		})
		for _, g := range serverGroups {
			ginkgo.Describe(g.name, Area(g.area), func() { g.body(env) })
		}
	})
	return true
}

// RunServer certifies a live server in a Go test: it registers the server
// specs, runs them with Ginkgo and, with WithReportDir, writes the
// conformance report. Call it once per test binary; use DescribeServer to
// certify more configurations.
func RunServer(t *testing.T, cfg ServerConfig, opts ...Option) {
	t.Helper()
	if _, err := CertifyServer(t.Context(), t, cfg, opts...); err != nil {
		t.Fatalf("suites.RunServer: %v", err)
	}
}

// ServerEnv is what a server spec sees: a connected client for identity A
// on the first URL, the server's declared capabilities and tools, and
// helpers to create tasks with fixtures. Fields are reset before every
// spec; read them only inside setup and subject nodes.
type ServerEnv struct {
	// Config is the server configuration (defaults applied).
	Config ServerConfig
	// A is a connected client of identity A on the first URL.
	A *client.Client
	// Init is A's initialize result.
	Init *client.InitializeResult
	// Caps are the task capabilities the server declared to A.
	Caps Capabilities
	// Tools are the server's tools by name, from tools/list.
	Tools map[string]schema.Tool

	opts     *options
	children stdioChildren

	authOnce sync.Once
	auth     Authorization

	mu       sync.Mutex
	messages []*client.Message
	created  []createdTask
	last     *client.Exchange
}

type createdTask struct {
	c  *client.Client
	id string
}

// setup connects identity A and discovers capabilities and tools.
func (env *ServerEnv) setup(ctx context.Context) {
	env.mu.Lock()
	env.messages = nil
	env.created = nil
	env.last = nil
	env.mu.Unlock()
	env.children = stdioChildren{}
	env.A, env.Init, env.Caps, env.Tools = nil, nil, Capabilities{}, nil
	if err := env.Config.Validate(); err != nil {
		HarnessError("invalid server configuration: %v", err)
	}

	c := env.NewClient(env.Config.URLs[0], env.Config.Headers)
	init, err := c.Connect(ctx)
	// A server restarting after a crash (its own, reported by the spec
	// that caused it) refuses connections for a moment: give it a few
	// seconds before calling every later spec an error.
	for deadline := time.Now().Add(5 * time.Second); err != nil && connectionLost(err) && time.Now().Before(deadline); {
		select {
		case <-ctx.Done():
		case <-time.After(250 * time.Millisecond):
		}
		c = env.NewClient(env.Config.URLs[0], env.Config.Headers)
		init, err = c.Connect(ctx)
	}
	if err != nil {
		HarnessError("cannot initialize a session with %s: %v", env.Config.URLs[0], err)
	}
	env.A, env.Init = c, init
	env.Caps = ParseCapabilities(c.InitializeResult())
	tools, err := c.ListTools(ctx)
	if err != nil {
		HarnessError("tools/list failed on %s: %v", env.Config.URLs[0], err)
	}
	env.Tools = map[string]schema.Tool{}
	for _, t := range tools {
		env.Tools[t.Name] = t
	}
	ginkgo.DeferCleanup(env.teardown)
}

// teardown cancels the tasks the spec left running and validates every
// message the spec received against its schema definition. A violation is
// reported as context only: each kind of answer is judged once, by the
// spec of its own requirement (see wireRequirement), so one malformed
// answer type fails that requirement and not every spec that happened to
// receive it.
func (env *ServerEnv) teardown(ctx ginkgo.SpecContext) {
	env.mu.Lock()
	created := env.created
	msgs := env.messages
	env.mu.Unlock()
	bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if env.Caps.Cancel {
		for _, t := range created {
			if got, err := t.c.GetTask(bg, t.id); err == nil && !got.Terminal() {
				_, _ = t.c.CancelTask(bg, t.id)
			}
		}
	}
	if violations := validateMessages(msgs); len(violations) > 0 {
		ginkgo.AddReportEntry("wire: messages that do not conform (each judged by the spec of its own requirement)",
			strings.Join(violations, "\n"), ginkgo.ReportEntryVisibilityFailureOrVerbose)
	}
}

// recordExchange keeps the last request and its answer for the evidence of
// a failure.
func (env *ServerEnv) recordExchange(x client.Exchange) {
	env.mu.Lock()
	env.last = &x
	env.mu.Unlock()
}

// failWithEvidence is the Gomega fail handler during server specs: the
// assertion's message, then what was last sent, what came back and the
// section of the spec's requirement.
func (env *ServerEnv) failWithEvidence(message string, callerSkip ...int) {
	skip := 0
	if len(callerSkip) > 0 {
		skip = callerSkip[0]
	}
	ginkgo.Fail(readable(strings.TrimRight(message, "\n"))+env.evidence(), skip+1)
}

// nilPhrases turn Gomega's rendering of a nil value into words: a spec
// that expected an error and got none saw a success, which the evidence
// that follows shows.
var nilPhrases = strings.NewReplacer(
	"Expected an error to have occurred.  Got:\n    <nil>: nil", "Expected an error, but the request succeeded",
	"got <nil>", "got nothing (nil)",
	"<nil>: nil", "nil (absent)",
	"<nil>", "nil",
)

// readable rewrites a failure message so it never shows a bare <nil>.
func readable(message string) string { return nilPhrases.Replace(message) }

// failf fails the running spec with a formatted message followed by the
// evidence, like a failed assertion.
func (env *ServerEnv) failf(format string, args ...any) {
	ginkgo.Fail(fmt.Sprintf(format, args...)+env.evidence(), 1)
}

// evidence describes the last exchange with the server and the spec
// section of the running spec's requirement.
func (env *ServerEnv) evidence() string {
	var b strings.Builder
	env.mu.Lock()
	x := env.last
	env.mu.Unlock()
	if x != nil {
		fmt.Fprintf(&b, "\nsent: %s", excerpt(x.Sent, 300))
		switch {
		case env.Config.Stdio() && x.Err != nil && len(bytes.TrimSpace(x.Body)) == 0:
			fmt.Fprintf(&b, "\ncame back over stdio: no answer (%v)", x.Err)
		case env.Config.Stdio() && len(bytes.TrimSpace(x.Body)) == 0:
			b.WriteString("\ncame back over stdio: no answer")
		case env.Config.Stdio():
			fmt.Fprintf(&b, "\ncame back over stdio: %s", excerpt(x.Body, 500))
		case x.HTTPStatus == 0 && x.Err != nil:
			fmt.Fprintf(&b, "\ncame back: no answer (%v)", x.Err)
		case len(bytes.TrimSpace(x.Body)) == 0:
			fmt.Fprintf(&b, "\ncame back: HTTP %d with an empty body (Content-Type %q)", x.HTTPStatus, x.ContentType)
		default:
			fmt.Fprintf(&b, "\ncame back: HTTP %d, %s: %s", x.HTTPStatus, orNone(x.ContentType), excerpt(x.Body, 500))
		}
	}
	if r, ok := Lookup(currentRequirement()); ok {
		fmt.Fprintf(&b, "\nspec: %s (%s, %s)", r.Section, r.ID, r.Level)
	}
	b.WriteString(env.children.stderr(1000))
	return b.String()
}

// currentRequirement is the requirement id of the running spec ("" when
// there is none).
func currentRequirement() string {
	for _, l := range ginkgo.CurrentSpecReport().Labels() {
		if id, ok := strings.CutPrefix(l, LabelReq+":"); ok {
			return id
		}
	}
	return ""
}

// excerpt renders raw bytes on one line, cut after n bytes.
func excerpt(raw []byte, n int) string {
	s := strings.Join(strings.Fields(string(raw)), " ")
	if len(s) > n {
		return s[:n] + "… (" + strconv.Itoa(len(raw)) + " bytes)"
	}
	return s
}

func orNone(ct string) string {
	if ct == "" {
		return "no Content-Type"
	}
	return "Content-Type " + ct
}

// record keeps a received message for the wire check.
func (env *ServerEnv) record(m *client.Message) {
	if m.Direction != client.Received {
		return
	}
	env.mu.Lock()
	env.messages = append(env.messages, m)
	env.mu.Unlock()
}

// Messages returns the messages received so far in this spec, by any
// client the spec made.
func (env *ServerEnv) Messages() []*client.Message {
	env.mu.Lock()
	defer env.mu.Unlock()
	return append([]*client.Message(nil), env.messages...)
}

// NewClient returns an unconnected client for url with the given headers,
// whose messages are validated at the end of the spec.
func (env *ServerEnv) NewClient(u string, headers http.Header, opts ...client.Option) *client.Client {
	base := []client.Option{
		client.WithHeaders(headers),
		client.WithHTTPClient(env.Config.HTTPClient),
		client.WithClientInfo("mcptasks-conformance", "suite"),
		client.WithObserver(env.record),
		client.WithExchangeObserver(env.recordExchange),
		client.WithRequestHandler(answerElicitation),
	}
	var c *client.Client
	if env.Config.Stdio() {
		c = env.newStdioClient(headers, append(base, opts...))
	} else {
		c = client.New(u, append(base, opts...)...)
	}
	ginkgo.DeferCleanup(func(ctx ginkgo.SpecContext) {
		bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		_ = c.Close(bg)
	})
	return c
}

// Connect makes and connects a client, failing the spec as a harness
// error when the server cannot be reached.
func (env *ServerEnv) Connect(ctx context.Context, u string, headers http.Header, opts ...client.Option) *client.Client {
	ginkgo.GinkgoHelper()
	c := env.NewClient(u, headers, opts...)
	if _, err := c.Connect(ctx); err != nil {
		HarnessError("cannot initialize a session with %s: %v", u, err)
	}
	return c
}

// B connects identity B on the first URL, or reports the spec as
// not-supported when no second identity is configured.
func (env *ServerEnv) B(ctx context.Context) *client.Client {
	ginkgo.GinkgoHelper()
	if len(env.Config.HeadersB) == 0 {
		env.noIdentityB()
	}
	return env.Connect(ctx, env.Config.URLs[0], env.Config.HeadersB)
}

// answerElicitation is the default handler for server requests: it accepts
// every form elicitation with a value for each requested property.
func answerElicitation(_ context.Context, req *client.Message) (any, error) {
	switch req.Method {
	case wire.MethodPing:
		return struct{}{}, nil
	case wire.MethodElicitationCreate:
		return map[string]any{"action": "accept", "content": formAnswer(req.Params())}, nil
	}
	return nil, &client.RPCError{Code: -32601, Message: "the conformance harness does not handle " + req.Method}
}

// formAnswer fills every property of a requested schema with a value of
// its type.
func formAnswer(params json.RawMessage) map[string]any {
	var p struct {
		RequestedSchema struct {
			Properties map[string]struct {
				Type string   `json:"type"`
				Enum []string `json:"enum"`
			} `json:"properties"`
		} `json:"requestedSchema"`
	}
	_ = json.Unmarshal(params, &p)
	out := map[string]any{}
	for name, prop := range p.RequestedSchema.Properties {
		switch {
		case len(prop.Enum) > 0:
			out[name] = prop.Enum[0]
		case prop.Type == "number" || prop.Type == "integer":
			out[name] = 1
		case prop.Type == "boolean":
			out[name] = true
		default:
			out[name] = "conformance answer"
		}
	}
	return out
}

// It registers a spec that tests exactly one requirement, with the
// requirement's labels and the suite's spec timeout.
func (env *ServerEnv) It(text, reqID string, body func(ctx ginkgo.SpecContext)) bool {
	return ginkgo.It(text, Req(reqID), ginkgo.SpecTimeout(env.opts.specTimeout), body)
}

// listedTaskTool returns the name of a listed tool whose taskSupport is
// optional or required ("" if none).
func (env *ServerEnv) listedTaskTool() string {
	names := make([]string, 0, len(env.Tools))
	for name, t := range env.Tools {
		if ts := t.TaskSupport(); ts == "optional" || ts == "required" {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	sort.Strings(names)
	return names[0]
}

// undeclaredRefusal makes the spec not-applicable when a task-augmented
// call failed on a server that never declared task-augmented tools/call:
// it may refuse what it did not promise.
func (env *ServerEnv) undeclaredRefusal(err error, tool string) {
	ginkgo.GinkgoHelper()
	if err != nil && !env.Caps.ToolsCall && !connectionLost(err) {
		NotApplicable("the server does not declare capabilities.tasks.requests.tools.call and refused a task-augmented call of %q: %v", tool, err)
	}
}
