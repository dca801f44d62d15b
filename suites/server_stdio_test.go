package suites

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
)

func TestParseCommand(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
		bad  bool
	}{
		{line: "node server.js --stdio", want: []string{"node", "server.js", "--stdio"}},
		{line: "  a\t b  ", want: []string{"a", "b"}},
		{line: `sh -c 'echo "hi there"; exit 1'`, want: []string{"sh", "-c", `echo "hi there"; exit 1`}},
		{line: `x "a \"b\" \$c \d"`, want: []string{"x", `a "b" $c \d`}},
		{line: `a\ b c`, want: []string{"a b", "c"}},
		{line: `TOKEN=b node s.js`, want: []string{"TOKEN=b", "node", "s.js"}},
		{line: `x ''`, want: []string{"x", ""}},
		{line: "", bad: true},
		{line: "   ", bad: true},
		{line: "x 'open", bad: true},
		{line: `x "open`, bad: true},
		{line: `x \`, bad: true},
	} {
		got, err := ParseCommand(tc.line)
		if tc.bad {
			if err == nil {
				t.Errorf("ParseCommand(%q) = %q, want an error", tc.line, got)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("ParseCommand(%q) = %q, %v; want %q", tc.line, got, err, tc.want)
		}
	}
}

func TestHTTPOnlyRequirementsAreRegisteredServerRules(t *testing.T) {
	var httpOnly []string
	for id := range serverFeatures {
		if HTTPOnly(id) {
			httpOnly = append(httpOnly, id)
		}
	}
	if len(httpOnly) < 10 {
		t.Fatalf("only %d HTTP-only requirements", len(httpOnly))
	}
	for _, id := range httpOnly {
		r, ok := Lookup(id)
		if !ok || !slices.ContainsFunc(slices.Concat(serverRequirements, extRequirements), func(s Requirement) bool { return s.ID == id }) {
			t.Errorf("%s is marked HTTP-only but is no registered server requirement", id)
		}
		if r.Retired {
			t.Errorf("%s is retired", id)
		}
	}
	for _, id := range []string{"TASKS-XPORT-001", "TASKS-RESULT-004", "TASKS-INIT-001"} {
		if HTTPOnly(id) {
			t.Errorf("%s applies to stdio too", id)
		}
	}
}

func TestStdioConfiguration(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  ServerConfig
		bad  bool
	}{
		{name: "command", cfg: ServerConfig{Command: []string{"srv"}}},
		{name: "two commands", cfg: ServerConfig{Command: []string{"srv"}, CommandB: []string{"srv", "--b"}}},
		{name: "command and URL", cfg: ServerConfig{Command: []string{"srv"}, URLs: []string{"http://x/mcp"}}, bad: true},
		{name: "empty command", cfg: ServerConfig{Command: []string{""}}, bad: true},
		{name: "empty B", cfg: ServerConfig{Command: []string{"srv"}, CommandB: []string{" "}}, bad: true},
		{name: "nothing", cfg: ServerConfig{}, bad: true},
	} {
		err := tc.cfg.withDefaults().Validate()
		if (err != nil) != tc.bad {
			t.Errorf("%s: Validate = %v, want error %v", tc.name, err, tc.bad)
		}
	}
	one := ServerConfig{Command: []string{"srv"}}.withDefaults()
	if len(one.URLs) != 1 || len(one.HeadersB) != 0 {
		t.Errorf("one command: URLs %q, HeadersB %v", one.URLs, one.HeadersB)
	}
	two := ServerConfig{Command: []string{"srv"}, CommandB: []string{"srv"}}.withDefaults()
	if len(two.HeadersB) == 0 || two.HeadersB.Get(stdioIdentityHeader) == two.Headers.Get(stdioIdentityHeader) {
		t.Errorf("two commands: identities A %v and B %v are not told apart", two.Headers, two.HeadersB)
	}
	if a := stdioAuthorization(two); a.Contexts || !a.Anonymous {
		t.Errorf("two commands without --auth-contexts yes: %+v", a)
	}
	two.AuthContexts = AuthContextsYes
	if a := stdioAuthorization(two); !a.Contexts {
		t.Errorf("two commands declared as contexts: %+v", a)
	}
	if got := one.Target(); got != "stdio: srv" {
		t.Errorf("Target = %q", got)
	}
}

func TestStartCommandTakesLeadingAssignmentsAsEnvironment(t *testing.T) {
	if _, err := startCommand(t.Context(), []string{"A=1", "B=2"}); err == nil {
		t.Error("a command of assignments only started")
	}
}

func TestProgressLines(t *testing.T) {
	spec := func(area string) types.SpecReport {
		return types.SpecReport{State: types.SpecStatePassed, RunTime: 1,
			ContainerHierarchyLabels: [][]string{{LabelArea + ":" + area}}}
	}
	var plain bytes.Buffer
	p := &progress{w: &plain}
	p.start(ginkgo.Report{PreRunStats: types.PreRunStats{SpecsThatWillRun: 4}})
	for _, a := range []string{"ttl", "ttl", "wire", "wire"} {
		p.after(spec(a))
	}
	p.after(types.SpecReport{State: types.SpecStateSkipped}) // filtered out: not counted
	p.end(ginkgo.Report{})
	want := "[1/4] area ttl, 3 specs left\n[3/4] area wire, 1 specs left\n"
	if plain.String() != want {
		t.Errorf("non-terminal progress:\n%q\nwant\n%q", plain.String(), want)
	}
	var tty bytes.Buffer
	p = &progress{w: &tty, tty: true}
	p.start(ginkgo.Report{PreRunStats: types.PreRunStats{SpecsThatWillRun: 2}})
	p.after(spec("ttl"))
	p.after(spec("wire"))
	p.end(ginkgo.Report{})
	out := tty.String()
	if strings.Count(out, "\r") != 2 || !strings.HasSuffix(out, "0 specs left\n") || strings.Contains(out, "\x1b") {
		t.Errorf("terminal progress %q: want two rewrites, no escape codes", out)
	}
}
