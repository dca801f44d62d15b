package tasks

import (
	"fmt"

	"github.com/google/uuid"
)

// NewID returns a fresh task id: a random (version 4) UUID, 122 bits of
// entropy from crypto/rand.
func NewID() string { return uuid.NewString() }

// NewRecord builds the Record a store should insert for Create: it checks
// the owner, applies the TTL policy and the variable size limit, and fills
// id, timestamps, status and version. Stores call it so that every backend
// starts tasks identically. cfg must have defaults applied.
func NewRecord(cfg Config, owner Owner, p CreateParams) (Record, error) {
	if owner == "" {
		return Record{}, &Error{Op: "create", Err: ErrInvalidParams, Detail: "empty owner"}
	}
	ttl, err := cfg.EffectiveTTL(p.TTL)
	if err != nil {
		return Record{}, &Error{Op: "create", Err: err}
	}
	vars, err := MergeVariables(nil, p.Variables, cfg.MaxVariablesBytes)
	if err != nil {
		return Record{}, &Error{Op: "create", Err: err}
	}
	now := cfg.Now()
	r := Record{
		ID:            NewID(),
		Owner:         owner,
		Method:        p.Method,
		Status:        StatusWorking,
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
func CheckTransition(r Record, to Status) error {
	if to.Terminal() {
		return &Error{Op: "transition", TaskID: r.ID, Status: r.Status, Target: to, Err: ErrInvalidTransition,
			Detail: "terminal statuses are reached with Complete or Cancel"}
	}
	if !CanTransition(r.Status, to) {
		return &Error{Op: "transition", TaskID: r.ID, Status: r.Status, Target: to, Err: ErrInvalidTransition}
	}
	return nil
}

// CheckComplete validates a Complete call and its outcome.
func CheckComplete(r Record, to Status, o Outcome) error {
	if to != StatusCompleted && to != StatusFailed {
		return &Error{Op: "complete", TaskID: r.ID, Status: r.Status, Target: to, Err: ErrInvalidTransition,
			Detail: "Complete ends a task as completed or failed; use Cancel to cancel"}
	}
	if err := CheckOutcome(o); err != nil {
		return &Error{Op: "complete", TaskID: r.ID, Err: err}
	}
	if !CanTransition(r.Status, to) {
		return &Error{Op: "complete", TaskID: r.ID, Status: r.Status, Target: to, Err: ErrInvalidTransition}
	}
	return nil
}

// CheckOutcome reports an ErrInvalidParams unless exactly one of Result and
// Error is set and Result, if set, is valid JSON.
func CheckOutcome(o Outcome) error {
	switch {
	case (o.Result == nil) == (o.Error == nil):
		return fmt.Errorf("%w: an outcome needs exactly one of result and error", ErrInvalidParams)
	case o.Result != nil && !validJSON(o.Result):
		return fmt.Errorf("%w: outcome result is not valid JSON", ErrInvalidParams)
	}
	return nil
}

// CancelledOutcome is the outcome Cancel stores.
func CancelledOutcome(message string) Outcome {
	if message == "" {
		message = "task was cancelled"
	}
	return Outcome{Error: &RPCError{Code: CodeRequestCancelled, Message: message}}
}
