// Package vendor is a runnable example of the suite's extension model: a
// vendor ("ACME") adds requirements of its own to the registry with
// suites.RegisterRequirement and specs for them with
// suites.DescribeServerSpecs, the way csi-test's DescribeSanity lets a
// driver add its own tests. The specs get the same ServerEnv as the
// built-in ones (connected clients, fixtures, waits), are gated on the
// features their requirements name, and are reported like every other
// requirement, with origin "vendor".
package vendor

import (
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/suites"
)

// The requirements ACME adds. Vendor ids start with suites.VendorPrefix.
const (
	// StableResult: tasks/result of a completed task gives the same
	// payload every time it is asked.
	StableResult = "X-ACME-RESULT-001"
	// ListedAfterCancel: a cancelled task still shows in tasks/list,
	// cancelled.
	ListedAfterCancel = "X-ACME-LIST-001"
)

// Register adds ACME's requirements and specs to the suite. Call it once,
// before the suite is described (before suites.RunServer, CertifyServer
// or DescribeServer).
func Register() error {
	err := errors.Join(
		suites.RegisterRequirement(suites.Requirement{
			ID: StableResult, Level: suites.LevelMust, Section: "ACME server contract § results",
			Summary: "tasks/result of a completed task gives the same payload every time.",
		}, suites.Needs{Needs: []suites.Feature{suites.FeatureCore}}),
		suites.RegisterRequirement(suites.Requirement{
			ID: ListedAfterCancel, Level: suites.LevelShould, Section: "ACME server contract § listing",
			Summary: "A cancelled task still appears in tasks/list, with the status cancelled.",
		}, suites.Needs{Needs: []suites.Feature{suites.FeatureCore, suites.FeatureList, suites.FeatureCancel}}),
	)
	if err != nil {
		return err
	}
	suites.DescribeServerSpecs("ACME: results and listing", "acme", specs)
	return nil
}

// specs are ACME's specs; each names one of ACME's requirements.
func specs(env *suites.ServerEnv) {
	env.It("gives the same tasks/result payload twice", StableResult, func(ctx SpecContext) {
		created := env.Sleep(ctx, 0)
		env.AwaitCompleted(ctx, env.A, created.Task.TaskID)
		first, err := env.A.Result(ctx, created.Task.TaskID)
		Expect(err).NotTo(HaveOccurred(), "the first tasks/result")
		second, err := env.A.Result(ctx, created.Task.TaskID)
		Expect(err).NotTo(HaveOccurred(), "the second tasks/result")
		Expect(second).To(MatchJSON(first), "tasks/result changed between two calls")
	})

	// Run only when the server declares tasks.list and tasks.cancel: the
	// gate skips it as not-applicable otherwise, before this body runs.
	env.It("keeps a cancelled task in tasks/list", ListedAfterCancel, func(ctx SpecContext) {
		created := env.Running(ctx, 5000)
		_, err := env.A.CancelTask(ctx, created.Task.TaskID)
		Expect(err).NotTo(HaveOccurred(), "tasks/cancel")
		all, err := env.A.ListAllTasks(ctx, 1000)
		Expect(err).NotTo(HaveOccurred(), "tasks/list")
		for _, t := range all {
			if t.TaskID == created.Task.TaskID {
				Expect(t.Status).To(BeEquivalentTo("cancelled"))
				return
			}
		}
		Fail("the cancelled task " + created.Task.TaskID + " is missing from tasks/list")
	})
}
