package main

import (
	"io"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/suites"
)

func TestFlagsAndEnvironment(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		check   func(t *testing.T, c *config)
		wantErr bool
	}{
		{name: "defaults", check: func(t *testing.T, c *config) {
			if c.reportDir != "conformance-results" || c.timeout != 10*time.Minute || len(c.servers) != 0 {
				t.Errorf("defaults: %+v", c)
			}
		}},
		{name: "environment fills unset flags", env: map[string]string{
			EnvPrefix + "SERVER":      "http://a/mcp, http://b/mcp",
			EnvPrefix + "HEADER":      "Authorization: Bearer x\nX-Extra: 1",
			EnvPrefix + "FIXTURE":     "sleep=delay,input=ask",
			EnvPrefix + "REPORT_DIR":  "/tmp/r",
			EnvPrefix + "STRICT":      "true",
			EnvPrefix + "TIMEOUT":     "30s",
			EnvPrefix + "FIXTURE_ARG": "sleep.ms=duration",
		}, check: func(t *testing.T, c *config) {
			if len(c.servers) != 2 || len(c.headers) != 2 || len(c.fixtures) != 2 || c.reportDir != "/tmp/r" ||
				!c.strict || c.timeout != 30*time.Second || len(c.fixtureArgs) != 1 {
				t.Errorf("from environment: %+v", c)
			}
		}},
		{name: "flags win over the environment", args: []string{"--server", "http://flag/mcp", "--report-dir", "x"},
			env: map[string]string{EnvPrefix + "SERVER": "http://env/mcp", EnvPrefix + "REPORT_DIR": "y"},
			check: func(t *testing.T, c *config) {
				if len(c.servers) != 1 || c.servers[0] != "http://flag/mcp" || c.reportDir != "x" {
					t.Errorf("flags lost: %+v", c)
				}
			}},
		{name: "bad duration in environment", env: map[string]string{EnvPrefix + "TIMEOUT": "soon"}, wantErr: true},
		{name: "bad bool in environment", env: map[string]string{EnvPrefix + "STRICT": "maybe"}, wantErr: true},
		{name: "stray argument", args: []string{"x"}, wantErr: true},
		{name: "profile and auth contexts", args: []string{"--profile", "mcptasks", "--auth-contexts", "yes"},
			check: func(t *testing.T, c *config) {
				if c.profile != "mcptasks" || c.authContexts != "yes" {
					t.Errorf("profile %q, auth contexts %q", c.profile, c.authContexts)
				}
			}},
		{name: "profile from the environment", env: map[string]string{EnvPrefix + "PROFILE": "mcp", EnvPrefix + "AUTH_CONTEXTS": "no"},
			check: func(t *testing.T, c *config) {
				if c.profile != "mcp" || c.authContexts != "no" {
					t.Errorf("profile %q, auth contexts %q", c.profile, c.authContexts)
				}
			}},
		{name: "unknown profile", args: []string{"--profile", "lenient"}, wantErr: true},
		{name: "unknown auth contexts", args: []string{"--auth-contexts", "perhaps"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseFlags(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if tt.check != nil {
				tt.check(t, c)
			}
		})
	}
}

func TestServerConfigFromFlags(t *testing.T) {
	c, err := parseFlags([]string{"--server", "http://h/mcp", "--header", "Authorization: Bearer a",
		"--header-b", "Authorization: Bearer b", "--fixture", "sleep=delay", "--fixture-arg", "sleep.ms=duration",
		"--fixture-arg", "input.question="}, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := c.serverConfig()
	if err != nil {
		t.Fatal(err)
	}
	if sc.Headers.Get("Authorization") != "Bearer a" || sc.HeadersB.Get("Authorization") != "Bearer b" {
		t.Errorf("headers: %v %v", sc.Headers, sc.HeadersB)
	}
	if sc.AuthContexts != suites.AuthContextsAuto {
		t.Errorf("auth contexts %q, want auto by default", sc.AuthContexts)
	}
	if sc.ToolName("sleep") != "delay" || sc.ToolName("input") != "fixture_input" {
		t.Errorf("tool names: %q %q", sc.ToolName("sleep"), sc.ToolName("input"))
	}
	if sc.ArgName("sleep", "ms") != "duration" || sc.ArgName("input", "question") != "" || sc.ArgName("progress", "ms") != "ms" {
		t.Errorf("arg names wrong")
	}
	if got := redactHeader("Authorization: Bearer secret"); got != "Authorization: <redacted>" {
		t.Errorf("redactHeader = %q", got)
	}
}
