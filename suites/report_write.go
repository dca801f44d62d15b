package suites

import "github.com/mcptasks/mcptasks/suites/report"

// ReportLookup gives package report the registry data of a requirement;
// pass it to report.FromGinkgo when building a report yourself (for
// example in a ReportAfterSuite next to DescribeStore).
func ReportLookup(id string) (report.Requirement, bool) {
	r, ok := Lookup(id)
	if !ok {
		return report.Requirement{}, false
	}
	return report.Requirement{ID: r.ID, Level: string(r.Level), Section: r.Section, Summary: r.Summary,
		Toolkit: r.Toolkit(), Vendor: r.Vendor()}, true
}
