package storekit

import (
	"crypto/rand"
	"fmt"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// NewID returns a fresh task id: a random (version 4) UUID, 122 bits of
// entropy from crypto/rand.
func NewID() string {
	var u [16]byte
	_, _ = rand.Read(u[:])  // never fails: crypto/rand ends the program instead
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // RFC 9562 variant
	// The canonical form, 8-4-4-4-12 lowercase hex digits, built in one
	// buffer so that the id costs a single allocation.
	const hexDigits = "0123456789abcdef"
	var b [36]byte
	j := 0
	for i, x := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b[j] = '-'
			j++
		}
		b[j], b[j+1] = hexDigits[x>>4], hexDigits[x&0x0f]
		j += 2
	}
	return string(b[:])
}

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
