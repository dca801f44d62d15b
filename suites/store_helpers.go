package suites

import (
	"errors"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/protocol"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// expectCode checks that err wraps sentinel and maps to the JSON-RPC code
// the tasks package assigns to it.
func expectCode(err error, sentinel error, what string) {
	ginkgo.GinkgoHelper()
	gomega.Expect(err).To(gomega.HaveOccurred(), "%s: expected an error wrapping %q", what, sentinel)
	gomega.Expect(errors.Is(err, sentinel)).To(gomega.BeTrue(),
		"%s: expected an error wrapping %q, got %v", what, sentinel, err)
	want := wire.CodeInvalidParams
	gomega.Expect(protocol.RPCCode(err)).To(gomega.Equal(want),
		"%s: error %v maps to JSON-RPC code %d, want %d", what, err, protocol.RPCCode(err), want)
}

// expectLikeMissing checks that errOther (an operation on another owner's
// task otherID) cannot be told apart from errMissing (the same operation
// on an id that does not exist, missingID): both are not-found, same code,
// same message once the ids are blanked.
func expectLikeMissing(errOther error, otherID string, errMissing error, missingID string, what string) {
	ginkgo.GinkgoHelper()
	expectCode(errMissing, tasks.ErrNotFound, what+" on a missing task")
	expectCode(errOther, tasks.ErrNotFound, what+" on another owner's task")
	gomega.Expect(errors.Is(errOther, tasks.ErrExpired)).To(gomega.Equal(errors.Is(errMissing, tasks.ErrExpired)),
		"%s: another owner's task and a missing one give different errors", what)
	blank := func(err error, id string) string { return strings.ReplaceAll(err.Error(), id, "<id>") }
	gomega.Expect(blank(errOther, otherID)).To(gomega.Equal(blank(errMissing, missingID)),
		"%s: the message for another owner's task differs from the one for a missing task", what)
}
