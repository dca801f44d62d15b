package suites

import (
	"encoding/json"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// vars builds a variables map from key/JSON pairs.
func vars(kv ...string) map[string]json.RawMessage {
	m := make(map[string]json.RawMessage, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = json.RawMessage(kv[i+1])
	}
	return m
}

// expectVars compares variables byte for byte (a value's surrounding
// spaces aside), so a store that rounds numbers or re-encodes fails.
func expectVars(got map[string]json.RawMessage, want map[string]json.RawMessage) {
	GinkgoHelper()
	Expect(got).To(HaveLen(len(want)), "variables %s, want %s", showVars(got), showVars(want))
	for k, v := range want {
		Expect(got).To(HaveKey(k))
		Expect(string(got[k])).To(Equal(strings.TrimSpace(string(v))), "variable %q", k)
	}
}

var _ = describeStore("Variables", "variables", func(env *StoreEnv) {
	BeforeEach(func() {
		env.Config.MaxVariablesBytes = 256
	})

	env.It("adds new keys and replaces existing ones, keeping the rest", "MCPT-VAR-001", func(ctx SpecContext) {
		r, err := env.Store.Create(ctx, env.Owner, tasks.CreateParams{Method: wire.MethodToolsCall,
			Variables: vars("server.a", `1`, "server.b", `"two"`)})
		Expect(err).NotTo(HaveOccurred())
		expectVars(r.Variables, vars("server.a", `1`, "server.b", `"two"`))
		got, err := env.Store.SetVariables(ctx, env.Owner, r.ID, vars("server.b", `{"n":2}`, "client.c", `[3]`, "client.unicode-1", `"\"ünïcødé\" 🚀"`))
		Expect(err).NotTo(HaveOccurred())
		want := vars("server.a", `1`, "server.b", `{"n":2}`, "client.c", `[3]`, "client.unicode-1", `"\"ünïcødé\" 🚀"`)
		expectVars(got.Variables, want)
		expectVars(mustGet(ctx, env, env.Owner, r.ID).Variables, want)
	})

	env.It("keeps variables across status changes and into the result", "MCPT-VAR-001", func(ctx SpecContext) {
		r := env.Create(ctx, env.Owner)
		_, err := env.Store.SetVariables(ctx, env.Owner, r.ID, vars("server.step", `1`))
		Expect(err).NotTo(HaveOccurred())
		_, err = env.Store.Transition(ctx, env.Owner, r.ID, tasks.StatusInputRequired, "")
		Expect(err).NotTo(HaveOccurred())
		_, err = env.Store.Complete(ctx, env.Owner, r.ID, tasks.StatusCompleted, "", resultOutcome(`{}`))
		Expect(err).NotTo(HaveOccurred())
		res, err := env.Store.Result(ctx, env.Owner, r.ID)
		Expect(err).NotTo(HaveOccurred())
		expectVars(res.Variables, vars("server.step", `1`))
	})

	env.It("deletes a variable set to null", "MCPT-VAR-002", func(ctx SpecContext) {
		r := env.Create(ctx, env.Owner)
		_, err := env.Store.SetVariables(ctx, env.Owner, r.ID, vars("server.a", `1`, "server.b", `2`))
		Expect(err).NotTo(HaveOccurred())
		got, err := env.Store.SetVariables(ctx, env.Owner, r.ID, vars("server.a", `null`, "server.missing", `null`))
		Expect(err).NotTo(HaveOccurred())
		expectVars(got.Variables, vars("server.b", `2`))
		got, err = env.Store.SetVariables(ctx, env.Owner, r.ID, vars("server.b", ` null `))
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Variables).To(BeEmpty())
		Expect(mustGet(ctx, env, env.Owner, r.ID).Variables).To(BeEmpty())
	})

	env.It("refuses variables over the size limit and keeps the old ones", "MCPT-VAR-003", func(ctx SpecContext) {
		r := env.Create(ctx, env.Owner)
		before, err := env.Store.SetVariables(ctx, env.Owner, r.ID, vars("server.a", `"small"`))
		Expect(err).NotTo(HaveOccurred())
		big := `"` + strings.Repeat("x", env.Config.MaxVariablesBytes) + `"`
		_, err = env.Store.SetVariables(ctx, env.Owner, r.ID, vars("server.a", big))
		expectCode(err, tasks.ErrVariablesTooLarge, "SetVariables over the limit")
		_, err = env.Store.SetVariables(ctx, env.Owner, r.ID, vars("server.b", big))
		expectCode(err, tasks.ErrVariablesTooLarge, "SetVariables over the limit")
		after := mustGet(ctx, env, env.Owner, r.ID)
		expectVars(after.Variables, vars("server.a", `"small"`))
		Expect(after.Version).To(Equal(before.Version), "a refused SetVariables changed the task")
	})

	env.It("refuses a new task whose variables are over the limit", "MCPT-VAR-003", func(ctx SpecContext) {
		big := `"` + strings.Repeat("y", env.Config.MaxVariablesBytes) + `"`
		_, err := env.Store.Create(ctx, env.Owner, tasks.CreateParams{Method: wire.MethodToolsCall, Variables: vars("server.a", big)})
		expectCode(err, tasks.ErrVariablesTooLarge, "Create over the limit")
		Expect(listAll(ctx, env, env.Owner, 10)).To(BeEmpty())
	})

	env.It("accepts variables of exactly the size limit", "MCPT-VAR-003", func(ctx SpecContext) {
		r := env.Create(ctx, env.Owner)
		// {"k":"…"} is 8 bytes plus the string's content.
		fit := `"` + strings.Repeat("z", env.Config.MaxVariablesBytes-8) + `"`
		got, err := env.Store.SetVariables(ctx, env.Owner, r.ID, vars("k", fit))
		Expect(err).NotTo(HaveOccurred())
		Expect(storekit.VariablesSize(got.Variables)).To(Equal(env.Config.MaxVariablesBytes))
	})

	// sized returns a string value that makes {"<key>":<value>} exactly n
	// bytes long.
	sized := func(key string, n int) string {
		return `"` + strings.Repeat("s", n-len(key)-7) + `"`
	}

	DescribeTable("measures the merged variables against the limit, to the byte",
		func(ctx SpecContext, first map[string]json.RawMessage, patch func(limit int) map[string]json.RawMessage, fits bool) {
			r, err := env.Store.Create(ctx, env.Owner, tasks.CreateParams{Method: wire.MethodToolsCall, Variables: first})
			Expect(err).NotTo(HaveOccurred())
			p := patch(env.Config.MaxVariablesBytes)
			want, merr := storekit.MergeVariables(first, p, 0)
			Expect(merr).NotTo(HaveOccurred(), "the spec's own patch")
			got, err := env.Store.SetVariables(ctx, env.Owner, r.ID, p)
			if fits {
				Expect(err).NotTo(HaveOccurred(), "a merge of %d bytes, limit %d", storekit.VariablesSize(want), env.Config.MaxVariablesBytes)
				expectVars(got.Variables, want)
				expectVars(mustGet(ctx, env, env.Owner, r.ID).Variables, want)
				return
			}
			expectCode(err, tasks.ErrVariablesTooLarge, fmt.Sprintf("a merge of %d bytes, limit %d", storekit.VariablesSize(want), env.Config.MaxVariablesBytes))
			after := mustGet(ctx, env, env.Owner, r.ID)
			expectVars(after.Variables, first)
			Expect(after.Version).To(Equal(r.Version), "a refused SetVariables changed the task")
		},
		env.Entry("one byte over", "MCPT-VAR-003", map[string]json.RawMessage(nil),
			func(limit int) map[string]json.RawMessage { return vars("k", sized("k", limit+1)) }, false),
		env.Entry("two keys that fit alone but not together", "MCPT-VAR-003", vars("server.a", `"`+strings.Repeat("a", 150)+`"`),
			func(int) map[string]json.RawMessage { return vars("server.b", `"`+strings.Repeat("b", 150)+`"`) }, false),
		env.Entry("replacing a large value by another of the same size", "MCPT-VAR-003", vars("server.a", `"`+strings.Repeat("a", 200)+`"`),
			func(int) map[string]json.RawMessage { return vars("server.a", `"`+strings.Repeat("c", 200)+`"`) }, true),
		env.Entry("deleting a large value while adding another", "MCPT-VAR-003", vars("server.a", `"`+strings.Repeat("a", 200)+`"`),
			func(int) map[string]json.RawMessage {
				return vars("server.a", `null`, "server.b", `"`+strings.Repeat("b", 200)+`"`)
			}, true),
		env.Entry("growing to exactly the limit", "MCPT-VAR-003", vars("server.a", `1`),
			func(limit int) map[string]json.RawMessage {
				// {"server.a":1, is 14 bytes; "k":"…"} then fills the rest.
				return vars("k", sized("k", limit-13))
			}, true),
	)

	DescribeTable("measures a new task's variables against the limit, to the byte",
		func(ctx SpecContext, extra int, fits bool) {
			v := vars("k", sized("k", env.Config.MaxVariablesBytes+extra))
			r, err := env.Store.Create(ctx, env.Owner, tasks.CreateParams{Method: wire.MethodToolsCall, Variables: v})
			if fits {
				Expect(err).NotTo(HaveOccurred())
				expectVars(r.Variables, v)
				return
			}
			expectCode(err, tasks.ErrVariablesTooLarge, "Create one byte over the limit")
			Expect(listAll(ctx, env, env.Owner, 10)).To(BeEmpty())
		},
		env.Entry("exactly the limit", "MCPT-VAR-003", 0, true),
		env.Entry("one byte over", "MCPT-VAR-003", 1, false),
	)

	env.It("keeps each task's variables to itself", "MCPT-VAR-004", func(ctx SpecContext) {
		a := env.Create(ctx, env.Owner)
		b := env.Create(ctx, env.Owner)
		c := env.Create(ctx, env.Other)
		_, err := env.Store.SetVariables(ctx, env.Owner, a.ID, vars("server.secret", `"a"`))
		Expect(err).NotTo(HaveOccurred())
		Expect(mustGet(ctx, env, env.Owner, b.ID).Variables).To(BeEmpty())
		Expect(mustGet(ctx, env, env.Other, c.ID).Variables).To(BeEmpty())
		for _, r := range listAll(ctx, env, env.Other, 10) {
			Expect(r.Variables).To(BeEmpty(), "another owner's listing shows variables")
		}
	})

	DescribeTable("refuses malformed variables without changing anything",
		func(ctx SpecContext, patch map[string]json.RawMessage) {
			r := env.Create(ctx, env.Owner)
			before, err := env.Store.SetVariables(ctx, env.Owner, r.ID, vars("server.a", `1`))
			Expect(err).NotTo(HaveOccurred())
			_, err = env.Store.SetVariables(ctx, env.Owner, r.ID, patch)
			expectCode(err, tasks.ErrInvalidParams, "SetVariables with a malformed patch")
			after := mustGet(ctx, env, env.Owner, r.ID)
			expectVars(after.Variables, vars("server.a", `1`))
			Expect(after.Version).To(Equal(before.Version))
		},
		env.Entry("a value that is not JSON", "MCPT-VAR-005", vars("server.b", `{not json`)),
		env.Entry("an empty value", "MCPT-VAR-005", vars("server.b", ``)),
		env.Entry("an empty name", "MCPT-VAR-005", vars("", `1`)),
		env.Entry("one bad value among good ones", "MCPT-VAR-005", vars("server.a", `2`, "server.b", `nope`)),
	)
})
