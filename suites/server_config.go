package suites

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Role is a fixture role: a part a tool of the server under test plays
// so that the server specs can run (a tool that sleeps, one that asks
// for input, ...). A role is not a tool name: ServerConfig.Fixtures maps
// a role to the server's own tool, and by default the role R is the tool
// "fixture_R" (the names the reference server uses, see
// server.FixtureSleepTool and its siblings).
type Role string

// The fixture roles.
const (
	// FixtureSleep is a tool with taskSupport "optional" that waits {ms}
	// milliseconds and returns a result that depends only on its
	// arguments.
	FixtureSleep Role = "sleep"
	// FixtureSleepRequired is like FixtureSleep with taskSupport "required".
	FixtureSleepRequired Role = "sleep_required"
	// FixtureForbidden is a tool whose taskSupport is absent or "forbidden".
	FixtureForbidden Role = "forbidden"
	// FixtureToolError waits {ms} and returns a CallToolResult with isError.
	FixtureToolError Role = "tool_error"
	// FixtureRPCError waits {ms} and ends in a JSON-RPC error.
	FixtureRPCError Role = "rpc_error"
	// FixtureInput asks the requestor {question} with a form elicitation
	// and completes once it is answered.
	FixtureInput Role = "input"
	// FixtureProgress reports {steps} progress notifications over {ms}.
	FixtureProgress Role = "progress"
	// FixtureInputMulti runs as a task that asks two form elicitations
	// about {question} at the same time, takes their answers in any order
	// and completes once both are answered (2026-07-28 specs only).
	FixtureInputMulti Role = "input_multi"
	// FixtureMRTRThenTask first answers a 2026-07-28 tools/call with an
	// InputRequiredResult asking {question} by form elicitation (with or
	// without a requestState) and, on the retry carrying the answer,
	// returns a CreateTaskResult whose final result contains the answer.
	FixtureMRTRThenTask Role = "mrtr_then_task"
)

// fixtureRoles lists every fixture role with the arguments it takes.
var fixtureRoles = map[Role][]string{
	FixtureSleep:         {"ms"},
	FixtureSleepRequired: {"ms"},
	FixtureForbidden:     {},
	FixtureToolError:     {"ms"},
	FixtureRPCError:      {"ms"},
	FixtureInput:         {"question"},
	FixtureProgress:      {"ms", "steps"},
	FixtureInputMulti:    {"question"},
	FixtureMRTRThenTask:  {"question"},
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
	Fixtures map[Role]string
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
func (c ServerConfig) ToolName(role Role) string {
	if name, ok := c.Fixtures[role]; ok {
		return name
	}
	return "fixture_" + string(role)
}

// ArgName returns the server's name for argument arg of fixture role; ""
// means the argument is left out.
func (c ServerConfig) ArgName(role Role, arg string) string {
	name, _ := c.argMapping(role, arg)
	return name
}

// argMapping returns the server's name for an argument and the divisor
// applied to numeric values (1 when none).
func (c ServerConfig) argMapping(role Role, arg string) (string, float64) {
	spec, ok := c.FixtureArgs[string(role)+"."+arg]
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
func (c ServerConfig) FixtureArguments(role Role, args map[string]any) map[string]any {
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
		if ok && Role(r) == role {
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
		if _, ok := fixtureRoles[role]; !ok {
			return fmt.Errorf("unknown fixture role %q (known: %s)", role, strings.Join(sortedRoles(), ", "))
		}
	}
	for key, spec := range c.FixtureArgs {
		role, arg, ok := strings.Cut(key, ".")
		if !ok || !slices.Contains(fixtureRoles[Role(role)], arg) {
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
		if _, known := fixtureRoles[Role(role)]; !ok || !known || name == "" {
			return fmt.Errorf("fixed fixture argument %q: want role.name with a known role", key)
		}
		if !json.Valid(raw) {
			return fmt.Errorf("fixed fixture argument %q: value is not JSON", key)
		}
	}
	return nil
}

// Roles lists every fixture role, sorted.
func Roles() []Role {
	rs := make([]Role, 0, len(fixtureRoles))
	for r := range fixtureRoles {
		rs = append(rs, r)
	}
	slices.Sort(rs)
	return rs
}

func sortedRoles() []string {
	var rs []string
	for _, r := range Roles() {
		rs = append(rs, string(r))
	}
	return rs
}

// FixtureMap turns a role-to-tool mapping kept as plain strings (from
// flags, a file, or a server package that does not import the suite)
// into ServerConfig.Fixtures.
func FixtureMap(m map[string]string) map[Role]string {
	out := make(map[Role]string, len(m))
	for role, tool := range m {
		out[Role(role)] = tool
	}
	return out
}
