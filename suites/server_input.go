package suites

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/tasks/client"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// inputRun is what happened while running the input fixture as a task.
type inputRun struct {
	taskID       string
	sawInput     bool              // tasks/get reported input_required
	elicitations []*client.Message // elicitation/create requests received
	payload      json.RawMessage   // tasks/result payload
	resultErr    error
	final        *schema.GetTaskResult
	statuses     []string
}

// inputGrace is how long the harness holds back its answer to an
// elicitation while it waits to see the task in input_required.
const inputGrace = 3 * time.Second

// runInput creates an input fixture task and polls it. The elicitation may
// arrive on any stream (tasks/result, the GET stream); the harness answers
// it only once tasks/get has shown input_required, or after inputGrace, so
// the status can be observed even when the server asks at once.
func runInput(ctx SpecContext, env *ServerEnv) *inputRun {
	GinkgoHelper()
	env.Fixture(FixtureInput)
	var (
		mu       sync.Mutex
		run      inputRun
		seenOnce sync.Once
	)
	seen := make(chan struct{})
	markSeen := func() { seenOnce.Do(func() { close(seen) }) }
	handler := func(hctx context.Context, req *client.Message) (any, error) {
		if req.Method == wire.MethodElicitationCreate {
			mu.Lock()
			run.elicitations = append(run.elicitations, req)
			mu.Unlock()
			select {
			case <-seen:
			case <-time.After(env.scaled(inputGrace)):
			case <-hctx.Done():
			}
		}
		return answerElicitation(hctx, req)
	}
	c := env.Connect(ctx, env.Config.URLs[0], env.Config.Headers, client.WithRequestHandler(handler))
	_ = c.OpenStream(ctx) // messages for the task may come on any stream
	created := env.CreateOn(ctx, c, FixtureInput, map[string]any{"question": "What is your name?"}, nil)
	run.taskID = created.Task.TaskID
	if created.Task.Status == "input_required" {
		run.sawInput = true
		markSeen()
	}
	// tasks/result carries the elicitation on servers that deliver it
	// there; it runs alongside the polling.
	type outcome struct {
		payload json.RawMessage
		err     error
	}
	resCh := make(chan outcome, 1)
	go func() {
		defer GinkgoRecover()
		p, err := c.Result(ctx, run.taskID)
		resCh <- outcome{p, err}
	}()
	t := env.PollUntil(ctx, c, run.taskID, func(t *schema.GetTaskResult) bool { return t.Status == "input_required" })
	if t.Status == "input_required" {
		run.sawInput = true
	}
	markSeen()
	var res outcome
	select {
	case res = <-resCh:
	case <-time.After(env.Config.TaskTimeout):
		res.err = fmt.Errorf("tasks/result did not return within %s", env.Config.TaskTimeout)
	}
	run.payload, run.resultErr = res.payload, res.err
	run.final = env.AwaitOn(ctx, c, run.taskID, func(t *schema.GetTaskResult) { run.statuses = append(run.statuses, string(t.Status)) })
	mu.Lock()
	defer mu.Unlock()
	AddReportEntry("elicitations received", len(run.elicitations), ReportEntryVisibilityFailureOrVerbose)
	return &run
}

var _ = describeServer("Input required", "input", func(env *ServerEnv) {
	env.It("moves a task that needs input to input_required", "TASKS-INPUT-003", func(ctx SpecContext) {
		run := runInput(ctx, env)
		Expect(run.sawInput).To(BeTrue(), "tasks/get never reported input_required before tasks/result was called")
	})

	env.It("tags the elicitation it sends for a task with related-task metadata", "TASKS-INPUT-004", func(ctx SpecContext) {
		run := runInput(ctx, env)
		Expect(run.elicitations).NotTo(BeEmpty(), "no elicitation/create arrived while tasks/result was pending")
		for _, e := range run.elicitations {
			id, ok := client.RelatedTaskID(e.Params())
			Expect(ok).To(BeTrue(), "elicitation/create has no related-task metadata: %s", e.Raw)
			Expect(id).To(Equal(run.taskID), "elicitation/create names another task")
		}
	})

	env.It("sends well-formed form elicitations", "TASKS-ELICIT-003", func(ctx SpecContext) {
		run := runInput(ctx, env)
		Expect(run.elicitations).NotTo(BeEmpty(), "no elicitation/create arrived")
		for _, e := range run.elicitations {
			Expect(e.Raw).To(ConformTo("ElicitRequest"))
			var p struct {
				Mode            string          `json:"mode"`
				Message         string          `json:"message"`
				RequestedSchema json.RawMessage `json:"requestedSchema"`
			}
			Expect(json.Unmarshal(e.Params(), &p)).To(Succeed())
			Expect(p.Mode).To(BeElementOf("", "form"), "elicitation in mode %q, but the harness declared form only", p.Mode)
			Expect(p.Message).NotTo(BeEmpty())
			Expect(p.RequestedSchema).NotTo(BeEmpty())
		}
	})

	env.It("resumes and completes the task once the input is answered", "TASKS-INPUT-006", func(ctx SpecContext) {
		run := runInput(ctx, env)
		Expect(run.resultErr).NotTo(HaveOccurred(), "tasks/result after answering the elicitation")
		Expect(run.final.Status).To(Equal(schema.TaskStatusCompleted))
	})

	env.It("leaves input_required only for working or a terminal status", "TASKS-LIFE-004", func(ctx SpecContext) {
		run := runInput(ctx, env)
		if !run.sawInput {
			NotSupported("the task was never seen in input_required")
		}
		for _, s := range run.statuses {
			Expect(s).To(BeElementOf("input_required", "working", "completed", "failed", "cancelled"))
		}
	})

	env.It("names the task's id in the related-task metadata of its elicitation", "TASKS-META-002", func(ctx SpecContext) {
		run := runInput(ctx, env)
		Expect(run.elicitations).NotTo(BeEmpty(), "no elicitation/create arrived")
		for _, e := range run.elicitations {
			id, _ := client.RelatedTaskID(e.Params())
			Expect(id).To(Equal(run.taskID), "elicitation/create related-task taskId")
		}
	})

	env.It("elicits only in form mode, the one mode the harness declared", "TASKS-ELICIT-002", func(ctx SpecContext) {
		run := runInput(ctx, env)
		Expect(run.elicitations).NotTo(BeEmpty(), "no elicitation/create arrived")
		for _, e := range run.elicitations {
			var p struct {
				Mode string `json:"mode"`
			}
			Expect(json.Unmarshal(e.Params(), &p)).To(Succeed())
			Expect(p.Mode).To(BeElementOf("", "form"), "elicitation in mode %q", p.Mode)
		}
	})

	env.It("uses string or integer ids for the requests it sends", "TASKS-JSONRPC-002", func(ctx SpecContext) {
		run := runInput(ctx, env)
		Expect(run.elicitations).NotTo(BeEmpty(), "no elicitation/create arrived")
		for _, e := range run.elicitations {
			id := strings.TrimSpace(string(e.ID))
			var n int64
			isInt := json.Unmarshal(e.ID, &n) == nil && !strings.ContainsAny(id, ".eE")
			Expect(strings.HasPrefix(id, `"`) || isInt).To(BeTrue(), "request id %s is neither a string nor an integer", id)
		}
	})

	env.It("does not make task-augmented requests to a client that declared no tasks capability", "TASKS-INIT-013", func(ctx SpecContext) {
		run := runInput(ctx, env)
		Expect(run.elicitations).NotTo(BeEmpty(), "no elicitation/create arrived")
		for _, e := range run.elicitations {
			var p map[string]json.RawMessage
			Expect(json.Unmarshal(e.Params(), &p)).To(Succeed())
			Expect(p).NotTo(HaveKey("task"), "elicitation/create asks the harness for a task, but it declared no tasks capability")
		}
	})

	env.It("sends each of its requests on one stream only", "TASKS-XPORT-027", func(ctx SpecContext) {
		run := runInput(ctx, env)
		Expect(run.elicitations).NotTo(BeEmpty(), "no elicitation/create arrived")
		seen := map[string]string{}
		for _, e := range run.elicitations {
			id := string(e.ID)
			Expect(seen).NotTo(HaveKey(id), "elicitation/create id %s arrived twice (on %s and on %s)", id, seen[id], e.Stream)
			seen[id] = e.Stream
		}
	})
})
