package protocol_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/protocol"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

func TestRPCCode(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{nil, 0},
		{&tasks.Error{Op: "get", TaskID: "t", Err: tasks.ErrNotFound}, wire.CodeInvalidParams},
		{&tasks.Error{Op: "get", TaskID: "t", Err: tasks.ErrExpired}, wire.CodeInvalidParams},
		{&tasks.Error{Op: "cancel", TaskID: "t", Status: tasks.StatusCompleted, Target: tasks.StatusCancelled, Err: tasks.ErrInvalidTransition}, wire.CodeInvalidParams},
		{fmt.Errorf("list: %w", tasks.ErrInvalidCursor), wire.CodeInvalidParams},
		{tasks.ErrVariablesTooLarge, wire.CodeInvalidParams},
		{tasks.ErrLimit, wire.CodeLimitExceeded},
		{errors.New("connection refused"), wire.CodeInternalError},
		{fmt.Errorf("wrapped: %w", &tasks.RPCError{Code: -32001, Message: "custom"}), -32001},
	}
	for _, tt := range tests {
		if got := protocol.RPCCode(tt.err); got != tt.want {
			t.Errorf("protocol.RPCCode(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}
