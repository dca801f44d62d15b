package schema

import (
	"testing"
	"time"
)

func TestTaskHelpers(t *testing.T) {
	msg, poll := "busy", int64(250)
	for _, tt := range []struct {
		status   TaskStatus
		terminal bool
	}{
		{TaskStatusWorking, false}, {TaskStatusInputRequired, false},
		{TaskStatusCompleted, true}, {TaskStatusFailed, true}, {TaskStatusCancelled, true},
		{"done", false},
	} {
		if got := (Task{Status: tt.status}).Terminal(); got != tt.terminal {
			t.Errorf("Terminal(%q) = %v, want %v", tt.status, got, tt.terminal)
		}
	}
	task := Task{StatusMessage: &msg, PollInterval: &poll}
	if task.Message() != "busy" || (Task{}).Message() != "" {
		t.Errorf("Message = %q / %q", task.Message(), (Task{}).Message())
	}
	if task.Poll(time.Second) != 250*time.Millisecond || (Task{}).Poll(time.Second) != time.Second {
		t.Errorf("Poll = %v / %v", task.Poll(time.Second), (Task{}).Poll(time.Second))
	}
	req := ToolExecutionTaskSupportRequired
	if (Tool{}).TaskSupport() != ToolExecutionTaskSupportForbidden ||
		(Tool{Execution: &ToolExecution{TaskSupport: &req}}).TaskSupport() != req {
		t.Error("TaskSupport does not default to forbidden or ignores the tool's value")
	}
	next := "c"
	if (ListTasksResult{}).Next() != "" || (ListTasksResult{NextCursor: &next}).Next() != "c" {
		t.Error("Next is wrong")
	}
}
