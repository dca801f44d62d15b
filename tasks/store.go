package tasks

import (
	"context"
	"encoding/json"
	"time"
)

// CreateParams describes a new task.
type CreateParams struct {
	// Method is the request being augmented, e.g. "tools/call".
	Method string
	// TTL is the retention the requestor asked for; nil means none. The
	// store applies Config.EffectiveTTL.
	TTL *time.Duration
	// StatusMessage is an optional first message.
	StatusMessage string
	// Variables are optional initial variables, subject to the size limit.
	Variables map[string]json.RawMessage
}

// ListOptions selects one page of an owner's tasks.
type ListOptions struct {
	// Cursor is the NextCursor of the previous page, or empty for the first.
	Cursor string
	// Limit is the page size; zero means Config.PageSize.
	Limit int
}

// Page is one page of tasks, oldest first.
type Page struct {
	Tasks []Record
	// NextCursor is empty on the last page.
	NextCursor string
}

// Store persists tasks. Every method takes the owner explicitly and treats
// a task of another owner exactly like a missing one (ErrNotFound). Expired
// tasks are invisible to every method even before DeleteExpired removes
// them. Status changes are atomic: of several concurrent attempts to end a
// task, exactly one wins and the others get ErrInvalidTransition.
//
// Implementations must be safe for concurrent use; the conformance suite in
// package suites certifies them.
type Store interface {
	// Create stores a new task in status working, with a fresh UUIDv4 id,
	// the TTL policy applied and Version 1. It fails with ErrLimit when the
	// owner already holds Config.MaxTasksPerOwner active tasks.
	Create(ctx context.Context, owner Owner, p CreateParams) (Record, error)
	// Get returns the task.
	Get(ctx context.Context, owner Owner, id string) (Record, error)
	// Transition moves a task between the non-terminal statuses (working
	// and input_required) and sets its status message. Terminal statuses
	// are reached only through Complete and Cancel.
	Transition(ctx context.Context, owner Owner, id string, to Status, message string) (Record, error)
	// SetVariables merges patch into the task's variables: new keys are
	// added, existing ones replaced, and a JSON null deletes a key. The
	// merge is atomic and fails with ErrVariablesTooLarge, changing
	// nothing, when the result would exceed Config.MaxVariablesBytes.
	SetVariables(ctx context.Context, owner Owner, id string, patch map[string]json.RawMessage) (Record, error)
	// Complete ends a non-terminal task as completed or failed and stores
	// its outcome in the same atomic step.
	Complete(ctx context.Context, owner Owner, id string, status Status, message string, outcome Outcome) (Record, error)
	// Result returns the task with its Outcome; ErrNotReady while the task
	// is not terminal.
	Result(ctx context.Context, owner Owner, id string) (Record, error)
	// List returns one page of the owner's tasks ordered by creation time
	// then id. Tasks that exist when a listing starts appear exactly once
	// across its pages. A cursor the store did not issue gives
	// ErrInvalidCursor.
	List(ctx context.Context, owner Owner, opts ListOptions) (Page, error)
	// Cancel moves a non-terminal task to cancelled, storing a
	// wire.CodeRequestCancelled error as its outcome. A terminal task gives
	// ErrInvalidTransition.
	Cancel(ctx context.Context, owner Owner, id string, message string) (Record, error)
	// DeleteExpired removes every expired task of every owner and returns
	// how many it removed.
	DeleteExpired(ctx context.Context) (int, error)
	// Wait blocks until the task's Version exceeds after and returns the
	// task as it then is. It returns at once when the task has already
	// changed, so a change between a read and a Wait is never lost. It
	// ends with ctx's error when ctx is done, and with ErrNotFound when
	// the task disappears. Backends without push notification poll at
	// Config.PollInterval.
	Wait(ctx context.Context, owner Owner, id string, after int64) (Record, error)
	// Close releases the store's resources.
	Close() error
}

// ImmediateStore is an optional interface of a Store whose operations,
// Wait aside, never wait on I/O or on another process (the memory store).
// The engine then calls its writes without a per-attempt timeout, which
// would only cost a context and a timer per write.
type ImmediateStore interface {
	Store
	// Immediate reports whether every operation but Wait returns without
	// blocking.
	Immediate() bool
}
