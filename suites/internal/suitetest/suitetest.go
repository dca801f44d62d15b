// Package suitetest runs the conformance suites inside the suites' own
// tests: several Ginkgo runs in one test binary (one per broken store, a
// dry run, an embedded run), each starting from a clean Ginkgo state.
package suitetest

import (
	"sync"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/extensions/globals"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"
)

// failT records whether a run failed; it is the GinkgoTestingT RunSpecs
// needs, so a failing run does not fail the surrounding test.
type failT struct {
	mu     sync.Mutex
	failed bool
}

// Fail records the failure.
func (t *failT) Fail() {
	t.mu.Lock()
	t.failed = true
	t.mu.Unlock()
}

// Run resets Ginkgo, lets register declare specs, runs them and returns
// the run's report. configure may adjust the suite configuration (DryRun,
// LabelFilter). Not safe for concurrent use: Ginkgo's state is global.
func Run(register func(), configure func(*types.SuiteConfig)) types.Report {
	globals.Reset()
	var rep types.Report
	register()
	ginkgo.ReportAfterSuite("capture", func(r ginkgo.Report) { rep = r })
	gomega.RegisterFailHandler(ginkgo.Fail)
	sc, rc := ginkgo.GinkgoConfiguration()
	// RunSpecs stores the configuration it is given as Ginkgo's global
	// one, so undo what an earlier Run may have set.
	sc.DryRun = false
	sc.LabelFilter = ""
	sc.RandomSeed = 1
	rc.Succinct = true
	rc.NoColor = true
	if configure != nil {
		configure(&sc)
	}
	ginkgo.RunSpecs(&failT{}, "suitetest", sc, rc)
	return rep
}

// Failed returns the requirement ids with at least one failed spec, and
// every failure message by id.
func Failed(r types.Report) map[string][]string {
	out := map[string][]string{}
	for _, sr := range r.SpecReports {
		if !sr.LeafNodeType.Is(types.NodeTypeIt) || !sr.State.Is(types.SpecStateFailureStates) {
			continue
		}
		for _, l := range sr.Labels() {
			if len(l) > 4 && l[:4] == "req:" {
				out[l[4:]] = append(out[l[4:]], sr.FullText()+": "+sr.Failure.Message)
			}
		}
	}
	return out
}
