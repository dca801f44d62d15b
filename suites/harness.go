package suites

import (
	"fmt"

	"github.com/onsi/ginkgo/v2"

	"github.com/mcptasks/mcptasks/suites/report"
)

// harnessErrorPrefix starts the failure message of a spec that could not
// run because of the harness or the environment (a factory that cannot
// open the store, an unreachable server), as opposed to a subject that
// behaved wrongly. Reports count such specs as "error", not "fail".
const harnessErrorPrefix = report.PrefixHarnessError

// HarnessError fails the running spec as a harness error.
func HarnessError(format string, args ...any) {
	ginkgo.Fail(harnessErrorPrefix+fmt.Sprintf(format, args...), 1)
}
