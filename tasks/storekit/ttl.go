package storekit

import (
	"fmt"
	"time"

	"github.com/mcptasks/mcptasks/tasks"
)

// CheckExtendTTL applies the rules of tasks.TTLExtender to the task r as
// it is now: it returns the ttl to store (truncated to the millisecond)
// and whether anything changes, or the error to return. cfg must have its
// defaults applied.
func CheckExtendTTL(cfg tasks.Config, r tasks.Record, ttl time.Duration) (time.Duration, bool, error) {
	const op = "extend ttl"
	ttl = ttl.Truncate(time.Millisecond)
	switch {
	case ttl < 0:
		return 0, false, &tasks.Error{Op: op, TaskID: r.ID, Err: tasks.ErrInvalidParams,
			Detail: fmt.Sprintf("ttl must not be negative, got %d ms", ttl.Milliseconds())}
	case cfg.MaxTTL != tasks.Unlimited && ttl > cfg.MaxTTL:
		return 0, false, &tasks.Error{Op: op, TaskID: r.ID, Err: tasks.ErrInvalidParams,
			Detail: fmt.Sprintf("ttl %d ms is beyond the maximum of %d ms", ttl.Milliseconds(), cfg.MaxTTL.Milliseconds())}
	case r.Status.Terminal():
		return 0, false, &tasks.Error{Op: op, TaskID: r.ID, Status: r.Status, Err: tasks.ErrInvalidTransition,
			Detail: "a finished task's ttl cannot change"}
	case r.TTL == nil:
		return 0, false, nil
	case ttl < *r.TTL:
		return 0, false, &tasks.Error{Op: op, TaskID: r.ID, Err: tasks.ErrInvalidParams,
			Detail: fmt.Sprintf("ttl %d ms is shorter than the task's ttl of %d ms; a ttl can only be extended", ttl.Milliseconds(), r.TTL.Milliseconds())}
	case ttl == *r.TTL:
		return ttl, false, nil
	}
	return ttl, true, nil
}
