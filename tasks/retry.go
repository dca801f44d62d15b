package tasks

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"
)

// Defaults of the engine's retries of store writes.
const (
	// DefaultRetryBase is the first pause after a failed store write.
	DefaultRetryBase = 100 * time.Millisecond
	// DefaultRetryMax caps the pause between two attempts.
	DefaultRetryMax = 5 * time.Second
	// DefaultAttemptTimeout bounds one attempt, so a store that accepts a
	// connection but never answers does not hold a retry loop forever.
	DefaultAttemptTimeout = 10 * time.Second
)

// ErrStoreClosed is wrapped by the error a store returns once it has been
// closed: trying again cannot help.
var ErrStoreClosed = errors.New("task store is closed")

// Transient reports whether a store error may go away if the same call is
// made again later: a lost connection, a timeout, a server restarting. The
// answers a store gives about the task itself (not found or expired, a
// status that forbids the change, a limit, bad parameters) are final and
// give false, as do nil, ErrEngineClosed and ErrStoreClosed.
func Transient(err error) bool {
	switch {
	case err == nil,
		errors.Is(err, ErrNotFound), // ErrExpired too
		errors.Is(err, ErrInvalidTransition),
		errors.Is(err, ErrNotReady),
		errors.Is(err, ErrLimit),
		errors.Is(err, ErrVariablesTooLarge),
		errors.Is(err, ErrInvalidCursor),
		errors.Is(err, ErrInvalidParams),
		errors.Is(err, ErrAnonymous),
		errors.Is(err, ErrTaskFinished),
		errors.Is(err, ErrEngineClosed),
		errors.Is(err, ErrStoreClosed),
		errors.Is(err, ErrNoInputChannel):
		return false
	}
	var rpc *RPCError
	return !errors.As(err, &rpc)
}

// backoff yields exponentially growing pauses, capped, each drawn at
// random from its upper half so that many workers retrying against one
// recovering store do not all come back at the same instant.
type backoff struct {
	base, max time.Duration
	n         int
}

func (b *backoff) next() time.Duration {
	d := b.base
	for i := 0; i < b.n && d < b.max; i++ {
		d *= 2
	}
	d = min(d, b.max)
	if b.n < 32 {
		b.n++
	}
	if d <= 1 {
		return max(d, time.Millisecond)
	}
	half := d / 2
	return half + rand.N(d-half+1)
}

func (b *backoff) reset() { b.n = 0 }

// sleepCtx pauses for d or until ctx is done, reporting whether the full
// pause elapsed.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
