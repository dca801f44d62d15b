package bite_test

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
)

// Mutants that wait wrongly.
var waitMutants = []mutant{
	{"Wait never wakes", "MCPT-WAIT-001", func(cfg tasks.Config) tasks.Store { return waiter{track(cfg), waitNever} }},
	{"Wait returns at once", "MCPT-WAIT-001", func(cfg tasks.Config) tasks.Store { return waiter{track(cfg), waitAtOnce} }},
	{"Wait ignores variable writes", "MCPT-WAIT-001", func(cfg tasks.Config) tasks.Store { return waiter{track(cfg), waitStatusOnly} }},
	{"Wait returns the record it read before blocking", "MCPT-WAIT-001", func(cfg tasks.Config) tasks.Store { return waiter{track(cfg), waitStale} }},
	{"Wait waits for the next change even if one came already", "MCPT-WAIT-002", func(cfg tasks.Config) tasks.Store {
		return waiter{track(cfg), waitNext}
	}},
	{"Wait swallows the context's end", "MCPT-WAIT-003", func(cfg tasks.Config) tasks.Store { return waiter{track(cfg), waitSwallow} }},
	{"Wait on a missing task blocks", "MCPT-WAIT-004", func(cfg tasks.Config) tasks.Store { return waiter{track(cfg), waitMissingBlocks} }},
	{"Wait does not notice the task disappear", "MCPT-WAIT-004", func(cfg tasks.Config) tasks.Store { return waiter{track(cfg), waitIgnoresDeletion} }},
}

// How a broken Wait misbehaves.
const (
	waitNever = iota
	waitAtOnce
	waitStatusOnly
	waitStale
	waitNext
	waitSwallow
	waitMissingBlocks
	waitIgnoresDeletion
)

type waiter struct {
	*tracker
	mode int
}

func (s waiter) Wait(ctx context.Context, owner tasks.Owner, id string, after int64) (tasks.Record, error) {
	switch s.mode {
	case waitNever:
		r, err := s.tracker.Get(ctx, owner, id)
		if err != nil || r.Version > after {
			return r, err
		}
		return blockUntilDone(ctx)
	case waitAtOnce:
		return s.tracker.Get(ctx, owner, id)
	case waitStatusOnly:
		// Like a store woken only by status notifications: a change
		// already made is seen, a variable write while blocked is not.
		first, err := s.tracker.Get(ctx, owner, id)
		if err != nil || first.Version > after {
			return first, err
		}
		for {
			r, err := s.tracker.Wait(ctx, owner, id, after)
			if err != nil || r.Status != first.Status {
				return r, err
			}
			after = r.Version
		}
	case waitStale:
		before, err := s.tracker.Get(ctx, owner, id)
		if err != nil {
			return before, err
		}
		if _, err := s.tracker.Wait(ctx, owner, id, after); err != nil {
			return tasks.Record{}, err
		}
		return before, nil
	case waitNext:
		if cur, err := s.tracker.Get(ctx, owner, id); err == nil {
			after = max(after, cur.Version)
		}
		return s.tracker.Wait(ctx, owner, id, after)
	case waitSwallow:
		r, err := s.tracker.Wait(ctx, owner, id, after)
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return s.tracker.Get(context.WithoutCancel(ctx), owner, id)
		}
		return r, err
	case waitMissingBlocks:
		r, err := s.tracker.Wait(ctx, owner, id, after)
		if errors.Is(err, tasks.ErrNotFound) {
			return blockUntilDone(ctx)
		}
		return r, err
	case waitIgnoresDeletion:
		if _, err := s.tracker.Get(ctx, owner, id); err != nil {
			return tasks.Record{}, err
		}
		r, err := s.tracker.Wait(ctx, owner, id, after)
		if errors.Is(err, tasks.ErrNotFound) {
			return blockUntilDone(ctx)
		}
		return r, err
	}
	return s.tracker.Wait(ctx, owner, id, after)
}

// leased adds leases to the memory store the way a shared store keeps
// them: a lease per task, renewed by the worker, reaped once it lapses.
type leased struct {
	*tracker
	mu     sync.Mutex
	leases map[string]lease
}

type lease struct {
	owner tasks.Owner
	until time.Time
}

var _ tasks.LeaseStore = (*leased)(nil)

func newLeased(cfg tasks.Config) tasks.Store { return newLeasedBase(cfg) }

func newLeasedBase(cfg tasks.Config) *leased {
	return &leased{tracker: track(cfg), leases: map[string]lease{}}
}

func (s *leased) RenewLease(ctx context.Context, owner tasks.Owner, id string, until time.Time) error {
	r, err := s.inner.Get(ctx, owner, id)
	if err != nil {
		return err
	}
	if r.Status.Terminal() {
		return nil
	}
	s.mu.Lock()
	s.leases[id] = lease{owner, until}
	s.mu.Unlock()
	return nil
}

// lapsed returns the leases that have lapsed at now, removing them.
func (s *leased) lapsed(now time.Time, isLapsed func(until, now time.Time) bool) map[string]lease {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]lease{}
	for id, l := range s.leases {
		if isLapsed(l.until, now) {
			out[id] = l
			delete(s.leases, id)
		}
	}
	return out
}

// reap ends the given tasks as failed with the lost-worker outcome.
func (s *leased) reap(ctx context.Context, ls map[string]lease, status tasks.Status, o tasks.Outcome) int {
	n := 0
	msg := storekit.LostWorkerOutcome().Error.Message
	for id, l := range ls {
		if _, err := s.tracker.Complete(ctx, l.owner, id, status, msg, o); err == nil {
			n++
		}
	}
	return n
}

func (s *leased) ReapExpiredLeases(ctx context.Context) (int, error) {
	ls := s.lapsed(s.cfg.Now(), func(until, now time.Time) bool { return !until.After(now) })
	return s.reap(ctx, ls, tasks.StatusFailed, storekit.LostWorkerOutcome()), nil
}

// Mutants of the lease layer.
var leaseMutants = []mutant{
	{"a lease lapses only after its instant", "MCPT-LEASE-002", func(cfg tasks.Config) tasks.Store { return strictLapse{newLeasedBase(cfg)} }},
	{"tasks that never had a lease are reaped", "MCPT-LEASE-002", func(cfg tasks.Config) tasks.Store { return reapAll{newLeasedBase(cfg)} }},
	{"reaped tasks end as completed", "MCPT-LEASE-002", func(cfg tasks.Config) tasks.Store { return reapCompleted{newLeasedBase(cfg)} }},
	{"renewing never extends a lease", "MCPT-LEASE-002", func(cfg tasks.Config) tasks.Store { return firstLease{newLeasedBase(cfg)} }},
	{"renewing an ended task fails", "MCPT-LEASE-001", func(cfg tasks.Config) tasks.Store { return strictRenew{newLeasedBase(cfg)} }},
	{"renewing a missing task succeeds", "MCPT-LEASE-001", func(cfg tasks.Config) tasks.Store { return blindRenew{newLeasedBase(cfg)} }},
}

type strictLapse struct{ *leased }

func (s strictLapse) ReapExpiredLeases(ctx context.Context) (int, error) {
	ls := s.lapsed(s.cfg.Now(), func(until, now time.Time) bool { return until.Before(now) })
	return s.reap(ctx, ls, tasks.StatusFailed, storekit.LostWorkerOutcome()), nil
}

type reapAll struct{ *leased }

func (s reapAll) ReapExpiredLeases(ctx context.Context) (int, error) {
	now := s.cfg.Now()
	ls := s.lapsed(now, func(until, now time.Time) bool { return !until.After(now) })
	if len(ls) > 0 {
		// A missing lease reads as the zero time, long lapsed.
		for _, r := range s.shadows(func(r tasks.Record) bool { return !r.Status.Terminal() && !r.Expired(now) }) {
			s.mu.Lock()
			_, leasedNow := s.leases[r.ID]
			s.mu.Unlock()
			if _, ok := ls[r.ID]; !ok && !leasedNow {
				ls[r.ID] = lease{r.Owner, time.Time{}}
			}
		}
	}
	return s.reap(ctx, ls, tasks.StatusFailed, storekit.LostWorkerOutcome()), nil
}

type reapCompleted struct{ *leased }

func (s reapCompleted) ReapExpiredLeases(ctx context.Context) (int, error) {
	ls := s.lapsed(s.cfg.Now(), func(until, now time.Time) bool { return !until.After(now) })
	return s.reap(ctx, ls, tasks.StatusCompleted, tasks.Outcome{Result: []byte(`{}`)}), nil
}

type firstLease struct{ *leased }

func (s firstLease) RenewLease(ctx context.Context, owner tasks.Owner, id string, until time.Time) error {
	s.mu.Lock()
	l, ok := s.leases[id]
	s.mu.Unlock()
	if ok && l.until.Before(until) {
		until = l.until
	}
	return s.leased.RenewLease(ctx, owner, id, until)
}

type strictRenew struct{ *leased }

func (s strictRenew) RenewLease(ctx context.Context, owner tasks.Owner, id string, until time.Time) error {
	r, err := s.inner.Get(ctx, owner, id)
	if err == nil && r.Status.Terminal() {
		return &tasks.Error{Op: "renew lease", TaskID: id, Status: r.Status, Err: tasks.ErrInvalidTransition}
	}
	return s.leased.RenewLease(ctx, owner, id, until)
}

type blindRenew struct{ *leased }

func (s blindRenew) RenewLease(ctx context.Context, owner tasks.Owner, id string, until time.Time) error {
	if err := s.leased.RenewLease(ctx, owner, id, until); err != nil && !errors.Is(err, tasks.ErrExpired) {
		return nil
	}
	return nil
}
