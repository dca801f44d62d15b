package suites

import (
	"encoding/json"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// Values the copy specs store and then try to reach through a record they
// were handed or an argument they passed.
const (
	copyVarA   = `"abc"`
	copyVarN   = `12345678901234567890123`
	copyResult = `{"k":"v","n":[1,2]}`
	copyData   = `{"why":"boom"}`
)

// copyVars is a fresh variables map holding the copy specs' values.
func copyVars() map[string]json.RawMessage {
	return map[string]json.RawMessage{"server.a": json.RawMessage(copyVarA), "server.n": json.RawMessage(copyVarN)}
}

// scribble writes over everything a record holds by reference: every byte
// of every variable value and of the outcome, the maps, the outcome and
// error structs and the TTL.
func scribble(r *tasks.Record) {
	for _, v := range r.Variables {
		scribbleBytes(v)
	}
	if r.Variables != nil {
		r.Variables["server.intruder"] = json.RawMessage(`1`)
		delete(r.Variables, "server.a")
	}
	if r.TTL != nil {
		*r.TTL = 42 * time.Millisecond
	}
	if o := r.Outcome; o != nil {
		scribbleBytes(o.Result)
		if o.Error != nil {
			scribbleBytes(o.Error.Data)
			o.Error.Code = 7
			o.Error.Message = "scribbled"
		}
	}
}

// scribbleBytes overwrites b in place.
func scribbleBytes(b []byte) {
	for i := range b {
		b[i] = 'X'
	}
}

// expectIntact checks that the task still holds the copy specs' values:
// variables through Get, the TTL, and the outcome through Result when the
// task has ended.
func expectIntact(ctx SpecContext, env *StoreEnv, id string, ttl time.Duration, outcome *tasks.Outcome, what string) {
	GinkgoHelper()
	got := mustGet(ctx, env, env.Owner, id)
	Expect(got.Variables).To(HaveLen(2), "%s: the stored variables changed: %s", what, showVars(got.Variables))
	Expect(string(got.Variables["server.a"])).To(Equal(copyVarA), "%s changed a stored variable", what)
	Expect(string(got.Variables["server.n"])).To(Equal(copyVarN), "%s changed a stored variable", what)
	Expect(got.TTL).NotTo(BeNil())
	Expect(*got.TTL).To(Equal(ttl), "%s changed the stored ttl", what)
	page, err := env.Store.List(ctx, env.Owner, tasks.ListOptions{})
	Expect(err).NotTo(HaveOccurred(), "List")
	for _, r := range page.Tasks {
		if r.ID == id {
			Expect(showVars(r.Variables)).To(Equal(showVars(copyVars())), "%s changed the variables List shows", what)
			Expect(r.TTL).NotTo(BeNil())
			Expect(*r.TTL).To(Equal(ttl), "%s changed the ttl List shows", what)
		}
	}
	if outcome == nil {
		return
	}
	res, err := env.Store.Result(ctx, env.Owner, id)
	Expect(err).NotTo(HaveOccurred(), "Result")
	Expect(res.Outcome).NotTo(BeNil())
	Expect(string(res.Outcome.Result)).To(Equal(string(outcome.Result)), "%s changed the stored result", what)
	if outcome.Error == nil {
		Expect(res.Outcome.Error).To(BeNil(), "%s gave the stored outcome an error", what)
		return
	}
	Expect(res.Outcome.Error).NotTo(BeNil(), "%s removed the stored error", what)
	Expect(res.Outcome.Error.Code).To(Equal(outcome.Error.Code), "%s changed the stored error code", what)
	Expect(res.Outcome.Error.Message).To(Equal(outcome.Error.Message), "%s changed the stored error message", what)
	Expect(string(res.Outcome.Error.Data)).To(Equal(string(outcome.Error.Data)), "%s changed the stored error data", what)
}

// showVars renders variables for a failure message.
func showVars(vars map[string]json.RawMessage) string {
	b, _ := json.Marshal(vars)
	return string(b)
}

// copyTTL is the ttl of the copy specs' tasks.
const copyTTL = 10 * time.Minute

var _ = describeStore("Copies", "lifecycle", func(env *StoreEnv) {
	create := func(ctx SpecContext) tasks.Record {
		GinkgoHelper()
		ttl := copyTTL
		r, err := env.Store.Create(ctx, env.Owner, tasks.CreateParams{Method: wire.MethodToolsCall, TTL: &ttl, Variables: copyVars()})
		Expect(err).NotTo(HaveOccurred(), "Create")
		return r
	}
	resultOutcome := func() *tasks.Outcome { o := resultOutcome(copyResult); return &o }
	errorOutcome := func() *tasks.Outcome {
		return &tasks.Outcome{Error: &tasks.RPCError{Code: -32001, Message: "kept", Data: json.RawMessage(copyData)}}
	}

	// Each entry hands out a record through one method and returns the
	// outcome the task should still hold (nil while it has none).
	DescribeTable("hands out records that share no bytes, maps or structs with the stored task",
		func(ctx SpecContext, handOut func(ctx SpecContext, env *StoreEnv, id string) ([]tasks.Record, *tasks.Outcome)) {
			r := create(ctx)
			recs, outcome := handOut(ctx, env, r.ID)
			Expect(recs).NotTo(BeEmpty())
			for i := range recs {
				scribble(&recs[i])
			}
			expectIntact(ctx, env, r.ID, copyTTL, outcome, "writing into a handed-out record")
		},
		env.Entry("Get", "MCPT-LIFE-003", func(ctx SpecContext, env *StoreEnv, id string) ([]tasks.Record, *tasks.Outcome) {
			return []tasks.Record{mustGet(ctx, env, env.Owner, id)}, nil
		}),
		env.Entry("List", "MCPT-LIFE-003", func(ctx SpecContext, env *StoreEnv, id string) ([]tasks.Record, *tasks.Outcome) {
			page, err := env.Store.List(ctx, env.Owner, tasks.ListOptions{})
			Expect(err).NotTo(HaveOccurred())
			return page.Tasks, nil
		}),
		env.Entry("SetVariables", "MCPT-LIFE-003", func(ctx SpecContext, env *StoreEnv, id string) ([]tasks.Record, *tasks.Outcome) {
			r, err := env.Store.SetVariables(ctx, env.Owner, id, vars("server.other", `null`))
			Expect(err).NotTo(HaveOccurred())
			return []tasks.Record{r}, nil
		}),
		env.Entry("Transition", "MCPT-LIFE-003", func(ctx SpecContext, env *StoreEnv, id string) ([]tasks.Record, *tasks.Outcome) {
			r, err := env.Store.Transition(ctx, env.Owner, id, tasks.StatusInputRequired, "")
			Expect(err).NotTo(HaveOccurred())
			return []tasks.Record{r}, nil
		}),
		env.Entry("Wait", "MCPT-LIFE-003", func(ctx SpecContext, env *StoreEnv, id string) ([]tasks.Record, *tasks.Outcome) {
			r, err := env.Store.Wait(ctx, env.Owner, id, 0)
			Expect(err).NotTo(HaveOccurred())
			return []tasks.Record{r}, nil
		}),
		env.Entry("Complete", "MCPT-LIFE-003", func(ctx SpecContext, env *StoreEnv, id string) ([]tasks.Record, *tasks.Outcome) {
			o := resultOutcome()
			r, err := env.Store.Complete(ctx, env.Owner, id, tasks.StatusCompleted, "", *o)
			Expect(err).NotTo(HaveOccurred())
			return []tasks.Record{r}, resultOutcome()
		}),
		env.Entry("Cancel", "MCPT-LIFE-003", func(ctx SpecContext, env *StoreEnv, id string) ([]tasks.Record, *tasks.Outcome) {
			r, err := env.Store.Cancel(ctx, env.Owner, id, "stop")
			Expect(err).NotTo(HaveOccurred())
			o := storekit.CancelledOutcome("stop")
			return []tasks.Record{r}, &o
		}),
		env.Entry("Result of a completed task", "MCPT-LIFE-003", func(ctx SpecContext, env *StoreEnv, id string) ([]tasks.Record, *tasks.Outcome) {
			_, err := env.Store.Complete(ctx, env.Owner, id, tasks.StatusCompleted, "", *resultOutcome())
			Expect(err).NotTo(HaveOccurred())
			r, err := env.Store.Result(ctx, env.Owner, id)
			Expect(err).NotTo(HaveOccurred())
			return []tasks.Record{r}, resultOutcome()
		}),
		env.Entry("Result of a failed task with error data", "MCPT-LIFE-003", func(ctx SpecContext, env *StoreEnv, id string) ([]tasks.Record, *tasks.Outcome) {
			_, err := env.Store.Complete(ctx, env.Owner, id, tasks.StatusFailed, "", *errorOutcome())
			Expect(err).NotTo(HaveOccurred())
			r, err := env.Store.Result(ctx, env.Owner, id)
			Expect(err).NotTo(HaveOccurred())
			return []tasks.Record{r}, errorOutcome()
		}),
	)

	env.It("hands out a new task's record without sharing anything with the stored task", "MCPT-LIFE-003", func(ctx SpecContext) {
		r := create(ctx)
		scribble(&r)
		expectIntact(ctx, env, r.ID, copyTTL, nil, "writing into the record Create returned")
	})

	env.It("keeps its own copy of the variables and ttl a task is created with", "MCPT-LIFE-007", func(ctx SpecContext) {
		ttl := copyTTL
		in := copyVars()
		r, err := env.Store.Create(ctx, env.Owner, tasks.CreateParams{Method: wire.MethodToolsCall, TTL: &ttl, Variables: in})
		Expect(err).NotTo(HaveOccurred())
		for _, v := range in {
			scribbleBytes(v)
		}
		in["server.late"] = json.RawMessage(`1`)
		ttl = time.Millisecond
		expectIntact(ctx, env, r.ID, copyTTL, nil, "writing into Create's arguments after the call")
	})

	env.It("keeps its own copy of a variables patch", "MCPT-LIFE-007", func(ctx SpecContext) {
		r := create(ctx)
		patch := map[string]json.RawMessage{"server.a": json.RawMessage(copyVarA)}
		_, err := env.Store.SetVariables(ctx, env.Owner, r.ID, patch)
		Expect(err).NotTo(HaveOccurred())
		scribbleBytes(patch["server.a"])
		patch["server.late"] = json.RawMessage(`1`)
		expectIntact(ctx, env, r.ID, copyTTL, nil, "writing into SetVariables' patch after the call")
	})

	DescribeTable("keeps its own copy of an outcome",
		func(ctx SpecContext, status tasks.Status, outcome func() *tasks.Outcome) {
			r := create(ctx)
			o := outcome()
			_, err := env.Store.Complete(ctx, env.Owner, r.ID, status, "", *o)
			Expect(err).NotTo(HaveOccurred())
			scribble(&tasks.Record{Outcome: o})
			expectIntact(ctx, env, r.ID, copyTTL, outcome(), "writing into Complete's outcome after the call")
		},
		env.Entry("a result", "MCPT-LIFE-007", tasks.StatusCompleted, resultOutcome),
		env.Entry("an error with data", "MCPT-LIFE-007", tasks.StatusFailed, errorOutcome),
	)
})
