package suites

import (
	"encoding/json"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/tasks/client"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// statusNotifications runs a short task with the GET stream open and
// returns the notifications/tasks/status messages received for it (maybe
// none: they are optional).
func statusNotifications(ctx SpecContext, env *ServerEnv) (string, []*client.Message) {
	GinkgoHelper()
	env.Fixture(env.TaskSleep())
	if err := env.A.OpenStream(ctx); err != nil {
		AddReportEntry("GET stream", err.Error(), ReportEntryVisibilityFailureOrVerbose)
	}
	created := env.Sleep(ctx, 100)
	env.Await(ctx, created.Task.TaskID)
	if _, err := env.A.Result(ctx, created.Task.TaskID); err != nil {
		AddReportEntry(wire.MethodTasksResult, err.Error(), ReportEntryVisibilityFailureOrVerbose)
	}
	time.Sleep(env.scaled(150 * time.Millisecond))
	var out []*client.Message
	for _, n := range env.A.Notifications() {
		if n.Method != wire.NotificationTaskStatus {
			continue
		}
		var p struct {
			TaskID string `json:"taskId"`
		}
		_ = json.Unmarshal(n.Params(), &p)
		if p.TaskID == created.Task.TaskID {
			out = append(out, n)
		}
	}
	AddReportEntry("status notifications received", len(out), ReportEntryVisibilityFailureOrVerbose)
	return created.Task.TaskID, out
}

var _ = describeServer("Status notifications", "notifications", func(env *ServerEnv) {
	env.It("sends well-formed notifications/tasks/status carrying the full task, if any", "TASKS-NOTIF-001", func(ctx SpecContext) {
		id, ns := statusNotifications(ctx, env)
		for _, n := range ns {
			Expect(n.ID).To(BeEmpty(), "a notification carries an id")
			var t schema.Task
			Expect(json.Unmarshal(n.Params(), &t)).To(Succeed())
			Expect(t.TaskID).To(Equal(id))
			env.taskTimes(&t, wire.NotificationTaskStatus)
		}
	})

	env.It("leaves related-task metadata out of status notifications", "TASKS-NOTIF-005", func(ctx SpecContext) {
		_, ns := statusNotifications(ctx, env)
		for _, n := range ns {
			Expect(hasRelatedTask(n.Params())).To(BeFalse(), "notifications/tasks/status carries related-task metadata: %s", n.Raw)
		}
	})

	env.It("sends status notifications whose params are a complete Task", "TASKS-WIRE-NOTIF-002", func(ctx SpecContext) {
		_, _ = statusNotifications(ctx, env)
		var all []*client.Message
		for _, n := range env.Messages() {
			if n.Method == wire.NotificationTaskStatus {
				all = append(all, n)
			}
		}
		if len(all) == 0 {
			NotApplicable("the server sent no notifications/tasks/status (they are optional)")
		}
		for _, n := range all {
			Expect(n.Raw).To(ConformTo("TaskStatusNotification"), "notifications/tasks/status received on the %s stream: %s", n.Stream, truncateRaw(n.Raw))
			var obj map[string]json.RawMessage
			Expect(json.Unmarshal(n.Params(), &obj)).To(Succeed())
			expectTTLMember(obj, "notifications/tasks/status "+truncateRaw(n.Raw))
		}
	})
})
