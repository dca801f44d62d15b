package suites

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcptasks/mcptasks/schema"
)

// toolsOf decodes a tools/list result's tools.
func toolsOf(t *testing.T, raw string) []schema.Tool {
	t.Helper()
	var tools []schema.Tool
	if err := json.Unmarshal([]byte(raw), &tools); err != nil {
		t.Fatal(err)
	}
	return tools
}

func TestResolveFeatures(t *testing.T) {
	http1 := ServerConfig{URLs: []string{"http://x/mcp"}}
	http2 := ServerConfig{URLs: []string{"http://x/mcp", "http://y/mcp"}}
	stdio := ServerConfig{Command: []string{"srv"}}
	all := `[{"name":"fixture_sleep","execution":{"taskSupport":"optional"}},
		{"name":"fixture_input","execution":{"taskSupport":"optional"}},
		{"name":"fixture_progress","execution":{"taskSupport":"required"}}]`
	none := `[{"name":"greet"}]`
	full := Capabilities{Tasks: true, ToolsCall: true, List: true, Cancel: true, Tools: true}
	for _, tc := range []struct {
		name      string
		cfg       ServerConfig
		caps      Capabilities
		tools     string
		auth      Authorization
		overrides map[Feature]bool
		want      map[Feature]FeatureState
		source    map[Feature]string
	}{
		{name: "everything declared and inferred", cfg: http2, caps: full, tools: all, auth: Authorization{Contexts: true},
			want: map[Feature]FeatureState{FeatureCore: StateOn, FeatureList: StateOn, FeatureCancel: StateOn, FeatureInput: StateOn,
				FeatureProgress: StateOn, FeatureMultiInstance: StateOn, FeatureAuthorization: StateOn, FeatureHTTP: StateOn, FeatureStdio: StateOff},
			source: map[Feature]string{FeatureCore: SourceDeclared, FeatureList: SourceDeclared, FeatureInput: SourceInferred}},
		{name: "nothing declared, no task tool", cfg: http1, tools: none, auth: Authorization{Anonymous: true},
			want: map[Feature]FeatureState{FeatureCore: StateOff, FeatureList: StateOff, FeatureCancel: StateOff, FeatureInput: StateOff,
				FeatureProgress: StateOff, FeatureMultiInstance: StateOff, FeatureAuthorization: StateOff, FeatureNotifications: StateOn}},
		{name: "task tools without the declaration", cfg: http1, caps: Capabilities{Tools: true}, tools: all,
			want:   map[Feature]FeatureState{FeatureCore: StateOn, FeatureAuthorization: StateUnknown},
			source: map[Feature]string{FeatureCore: SourceInferred}},
		{name: "stdio", cfg: stdio, caps: full, tools: all, auth: Authorization{Anonymous: true},
			want: map[Feature]FeatureState{FeatureHTTP: StateOff, FeatureStdio: StateOn, FeatureMultiInstance: StateOff}},
		{name: "overrides win", cfg: http1, caps: full, tools: none, overrides: map[Feature]bool{FeatureCancel: false, FeatureInput: true},
			want:   map[Feature]FeatureState{FeatureCancel: StateOff, FeatureInput: StateOn, FeatureProgress: StateOff},
			source: map[Feature]string{FeatureCancel: SourceOverridden, FeatureInput: SourceOverridden}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := resolveFeatures(tc.cfg.withDefaults(), probed{caps: tc.caps, tools: toolsOf(t, tc.tools), auth: tc.auth}, tc.overrides)
			if len(fs) != len(ServerFeatures()) {
				t.Errorf("%d decisions, want one per feature (%d)", len(fs), len(ServerFeatures()))
			}
			for f, want := range tc.want {
				if got := fs[f]; got.State != want || got.Reason == "" {
					t.Errorf("%s: %s (%s: %q), want %s with a reason", f, got.State, got.Source, got.Reason, want)
				}
			}
			for f, want := range tc.source {
				if got := fs[f].Source; got != want {
					t.Errorf("%s: source %s, want %s", f, got, want)
				}
			}
		})
	}
}

func TestSkipReasons(t *testing.T) {
	fs := resolveFeatures(ServerConfig{URLs: []string{"http://x/mcp"}}.withDefaults(),
		probed{caps: Capabilities{Tasks: true, ToolsCall: true}, tools: toolsOf(t, `[]`), auth: Authorization{Reason: "cannot tell"}},
		map[Feature]bool{FeatureNotifications: false})
	for _, tc := range []struct {
		name         string
		n            Needs
		runs         bool
		notSupported bool
		mentions     string
	}{
		{name: "core only", n: needs(FeatureCore), runs: true},
		{name: "list undeclared", n: needs(FeatureCore, FeatureList), mentions: "capabilities.tasks.list"},
		{name: "missing fixture", n: needs(FeatureInput), notSupported: true, mentions: "input fixture"},
		{name: "overridden off", n: needs(FeatureNotifications), mentions: "operator"},
		{name: "unknown authorization", n: needs(FeatureAuthorization), notSupported: true, mentions: "could not be established"},
		{name: "without unknown authorization", n: Needs{Without: []Feature{FeatureAuthorization}}, mentions: "may be on"},
		{name: "uses only", n: Needs{Uses: []Feature{FeatureCancel}}, runs: true},
	} {
		reason, ns := fs.skipReason(tc.n)
		switch {
		case tc.runs && reason != "":
			t.Errorf("%s: skipped: %s", tc.name, reason)
		case !tc.runs && (ns != tc.notSupported || !strings.Contains(reason, tc.mentions)):
			t.Errorf("%s: reason %q (not-supported %v), want one mentioning %q (not-supported %v)", tc.name, reason, ns, tc.mentions, tc.notSupported)
		}
	}
}

func TestParseFeatureSetting(t *testing.T) {
	for _, tc := range []struct {
		in  string
		f   Feature
		on  bool
		bad bool
	}{
		{in: "cancel=off", f: FeatureCancel}, {in: "multi-instance=on", f: FeatureMultiInstance, on: true},
		{in: " list = yes", f: FeatureList, on: true}, {in: "cancel", bad: true}, {in: "teleport=on", bad: true}, {in: "list=maybe", bad: true},
	} {
		f, on, err := ParseFeatureSetting(tc.in)
		if (err != nil) != tc.bad || (!tc.bad && (f != tc.f || on != tc.on)) {
			t.Errorf("ParseFeatureSetting(%q) = %s %v %v", tc.in, f, on, err)
		}
	}
}
