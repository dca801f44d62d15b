package schema

import "time"

// This file holds small hand-written helpers on the generated task and
// tool types, for clients that decode server answers into them.

// Terminal reports whether s is a final status: completed, failed or
// cancelled.
func (s TaskStatus) Terminal() bool {
	return s == TaskStatusCompleted || s == TaskStatusFailed || s == TaskStatusCancelled
}

// Terminal reports whether the task has reached a final status.
func (t Task) Terminal() bool { return t.Status.Terminal() }

// Message returns the task's status message, or "" when it has none.
func (t Task) Message() string {
	if t.StatusMessage == nil {
		return ""
	}
	return *t.StatusMessage
}

// Poll returns the polling period the server suggests for the task, or def
// when it suggests none.
func (t Task) Poll(def time.Duration) time.Duration {
	if t.PollInterval != nil && *t.PollInterval > 0 {
		return time.Duration(*t.PollInterval) * time.Millisecond
	}
	return def
}

// TaskSupport returns the tool's effective execution.taskSupport:
// forbidden when the tool does not say.
func (t Tool) TaskSupport() ToolExecutionTaskSupport {
	if t.Execution == nil || t.Execution.TaskSupport == nil || *t.Execution.TaskSupport == "" {
		return ToolExecutionTaskSupportForbidden
	}
	return *t.Execution.TaskSupport
}

// Next returns the cursor of the next page, or "" on the last page.
func (r ListTasksResult) Next() string {
	if r.NextCursor == nil {
		return ""
	}
	return *r.NextCursor
}
