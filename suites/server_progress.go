package suites

import (
	"encoding/json"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/tasks/client"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// progressToken is the token the progress specs send.
const progressToken = "mcptasks-progress-1"

// progressRun runs the progress fixture as a task with a progress token,
// with the GET stream open and tasks/result pending, and returns the
// progress notifications for the token and when the task was seen
// terminal.
func progressRun(ctx SpecContext, env *ServerEnv) (notes []*client.Message, createdAt, terminalAt time.Time) {
	_, notes, createdAt, terminalAt = progressTask(ctx, env)
	return notes, createdAt, terminalAt
}

// progressTask is progressRun that also returns the task's id.
func progressTask(ctx SpecContext, env *ServerEnv) (id string, notes []*client.Message, createdAt, terminalAt time.Time) {
	GinkgoHelper()
	env.Fixture(FixtureProgress)
	_ = env.A.OpenStream(ctx)
	created := env.CreateCall(ctx, env.A, FixtureProgress, client.ToolCall{
		Arguments: map[string]any{"ms": 300, "steps": 3},
		Meta:      map[string]any{"progressToken": progressToken},
	})
	createdAt = time.Now()
	_, _ = env.A.Result(ctx, created.Task.TaskID)
	env.Await(ctx, created.Task.TaskID)
	terminalAt = time.Now()
	time.Sleep(env.scaled(200 * time.Millisecond))
	for _, n := range env.A.Notifications() {
		if n.Method != wire.NotificationProgress {
			continue
		}
		var p struct {
			Token json.RawMessage `json:"progressToken"`
		}
		_ = json.Unmarshal(n.Params(), &p)
		if string(p.Token) == `"`+progressToken+`"` {
			notes = append(notes, n)
		}
	}
	AddReportEntry("progress notifications received", len(notes), ReportEntryVisibilityFailureOrVerbose)
	return created.Task.TaskID, notes, createdAt, terminalAt
}

var _ = describeServer("Progress", "progress", func(env *ServerEnv) {
	env.It("keeps sending progress with the original token after the task is created", "TASKS-PROG-004", func(ctx SpecContext) {
		notes, createdAt, _ := progressRun(ctx, env)
		if len(notes) == 0 {
			NotSupported("the progress fixture sent no progress notifications for the request's token")
		}
		Expect(notes[len(notes)-1].At.After(createdAt.Add(-50*time.Millisecond))).To(BeTrue(),
			"no progress notification arrived after the CreateTaskResult")
	})

	env.It("sends strictly increasing progress values for one token", "TASKS-PROG-003", func(ctx SpecContext) {
		notes, _, _ := progressRun(ctx, env)
		if len(notes) < 2 {
			NotSupported("fewer than two progress notifications arrived")
		}
		last := -1.0
		for _, n := range notes {
			var p struct {
				Progress float64 `json:"progress"`
			}
			Expect(json.Unmarshal(n.Params(), &p)).To(Succeed())
			Expect(p.Progress).To(BeNumerically(">", last), "progress went from %v to %v", last, p.Progress)
			last = p.Progress
		}
	})

	env.It("sends no progress for a task once it is terminal", "TASKS-PROG-006", func(ctx SpecContext) {
		notes, _, terminalAt := progressRun(ctx, env)
		if len(notes) == 0 {
			NotSupported("the progress fixture sent no progress notifications")
		}
		for _, n := range notes {
			Expect(n.At.Before(terminalAt.Add(50*time.Millisecond))).To(BeTrue(), "a progress notification arrived after the task was terminal: %s", n.Raw)
		}
	})

	env.It("reports a task's progress only under the token of the creating request", "TASKS-PROG-005", func(ctx SpecContext) {
		_, _, _ = progressRun(ctx, env)
		for _, n := range env.A.Notifications() {
			if n.Method != wire.NotificationProgress {
				continue
			}
			var p struct {
				Token json.RawMessage `json:"progressToken"`
			}
			Expect(json.Unmarshal(n.Params(), &p)).To(Succeed())
			if _, related := client.RelatedTaskID(n.Params()); related {
				Expect(string(p.Token)).To(Equal(`"`+progressToken+`"`), "progress for the task under another token")
			}
		}
	})

	env.It("names only progress tokens the client sent", "TASKS-PROG-007", func(ctx SpecContext) {
		_, _, _ = progressRun(ctx, env)
		for _, n := range env.A.Notifications() {
			if n.Method != wire.NotificationProgress {
				continue
			}
			var p struct {
				Token json.RawMessage `json:"progressToken"`
			}
			Expect(json.Unmarshal(n.Params(), &p)).To(Succeed())
			Expect(string(p.Token)).To(Equal(`"`+progressToken+`"`), "progress under a token the harness never sent")
		}
	})

	env.It("names the task in the related-task metadata of its progress notifications", "TASKS-META-001", func(ctx SpecContext) {
		id, notes, createdAt, _ := progressTask(ctx, env)
		var after []*client.Message
		for _, n := range notes {
			if !n.At.Before(createdAt) {
				after = append(after, n)
			}
		}
		if len(after) == 0 {
			NotSupported("no progress notification for the task arrived after its CreateTaskResult")
		}
		for _, n := range after {
			got, ok := client.RelatedTaskID(n.Params())
			Expect(ok).To(BeTrue(), "a progress notification of task %s carries no %s metadata: %s", id, wire.MetaRelatedTask, truncateRaw(n.Raw))
			Expect(got).To(Equal(id), "a progress notification of task %s names task %q in its related-task metadata: %s", id, got, truncateRaw(n.Raw))
		}
	})

	env.It("sends progress notifications of the defined shape", "TASKS-WIRE-PROGRESS-001", func(ctx SpecContext) {
		_, _, _ = progressRun(ctx, env)
		var all []*client.Message
		for _, n := range env.Messages() {
			if n.Method == wire.NotificationProgress {
				all = append(all, n)
			}
		}
		if len(all) == 0 {
			NotSupported("the progress fixture sent no progress notifications")
		}
		for _, n := range all {
			Expect(n.Raw).To(ConformTo("ProgressNotification"), "notifications/progress received on the %s stream: %s", n.Stream, truncateRaw(n.Raw))
		}
	})
})
