package tasks

import (
	"errors"
	"fmt"
)

// Sentinel errors returned by every Store, checked with errors.Is. Store
// methods wrap them in *Error, which adds the task id and statuses.
var (
	// ErrNotFound: no such task for this owner. A task of another owner
	// is reported exactly like a missing one.
	ErrNotFound = errors.New("task not found")
	// ErrExpired: the task's TTL has elapsed. errors.Is(ErrExpired,
	// ErrNotFound) is true, so callers may treat both as "gone".
	ErrExpired error = expiredError{}
	// ErrInvalidTransition: the requested status move is not allowed,
	// for example out of a terminal status.
	ErrInvalidTransition = errors.New("invalid status transition")
	// ErrNotReady: the task has no outcome yet because it is not terminal.
	ErrNotReady = errors.New("task result not ready")
	// ErrLimit: the owner already has the maximum number of active tasks.
	ErrLimit = errors.New("task limit reached")
	// ErrVariablesTooLarge: the merged variables exceed the size limit.
	ErrVariablesTooLarge = errors.New("task variables too large")
	// ErrInvalidCursor: a list cursor was not produced by this store.
	ErrInvalidCursor = errors.New("invalid cursor")
	// ErrInvalidParams: an argument is malformed (negative TTL, a
	// variable that is not JSON, an empty owner, ...).
	ErrInvalidParams = errors.New("invalid parameters")
	// ErrAnonymous: no identity could be found for the requestor and
	// anonymous use is not allowed.
	ErrAnonymous = errors.New("requestor cannot be identified")
)

type expiredError struct{}

func (expiredError) Error() string        { return "task expired" }
func (expiredError) Is(target error) bool { return target == ErrNotFound }

// Error describes a failed store operation on one task.
type Error struct {
	Op     string // the store method, e.g. "cancel"
	TaskID string
	Status Status // the task's status when the operation failed, if known
	Target Status // the status the operation tried to reach, if any
	Detail string // extra human-readable context
	Err    error  // one of the sentinel errors, or a backend error
}

// Error renders a message a person can act on.
func (e *Error) Error() string {
	msg := e.Op
	if e.TaskID != "" {
		msg += " task " + e.TaskID
	}
	msg += ": " + e.Err.Error()
	switch {
	case e.Status != "" && e.Target != "":
		msg += fmt.Sprintf(" (from %q to %q)", e.Status, e.Target)
	case e.Status != "":
		msg += fmt.Sprintf(" (status %q)", e.Status)
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }
