// Package registry checks, with a dry run of the server specs, that the
// server half of the suite and the requirement registry agree.
package registry_test

import (
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/suites"
)

func TestServerSpecsAndRegistryAgree(t *testing.T) {
	var got Report
	suites.DescribeServer(suites.ServerConfig{URLs: []string{"http://127.0.0.1:1/mcp"}})
	ReportAfterSuite("capture", func(r Report) { got = r })
	gomega.RegisterFailHandler(Fail)
	sc, rc := GinkgoConfiguration()
	sc.DryRun = true
	RunSpecs(t, "server registry (dry run)", sc, rc)

	specsPerID := map[string]int{}
	areas := map[string]bool{}
	for _, sr := range got.SpecReports {
		if !sr.LeafNodeType.Is(types.NodeTypeIt) {
			continue
		}
		var ids []string
		modeServer := false
		for _, l := range sr.Labels() {
			switch {
			case strings.HasPrefix(l, suites.LabelReq+":"):
				ids = append(ids, strings.TrimPrefix(l, suites.LabelReq+":"))
			case l == suites.LabelMode+":"+string(suites.ModeServer):
				modeServer = true
			case strings.HasPrefix(l, suites.LabelArea+":"):
				areas[strings.TrimPrefix(l, suites.LabelArea+":")] = true
			}
		}
		if len(ids) != 1 {
			t.Errorf("spec %q carries %d requirement ids, want 1", sr.FullText(), len(ids))
			continue
		}
		if !modeServer {
			t.Errorf("spec %q lacks the mode:server label", sr.FullText())
		}
		if _, ok := suites.Lookup(ids[0]); !ok {
			t.Errorf("spec %q names the unregistered requirement %s", sr.FullText(), ids[0])
		}
		specsPerID[ids[0]]++
	}
	// Every requirement registered for the server half has a spec.
	seen := map[string]bool{}
	for _, r := range suites.Requirements() {
		if seen[r.ID] {
			t.Errorf("requirement %s is registered twice", r.ID)
		}
		seen[r.ID] = true
	}
	for _, id := range suites.ServerRequirementIDs() {
		if specsPerID[id] == 0 {
			t.Errorf("server requirement %s has no spec", id)
		}
	}
	for _, a := range []string{"handshake", "tools", "create", "poll", "result", "list", "cancel", "errors",
		"isolation", "ttl", "notifications", "progress", "input", "multi-instance", "wire"} {
		if !areas[a] {
			t.Errorf("no spec in area %q", a)
		}
	}
	if len(specsPerID) < 70 {
		t.Errorf("only %d requirements have server specs", len(specsPerID))
	}
	t.Run("label filter per feature", func(t *testing.T) { labelFilterSelectsExactlyWhatDependsOnAFeature(t, got) })
}

// labelFilterSelectsExactlyWhatDependsOnAFeature evaluates, for every
// feature X, Ginkgo's own label filter "feature:X" on every spec of the
// dry run, and checks that the requirements it selects are exactly those
// whose registry entry names X (needed, used or required off), with all
// their specs: labels and the gate read the same table.
func labelFilterSelectsExactlyWhatDependsOnAFeature(t *testing.T, got Report) {
	for _, f := range suites.ServerFeatures() {
		filter, err := types.ParseLabelFilter(suites.LabelFeature + ":" + string(f))
		if err != nil {
			t.Fatal(err)
		}
		selected, left := map[string]int{}, map[string]int{}
		for _, sr := range got.SpecReports {
			if !sr.LeafNodeType.Is(types.NodeTypeIt) {
				continue
			}
			id := ""
			for _, l := range sr.Labels() {
				if v, ok := strings.CutPrefix(l, suites.LabelReq+":"); ok {
					id = v
				}
			}
			if filter(sr.Labels()) {
				selected[id]++
			} else {
				left[id]++
			}
		}
		var want []string
		for _, r := range suites.Requirements() {
			if r.FeaturesIn(suites.ModeServer).Names(f) && (selected[r.ID] > 0 || left[r.ID] > 0) {
				want = append(want, r.ID)
			}
		}
		for _, id := range want {
			if selected[id] == 0 || left[id] > 0 {
				t.Errorf("feature:%s: requirement %s depends on %s, but the filter selects %d of its %d specs",
					f, id, f, selected[id], selected[id]+left[id])
			}
		}
		for id := range selected {
			r, _ := suites.Lookup(id)
			if !r.FeaturesIn(suites.ModeServer).Names(f) {
				t.Errorf("feature:%s selects %s, whose registry entry does not name %s", f, id, f)
			}
		}
		switch f {
		case suites.FeatureStdio:
			// No rule is specific to stdio: every rule is judged over
			// both transports, or over HTTP only.
		default:
			if len(want) == 0 {
				t.Errorf("no requirement depends on feature %s", f)
			}
		}
		t.Logf("feature:%s selects %d requirements", f, len(want))
	}
	// Every entry of the feature table belongs to a requirement with
	// server specs: a stale entry would label nothing.
	ids := map[string]bool{}
	for _, sr := range got.SpecReports {
		for _, l := range sr.Labels() {
			if v, ok := strings.CutPrefix(l, suites.LabelReq+":"); ok {
				ids[v] = true
			}
		}
	}
	for _, r := range suites.Requirements() {
		if len(r.FeaturesIn(suites.ModeServer).All()) > 0 && !ids[r.ID] {
			t.Errorf("the server feature table names %s, which has no server spec", r.ID)
		}
	}
	// The feature that was the example of the drift: cancel.
	n := 0
	for _, r := range suites.Requirements() {
		if r.FeaturesIn(suites.ModeServer).Names(suites.FeatureCancel) {
			n++
		}
	}
	if n < 10 {
		t.Errorf("only %d requirements depend on cancel", n)
	}
}
