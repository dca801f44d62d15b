package suites

import (
	"github.com/onsi/ginkgo/v2"

	"github.com/mcptasks/mcptasks/suites/report"
)

// ReportLookup gives package report the registry data of a requirement;
// pass it to report.FromGinkgo when building a report yourself (for
// example in a ReportAfterSuite next to DescribeStore).
func ReportLookup(id string) (report.Requirement, bool) {
	r, ok := Lookup(id)
	if !ok {
		return report.Requirement{}, false
	}
	return report.Requirement{ID: r.ID, Level: string(r.Level), Section: r.Section, Feature: r.Feature, Summary: r.Summary,
		Toolkit: r.Toolkit()}, true
}

// buildReport turns a finished run into a conformance report using the
// options given to RunStore.
func buildReport(r ginkgo.Report, mode Mode, o *options) *report.Report {
	meta := report.Meta{
		Mode:         string(mode),
		SchemaSHA256: o.schemaSHA256,
		LabelFilter:  r.SuiteConfig.LabelFilter,
		Strict:       o.strict,
		Profile:      string(o.profileFor(mode)),
	}
	if o.target != "" {
		meta.Targets = []string{o.target}
	}
	if o.implName != "" {
		meta.Implementation = &report.Implementation{Name: o.implName, Version: o.implVersion}
	}
	return report.FromGinkgo(r, ReportLookup, meta)
}

// writeReports builds the conformance report of a finished run and writes
// every file into o.reportDir.
func writeReports(r ginkgo.Report, mode Mode, o *options) error {
	return report.WriteAll(o.reportDir, buildReport(r, mode, o), r)
}
