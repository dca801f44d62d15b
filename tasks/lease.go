package tasks

import (
	"context"
	"time"
)

// LeaseStore is implemented by stores that several server instances share.
// The instance running a task's work renews a lease on it while the work
// runs; if the instance dies, the lease lapses and any instance's reaper
// ends the task as failed, so it never stays working forever.
//
// The engine uses it when the Store implements it. A store that outlives
// its process on one node (SQLite) implements it too, so work a killed
// process left running ends as failed; the memory store, whose tasks die
// with the process, need not.
//
// The engine keeps renewing a task's lease while it retries recording the
// task's outcome, and reaps only after the store has answered it without
// failure for a whole lease, so a store outage never gets live work
// reaped.
type LeaseStore interface {
	// RenewLease records that the task's work is alive until until. It
	// fails with ErrNotFound for unknown tasks and is a no-op success on
	// terminal tasks.
	RenewLease(ctx context.Context, owner Owner, id string, until time.Time) error
	// ReapExpiredLeases ends, as failed with an RPC error outcome and a
	// status message saying the worker was lost, every non-terminal task
	// whose lease has lapsed at Config.Now(). Tasks that never had a lease
	// are left alone. It returns how many it ended.
	ReapExpiredLeases(ctx context.Context) (int, error)
}

// DefaultLeaseDuration is how long a lease lasts without renewal; the
// engine renews at a third of it.
const DefaultLeaseDuration = 15 * time.Second
