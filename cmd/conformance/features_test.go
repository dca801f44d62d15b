package main

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/mcptasks/mcptasks/suites"
	"github.com/mcptasks/mcptasks/suites/report"
)

// TestMissingFeaturesSkipExactlyWhatNeedsThem certifies the reference
// server behind a proxy that takes list, cancel, input and progress away:
// the capabilities no longer declare tasks.list and tasks.cancel, those
// methods are refused with -32601, and the input and progress fixtures
// are not listed. Exactly the requirements whose registry entry needs one
// of them must be skipped (not-applicable or not-supported, naming the
// feature), before their bodies run, and nothing else may fail.
func TestMissingFeaturesSkipExactlyWhatNeedsThem(t *testing.T) {
	missing := []suites.Feature{suites.FeatureList, suites.FeatureCancel, suites.FeatureInput, suites.FeatureProgress}
	run := certifyThrough(t, breakage{
		onRequest: func(w http.ResponseWriter, _ *http.Request, req *rpcRequest) bool {
			// Only the 2025-11-25 profile loses them: in the 2026-07-28
			// profile tasks/cancel is part of the extension itself.
			if modernRequest(req) {
				return false
			}
			if req.Method == "tasks/list" || req.Method == "tasks/cancel" {
				return answer(w, req, nil, map[string]any{"code": -32601, "message": "method not found: " + req.Method})
			}
			return false
		},
		onMessage: func(method string, msg map[string]any) {
			r := resultOf(msg)
			if r == nil {
				return
			}
			switch method {
			case "initialize":
				if caps, ok := r["capabilities"].(map[string]any); ok {
					if tk, ok := caps["tasks"].(map[string]any); ok {
						delete(tk, "list")
						delete(tk, "cancel")
					}
				}
			case "tools/list":
				tools, _ := r["tools"].([]any)
				var kept []any
				for _, tool := range tools {
					name, _ := tool.(map[string]any)["name"].(string)
					if name != "fixture_input" && name != "fixture_progress" {
						kept = append(kept, tool)
					}
				}
				r["tools"] = kept
			}
		},
	}, "")
	if run.report == nil {
		t.Fatalf("exit %d, no report\n%s\n%s", run.code, run.stdout, run.stderr)
	}
	rep := run.report
	for _, d := range rep.Features.Decisions {
		if slices.Contains(missing, suites.Feature(d.Name)) && d.State != "off" {
			t.Errorf("feature %s decided %s (%s: %s), want off", d.Name, d.State, d.Source, d.Reason)
		}
	}
	skipped, judged := 0, 0
	for _, e := range slices.Concat(rep.Requirements, rep.Recommendations) {
		r, ok := suites.Lookup(e.ID)
		if !ok {
			t.Errorf("%s: not in the registry", e.ID)
			continue
		}
		needed := slices.ContainsFunc(r.FeaturesIn(suites.ModeServer).Needs, func(f suites.Feature) bool { return slices.Contains(missing, f) })
		switch {
		case needed:
			skipped++
			if e.Status != report.StatusNotApplicable && e.Status != report.StatusNotSupported {
				t.Errorf("%s needs a missing feature but is %s: %s", e.ID, e.Status, e.Message)
			} else if !strings.Contains(e.Message, "needs the feature") {
				t.Errorf("%s is %s without naming the missing feature: %s", e.ID, e.Status, e.Message)
			}
			for _, s := range e.Specs {
				if s.DurationSeconds > 1 {
					t.Errorf("%s: spec %q ran for %.1fs: it should be skipped before its body", e.ID, s.Name, s.DurationSeconds)
				}
			}
		default:
			judged++
			if e.Status == report.StatusFail || e.Status == report.StatusError {
				t.Errorf("%s does not need list, cancel, input or progress but is %s: %s", e.ID, e.Status, e.Message)
			}
			if strings.Contains(e.Message, "needs the feature list") || strings.Contains(e.Message, "needs the feature cancel") ||
				strings.Contains(e.Message, "needs the feature input") || strings.Contains(e.Message, "needs the feature progress") {
				t.Errorf("%s was skipped for a feature the registry does not make it need: %s", e.ID, e.Message)
			}
		}
	}
	if skipped < 25 || judged < 60 {
		t.Errorf("%d requirements skipped, %d judged: the proxy did not take the features away, or the registry changed a lot", skipped, judged)
	}
	if len(rep.HarnessErrors) > 0 || rep.Summary.Verdict == report.VerdictNonConformant {
		t.Errorf("verdict %s, harness errors %q", rep.Summary.Verdict, rep.HarnessErrors)
	}
	t.Logf("%d requirements skipped for a missing feature, %d judged; verdict %s", skipped, judged, rep.Summary.Verdict)
}

// TestFeatureOverrideSwitchesRequirementsOff checks --feature X=off on a
// server that has X: the requirements needing it become not-applicable and
// the report lists the override.
func TestFeatureOverrideSwitchesRequirementsOff(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, "--feature", "cancel=off", "--label-filter", "feature:cancel", "--report-dir", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	rep := readReport(t, dir)
	if !slices.Equal(rep.Features.Overridden, []string{"cancel=off"}) {
		t.Errorf("overridden %q", rep.Features.Overridden)
	}
	for _, e := range rep.Requirements {
		r, _ := suites.Lookup(e.ID)
		n := r.FeaturesIn(suites.ModeServer)
		switch {
		case slices.Contains(n.Needs, suites.FeatureCancel):
			if e.Status != report.StatusNotApplicable {
				t.Errorf("%s needs cancel, switched off, but is %s", e.ID, e.Status)
			}
		case e.Status == report.StatusFail || e.Status == report.StatusError:
			t.Errorf("%s uses cancel only when on, but is %s: %s", e.ID, e.Status, e.Message)
		}
	}
	if code, _, stderr := runCLI(t, "--feature", "teleport=on"); code != exitUsage || !strings.Contains(stderr, "unknown feature") {
		t.Errorf("unknown feature: exit %d, %s", code, stderr)
	}
}
