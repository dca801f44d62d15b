package tasks

import (
	"errors"
	"fmt"
	"testing"
)

func TestRPCCode(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{nil, 0},
		{&Error{Op: "get", TaskID: "t", Err: ErrNotFound}, CodeInvalidParams},
		{&Error{Op: "get", TaskID: "t", Err: ErrExpired}, CodeInvalidParams},
		{&Error{Op: "cancel", TaskID: "t", Status: StatusCompleted, Target: StatusCancelled, Err: ErrInvalidTransition}, CodeInvalidParams},
		{fmt.Errorf("list: %w", ErrInvalidCursor), CodeInvalidParams},
		{ErrVariablesTooLarge, CodeInvalidParams},
		{ErrLimit, CodeLimitExceeded},
		{errors.New("connection refused"), CodeInternalError},
		{fmt.Errorf("wrapped: %w", &RPCError{Code: -32001, Message: "custom"}), -32001},
	}
	for _, tt := range tests {
		if got := RPCCode(tt.err); got != tt.want {
			t.Errorf("RPCCode(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}

func TestExpiredIsNotFound(t *testing.T) {
	if !errors.Is(ErrExpired, ErrNotFound) {
		t.Fatal("ErrExpired must match ErrNotFound")
	}
	if errors.Is(ErrNotFound, ErrExpired) {
		t.Fatal("ErrNotFound must not match ErrExpired")
	}
}

func TestErrorMessageNamesTaskAndStatuses(t *testing.T) {
	err := &Error{Op: "cancel", TaskID: "abc", Status: StatusCompleted, Target: StatusCancelled, Err: ErrInvalidTransition}
	want := `cancel task abc: invalid status transition (from "completed" to "cancelled")`
	if err.Error() != want {
		t.Fatalf("got %q, want %q", err.Error(), want)
	}
}
