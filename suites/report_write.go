package suites

import (
	"errors"

	"github.com/onsi/ginkgo/v2"
)

// writeReports builds the conformance report of a finished run and writes
// it into o.reportDir.
func writeReports(r ginkgo.Report, mode Mode, o *options) error {
	return errors.New("report writing is not implemented yet")
}
