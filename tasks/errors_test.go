package tasks

import (
	"errors"
	"testing"
)

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
