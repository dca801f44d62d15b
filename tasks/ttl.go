package tasks

import (
	"context"
	"errors"
	"time"
)

// ErrTTLNotExtendable: the store does not implement TTLExtender.
var ErrTTLNotExtendable = errors.New("the task store cannot extend a task's ttl")

// TTLExtender is an optional interface of a Store that can lengthen a
// task's ttl after creation, for work that turns out to need longer than
// first asked (a workflow waiting for its client, for example).
//
// A task's ttl always counts from its creation, as on the wire: ExtendTTL
// sets the task's total ttl to ttl, so its ExpiresAt becomes CreatedAt+ttl,
// and tasks/get shows the new value from then on. It bumps Version and
// LastUpdatedAt like any other change, so waiters see it.
//
// It refuses, changing nothing:
//   - a ttl above Config.MaxTTL (unless MaxTTL is Unlimited), or shorter
//     than the task's current ttl, or negative: ErrInvalidParams;
//   - a terminal task: ErrInvalidTransition (its retention was fixed when
//     it ended, and requestors may already rely on it);
//   - an unknown, foreign or expired task: ErrNotFound.
//
// A task without a ttl (it never expires) is returned unchanged, as is a
// request for the ttl the task already has.
type TTLExtender interface {
	ExtendTTL(ctx context.Context, owner Owner, id string, ttl time.Duration) (Record, error)
}
