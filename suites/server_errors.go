package suites

import (
	"errors"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/tasks/client"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// rpcCode returns the JSON-RPC code of err, if it is a JSON-RPC error.
func rpcCode(err error) (int64, bool) {
	return client.ErrorCode(err)
}

var _ = describeServer("Protocol errors", "errors", func(env *ServerEnv) {
	// The cases the catalog names: an id never issued, an empty string
	// and a value of the wrong JSON type.
	badIDs := map[string]any{
		"an unknown id": "00000000-0000-4000-8000-000000000000",
		"an empty id":   "",
		"a numeric id":  42,
	}
	methods := func() []string {
		ms := []string{wire.MethodTasksGet, wire.MethodTasksResult}
		if env.Has(FeatureCancel) {
			ms = append(ms, wire.MethodTasksCancel)
		}
		return ms
	}

	env.It("answers tasks/get, tasks/result and tasks/cancel for a bad taskId with -32602", "TASKS-ERR-001", func(ctx SpecContext) {
		for _, m := range methods() {
			for what, id := range badIDs {
				_, err := env.A.Call(ctx, m, map[string]any{"taskId": id})
				ExpectRPCError(err, -32602, m+" with "+what)
			}
		}
	})

	env.It("explains protocol errors in the error message", "TASKS-ERR-005", func(ctx SpecContext) {
		for _, m := range methods() {
			_, err := env.A.Call(ctx, m, map[string]any{"taskId": "00000000-0000-4000-8000-000000000000"})
			var rpc *client.RPCError
			Expect(errors.As(err, &rpc)).To(BeTrue(), "%s with an unknown id: %v", m, err)
			msg := strings.TrimSpace(rpc.Message)
			Expect(msg).NotTo(BeEmpty(), "%s: empty error message", m)
			Expect(strings.ToLower(msg)).NotTo(BeElementOf("error", "invalid params", "internal error"), "%s: generic error message %q", m, msg)
		}
	})

	env.It("answers every error with the request id, an integer code and a message", "TASKS-JSONRPC-005", func(ctx SpecContext) {
		m, err := env.A.CallMessage(ctx, wire.MethodTasksGet, map[string]any{"taskId": "00000000-0000-4000-8000-000000000000"})
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Kind).To(Equal(client.KindError), "tasks/get of an unknown task succeeded")
		Expect(m.Raw).To(ConformTo("JSONRPCErrorResponse"))
		Expect(m.ID).NotTo(BeEmpty(), "error response has no id")
	})
})
