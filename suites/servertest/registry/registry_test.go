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
}
