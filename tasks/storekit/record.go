package storekit

import (
	"fmt"

	"github.com/google/uuid"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// NewID returns a fresh task id: a random (version 4) UUID, 122 bits of
// entropy from crypto/rand.
func NewID() string { return uuid.NewString() }

// NewRecord builds the Record a store should insert for Create: it checks
// the owner, applies the TTL policy and the variable size limit, and fills
// id, timestamps, status and version. Stores call it so that every backend
// starts tasks identically. cfg must have defaults applied.
func NewRecord(cfg tasks.Config, owner tasks.Owner, p tasks.CreateParams) (tasks.Record, error) {
	if owner == "" {
		return tasks.Record{}, &tasks.Error{Op: "create", Err: tasks.ErrInvalidParams, Detail: "empty owner"}
	}
	ttl, err := cfg.EffectiveTTL(p.TTL)
	if err != nil {
		return tasks.Record{}, &tasks.Error{Op: "create", Err: err}
	}
	vars, err := MergeVariables(nil, p.Variables, cfg.MaxVariablesBytes)
	if err != nil {
		return tasks.Record{}, &tasks.Error{Op: "create", Err: err}
	}
	now := cfg.Now()
	r := tasks.Record{
		ID:            NewID(),
		Owner:         owner,
		Method:        p.Method,
		Status:        tasks.StatusWorking,
		StatusMessage: p.StatusMessage,
		CreatedAt:     now,
		LastUpdatedAt: now,
		TTL:           ttl,
		PollInterval:  cfg.PollInterval,
		Version:       1,
		Variables:     vars,
	}
	if ttl != nil {
		r.ExpiresAt = now.Add(*ttl)
	}
	return r, nil
}

// CheckTransition validates a Transition call against the record's current
// status and returns the *Error a store should report, or nil.
func CheckTransition(r tasks.Record, to tasks.Status) error {
	if to.Terminal() {
		return &tasks.Error{Op: "transition", TaskID: r.ID, Status: r.Status, Target: to, Err: tasks.ErrInvalidTransition,
			Detail: "terminal statuses are reached with Complete or Cancel"}
	}
	if !tasks.CanTransition(r.Status, to) {
		return &tasks.Error{Op: "transition", TaskID: r.ID, Status: r.Status, Target: to, Err: tasks.ErrInvalidTransition}
	}
	return nil
}

// CheckComplete validates a Complete call and its outcome.
func CheckComplete(r tasks.Record, to tasks.Status, o tasks.Outcome) error {
	if to != tasks.StatusCompleted && to != tasks.StatusFailed {
		return &tasks.Error{Op: "complete", TaskID: r.ID, Status: r.Status, Target: to, Err: tasks.ErrInvalidTransition,
			Detail: "Complete ends a task as completed or failed; use Cancel to cancel"}
	}
	if err := CheckOutcome(o); err != nil {
		return &tasks.Error{Op: "complete", TaskID: r.ID, Err: err}
	}
	if !tasks.CanTransition(r.Status, to) {
		return &tasks.Error{Op: "complete", TaskID: r.ID, Status: r.Status, Target: to, Err: tasks.ErrInvalidTransition}
	}
	return nil
}

// CheckOutcome reports an ErrInvalidParams unless exactly one of Result and
// Error is set and Result, if set, is valid JSON.
func CheckOutcome(o tasks.Outcome) error {
	switch {
	case (o.Result == nil) == (o.Error == nil):
		return fmt.Errorf("%w: an outcome needs exactly one of result and error", tasks.ErrInvalidParams)
	case o.Result != nil && !validJSON(o.Result):
		return fmt.Errorf("%w: outcome result is not valid JSON", tasks.ErrInvalidParams)
	}
	return nil
}

// CancelledOutcome is the outcome Cancel stores.
func CancelledOutcome(message string) tasks.Outcome {
	if message == "" {
		message = "task was cancelled"
	}
	return tasks.Outcome{Error: &tasks.RPCError{Code: wire.CodeRequestCancelled, Message: message}}
}

// LostWorkerOutcome is the outcome a LeaseStore's ReapExpiredLeases stores
// for a task whose worker stopped renewing its lease.
func LostWorkerOutcome() tasks.Outcome {
	return tasks.Outcome{Error: &tasks.RPCError{Code: wire.CodeInternalError, Message: "the server instance running this task stopped before it finished"}}
}
