package storekit

import (
	"context"
	"time"

	"github.com/mcptasks/mcptasks/tasks"
)

// Poller is the loop behind a Store's Wait for backends that cannot (or
// cannot always) push changes: read the task, return it once its Version
// has moved past the caller's, otherwise sleep until the next poll or an
// earlier wake-up and read again.
//
// Read is required; the other fields are optional. A zero Interval means
// tasks.DefaultPollInterval.
type Poller struct {
	// Interval is the time between two reads when nothing wakes the loop.
	Interval time.Duration
	// Check runs before every read; its error ends the wait (a closed
	// store, a done context). Without it the loop checks ctx itself.
	Check func(ctx context.Context) error
	// Read returns the task as it is now. Its error (not found, expired,
	// a backend failure) ends the wait.
	Read func(ctx context.Context) (tasks.Record, error)
	// Watch, if set, is called before every read and returns a channel
	// that fires when the task may have changed, and a function releasing
	// it. Arming it before the read is what keeps a change between the
	// read and the sleep from being missed.
	Watch func() (wake <-chan struct{}, release func())
	// Done, if set, wakes the loop when the store shuts down; the next
	// Check then says why the wait ends.
	Done <-chan struct{}
}

// Wait blocks until the task's Version exceeds after and returns the task
// as it then is. It returns at once when the task has already moved on,
// with Read's or Check's error when one fails, and with ctx's error when
// ctx is done first.
func (p Poller) Wait(ctx context.Context, after int64) (tasks.Record, error) {
	interval := p.Interval
	if interval <= 0 {
		interval = tasks.DefaultPollInterval
	}
	var tick <-chan time.Time
	for {
		if p.Check != nil {
			if err := p.Check(ctx); err != nil {
				return tasks.Record{}, err
			}
		} else if err := ctx.Err(); err != nil {
			return tasks.Record{}, err
		}
		var wake <-chan struct{}
		release := func() {}
		if p.Watch != nil {
			wake, release = p.Watch()
		}
		rec, err := p.Read(ctx)
		if err != nil {
			release()
			return tasks.Record{}, err
		}
		if rec.Version > after {
			release()
			return rec, nil
		}
		if tick == nil {
			// Made on the first miss only: most waits on a changed task
			// return above without ever needing a timer.
			t := time.NewTicker(interval)
			defer t.Stop()
			tick = t.C
		}
		select {
		case <-wake:
		case <-tick:
		case <-p.Done:
		case <-ctx.Done():
			release()
			return tasks.Record{}, ctx.Err()
		}
		release()
	}
}
