package suites

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// Values that break stores which decode JSON into Go values and encode it
// again: integers beyond 2^53 (float64 rounds them), escapes and unicode
// (re-encoding changes them), key order and spacing (maps sort keys,
// encoders drop spaces).
const (
	bigInts      = `[9007199254740993,12345678901234567890123,-9223372036854775809]`
	exactResult  = `{"z": 1, "a": ` + bigInts + `, "s": "caf\u00e9 é \"q\" \\ \/ 🚀 <&>", "f": 1.10, "e": {}}`
	exactErrData = `{"retryAfter": 18446744073709551617, "why": "\u2713", "list": [ 0.1 , true ]}`
)

var _ = describeStore("Exact values", "results", func(env *StoreEnv) {
	DescribeTable("hands back an outcome byte for byte",
		func(ctx SpecContext, status tasks.Status, o tasks.Outcome) {
			r := env.Create(ctx, env.Owner)
			_, err := env.Store.Complete(ctx, env.Owner, r.ID, status, "", o)
			Expect(err).NotTo(HaveOccurred())
			for i := 0; i < 2; i++ { // the second read catches a store that rewrites on read
				res, err := env.Store.Result(ctx, env.Owner, r.ID)
				Expect(err).NotTo(HaveOccurred())
				Expect(res.Outcome).NotTo(BeNil())
				Expect(string(res.Outcome.Result)).To(Equal(string(o.Result)), "the result bytes")
				if o.Error == nil {
					Expect(res.Outcome.Error).To(BeNil())
					continue
				}
				Expect(res.Outcome.Error).NotTo(BeNil())
				Expect(res.Outcome.Error.Code).To(Equal(o.Error.Code), "the error code")
				Expect(res.Outcome.Error.Message).To(Equal(o.Error.Message), "the error message")
				Expect(string(res.Outcome.Error.Data)).To(Equal(string(o.Error.Data)), "the error data bytes")
			}
		},
		env.Entry("a result with big integers, escapes and spacing", "MCPT-RES-004", tasks.StatusCompleted, resultOutcome(exactResult)),
		env.Entry("a scalar result", "MCPT-RES-004", tasks.StatusCompleted, resultOutcome(`18446744073709551617`)),
		env.Entry("an error with data", "MCPT-RES-004", tasks.StatusFailed,
			tasks.Outcome{Error: &tasks.RPCError{Code: -32099, Message: "nö \"way\"\n", Data: json.RawMessage(exactErrData)}}),
		env.Entry("an error code beyond 32 bits", "MCPT-RES-004", tasks.StatusFailed,
			tasks.Outcome{Error: &tasks.RPCError{Code: -(1 << 40) - 7, Message: "wide"}}),
		env.Entry("an error with a string as data", "MCPT-RES-004", tasks.StatusFailed,
			tasks.Outcome{Error: &tasks.RPCError{Code: 1, Message: "", Data: json.RawMessage(`"just text"`)}}),
	)

	env.It("hands back variable values byte for byte, surrounding spaces trimmed", "MCPT-VAR-006", func(ctx SpecContext) {
		r, err := env.Store.Create(ctx, env.Owner, tasks.CreateParams{Method: wire.MethodToolsCall,
			Variables: vars("server.big", bigInts, "server.obj", ` {"b": 1, "a":  "\u00e9"} `)})
		Expect(err).NotTo(HaveOccurred())
		got, err := env.Store.SetVariables(ctx, env.Owner, r.ID, vars("client.n", "\t18446744073709551617\n", "client.f", `1.50`))
		Expect(err).NotTo(HaveOccurred())
		want := map[string]string{
			"server.big": bigInts,
			"server.obj": `{"b": 1, "a":  "\u00e9"}`,
			"client.n":   `18446744073709551617`,
			"client.f":   `1.50`,
		}
		page, err := env.Store.List(ctx, env.Owner, tasks.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(page.Tasks).To(HaveLen(1))
		for what, rec := range map[string]tasks.Record{"SetVariables": got, "Get": mustGet(ctx, env, env.Owner, r.ID), "List": page.Tasks[0]} {
			Expect(rec.Variables).To(HaveLen(len(want)), "%s: %s", what, showVars(rec.Variables))
			for k, v := range want {
				Expect(string(rec.Variables[k])).To(Equal(v), "%s: variable %q", what, k)
			}
		}
	})
})
