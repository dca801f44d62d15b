// Package report turns a Ginkgo run of the conformance suites into a
// conformance report: one entry per requirement with its status, a verdict,
// and the files conformance-report.json, junit.xml, summary.md and
// report.html. It knows nothing about stores or servers: the caller passes
// the requirement registry and the run's metadata, so the store and the
// server suites share it.
//
// How a spec tells the report why it did not pass:
//
//   - a skip whose message starts with PrefixNotSupported: not-supported;
//   - a skip whose message starts with PrefixNotApplicable: not-applicable;
//   - any other skip, a pending spec, or a spec left out by a label filter:
//     skipped;
//   - a failure whose message starts with PrefixHarnessError, or a spec
//     carrying a report entry named EntryHarnessError, or an aborted or
//     interrupted spec: error (the harness could not run it);
//   - any other failure, panic or timeout: fail.
package report

import "strings"

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
	// EntryHarnessError is the name of a Ginkgo report entry that marks a
	// failed spec as a harness error whatever its failure message.
	EntryHarnessError = "harness-error"
)

// Status is the outcome of one requirement (or one spec).
type Status string

// The six statuses, from most to least severe in the order a requirement's
// status is chosen among its specs.
const (
	StatusFail          Status = "fail"
	StatusError         Status = "error"
	StatusNotSupported  Status = "not-supported"
	StatusSkipped       Status = "skipped"
	StatusPass          Status = "pass"
	StatusNotApplicable Status = "not-applicable"
)

// Statuses lists every status, most severe first.
var Statuses = []Status{StatusFail, StatusError, StatusNotSupported, StatusSkipped, StatusPass, StatusNotApplicable}

// severity orders statuses: a requirement takes the most severe status of
// its specs.
func severity(s Status) int {
	for i, x := range Statuses {
		if x == s {
			return len(Statuses) - i
		}
	}
	return len(Statuses) + 1
}

// Levels are the requirement levels, strongest first.
var Levels = []string{"MUST", "SHOULD", "MAY"}

// Verdict sums up a run.
type Verdict string

// The three verdicts.
const (
	// VerdictConformant: every MUST requirement in scope passed (or does
	// not apply).
	VerdictConformant Verdict = "conformant"
	// VerdictPartial: no MUST failed, but some were not run, not
	// supported or could not be run.
	VerdictPartial Verdict = "partial"
	// VerdictNonConformant: at least one MUST requirement failed.
	VerdictNonConformant Verdict = "non-conformant"
)

// Exit codes for tools that certify a subject.
const (
	ExitConformant    = 0
	ExitNonConformant = 1
	ExitUsage         = 2
	ExitHarnessError  = 3
)

// trimPrefixes removes a known status prefix from a message.
func trimPrefixes(msg string) string {
	for _, p := range []string{PrefixNotSupported, PrefixNotApplicable, PrefixHarnessError} {
		if rest, ok := strings.CutPrefix(msg, p); ok {
			return rest
		}
	}
	return msg
}
