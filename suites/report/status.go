// Package report turns a Ginkgo run of the conformance suites into a
// conformance report: one entry per requirement with its status, a verdict,
// and the files conformance-report.json, junit.xml, summary.md and
// report.html. It knows nothing about stores or servers; the caller passes
// the requirement registry and the run's metadata, so the store and the
// server suites share it.
package report

// Skip and failure message prefixes the suites use to tell the report why
// a spec did not pass.
const (
	// PrefixNotSupported starts the skip message of a spec whose subject
	// lacks what it needs (a fixture, a second identity). Never a pass.
	PrefixNotSupported = "not-supported: "
	// PrefixNotApplicable starts the skip message of a spec whose
	// requirement does not apply to the subject.
	PrefixNotApplicable = "not-applicable: "
	// PrefixHarnessError starts the failure message of a spec that could
	// not run because of the harness or the environment.
	PrefixHarnessError = "harness-error: "
)
