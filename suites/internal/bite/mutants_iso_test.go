package bite_test

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/mcptasks/mcptasks/tasks"
)

// Mutants that let owners see or touch each other's tasks.
var isolationMutants = []mutant{
	{"Get ignores the owner", "TASKS-SEC-006", newOwnerBlindGet},
	{"Cancel ignores the owner", "TASKS-SEC-006", func(cfg tasks.Config) tasks.Store { return ownerBlind{track(cfg), "Cancel"} }},
	{"Result ignores the owner", "TASKS-SEC-006", func(cfg tasks.Config) tasks.Store { return ownerBlind{track(cfg), "Result"} }},
	{"SetVariables ignores the owner", "MCPT-ISO-001", func(cfg tasks.Config) tasks.Store { return ownerBlind{track(cfg), "SetVariables"} }},
	{"Wait ignores the owner", "MCPT-ISO-001", func(cfg tasks.Config) tasks.Store { return ownerBlind{track(cfg), "Wait"} }},
	{"another owner's task gets a telltale error", "TASKS-SEC-006", func(cfg tasks.Config) tasks.Store { return telltale{track(cfg)} }},
	{"List crosses owners", "TASKS-SEC-007", newLeakyList},
	{"List pages after the first forget the owner", "TASKS-SEC-007", func(cfg tasks.Config) tasks.Store {
		return newShadowLister(cfg, listAllOwnersAfterFirst)
	}},
}

// ownerBlind finds tasks by id alone in one method.
type ownerBlind struct {
	*tracker
	method string
}

// realOwner is the owner of id, if the tracker has seen the task.
func (t *tracker) realOwner(id string, asked tasks.Owner) tasks.Owner {
	if r, ok := t.snapshot(id); ok {
		return r.Owner
	}
	return asked
}

func (s ownerBlind) owner(method, id string, asked tasks.Owner) tasks.Owner {
	if method == s.method {
		return s.realOwner(id, asked)
	}
	return asked
}

func (s ownerBlind) Cancel(ctx context.Context, owner tasks.Owner, id string, msg string) (tasks.Record, error) {
	return s.tracker.Cancel(ctx, s.owner("Cancel", id, owner), id, msg)
}

func (s ownerBlind) Result(ctx context.Context, owner tasks.Owner, id string) (tasks.Record, error) {
	return s.tracker.Result(ctx, s.owner("Result", id, owner), id)
}

func (s ownerBlind) SetVariables(ctx context.Context, owner tasks.Owner, id string, patch map[string]json.RawMessage) (tasks.Record, error) {
	return s.tracker.SetVariables(ctx, s.owner("SetVariables", id, owner), id, patch)
}

func (s ownerBlind) Wait(ctx context.Context, owner tasks.Owner, id string, after int64) (tasks.Record, error) {
	return s.tracker.Wait(ctx, s.owner("Wait", id, owner), id, after)
}

// telltale tells a requestor that a task exists but is not theirs.
type telltale struct{ *tracker }

func (s telltale) Get(ctx context.Context, owner tasks.Owner, id string) (tasks.Record, error) {
	r, err := s.tracker.Get(ctx, owner, id)
	if errors.Is(err, tasks.ErrNotFound) {
		if real := s.realOwner(id, owner); real != owner {
			return r, &tasks.Error{Op: "get", TaskID: id, Err: tasks.ErrNotFound, Detail: "the task belongs to another requestor"}
		}
	}
	return r, err
}

// Mutants that get expiry and cleanup wrong.
var expiryMutants = []mutant{
	{"tasks never expire", "TASKS-TTL-005", newNeverExpires},
	{"a task is still visible at its expiry instant", "TASKS-TTL-005", func(cfg tasks.Config) tasks.Store {
		// Like a store testing expires_at < now: the memory store keeps
		// each task one millisecond longer than the record says.
		inner := cfg.WithDefaults()
		inner.MaxTTL = tasks.Unlimited
		t := newTracker(cfg, inner)
		t.out = func(r *tasks.Record) {
			if r.TTL != nil {
				d := *r.TTL - time.Millisecond
				r.TTL = &d
				r.ExpiresAt = r.ExpiresAt.Add(-time.Millisecond)
			}
		}
		c := t.cfg
		return createHook{t, func(p *tasks.CreateParams) {
			if eff, err := c.EffectiveTTL(p.TTL); err == nil && eff != nil {
				d := *eff + time.Millisecond
				p.TTL = &d
			}
		}}
	}},
	{"Get does not check expiry", "MCPT-TTL-006", func(cfg tasks.Config) tasks.Store { return stale{track(cfg), "Get"} }},
	{"Result does not check expiry", "MCPT-TTL-006", func(cfg tasks.Config) tasks.Store { return stale{track(cfg), "Result"} }},
	{"Cancel does not check expiry", "MCPT-TTL-006", func(cfg tasks.Config) tasks.Store { return stale{track(cfg), "Cancel"} }},
	{"Wait does not check expiry", "MCPT-TTL-006", func(cfg tasks.Config) tasks.Store { return stale{track(cfg), "Wait"} }},
	{"List does not check expiry", "MCPT-TTL-006", func(cfg tasks.Config) tasks.Store { return newShadowLister(cfg, listWithExpired) }},
	{"expired tasks count against the cap until deleted", "MCPT-LIMIT-002", func(cfg tasks.Config) tasks.Store { return newCounter(cfg, countExpired) }},
	{"ended tasks count against the cap", "MCPT-LIMIT-002", func(cfg tasks.Config) tasks.Store { return newCounter(cfg, countTerminal) }},
	{"the cap counts every owner's tasks", "MCPT-LIMIT-003", func(cfg tasks.Config) tasks.Store { return newCounter(cfg, countGlobal) }},
	{"input_required tasks do not count against the cap", "MCPT-LIMIT-001", func(cfg tasks.Config) tasks.Store {
		return newCounter(cfg, countWorkingOnly)
	}},
	{"DeleteExpired always says 0", "MCPT-TTL-007", func(cfg tasks.Config) tasks.Store { return sweeper{track(cfg), sweepZero} }},
	{"DeleteExpired works in whole seconds and removes tasks early", "MCPT-TTL-007", func(cfg tasks.Config) tasks.Store {
		return sweeper{track(cfg), sweepEarly}
	}},
	{"DeleteExpired removes tasks without a ttl", "MCPT-TTL-004", func(cfg tasks.Config) tasks.Store { return sweeper{track(cfg), sweepUnlimited} }},
}

// stale serves, from one method, the last record it saw of a task that
// has expired.
type stale struct {
	*tracker
	method string
}

func (s stale) fallback(method, id string, err error) (tasks.Record, bool) {
	if method != s.method || !isExpired(err) {
		return tasks.Record{}, false
	}
	return s.snapshot(id)
}

func (s stale) Get(ctx context.Context, owner tasks.Owner, id string) (tasks.Record, error) {
	r, err := s.tracker.Get(ctx, owner, id)
	if old, ok := s.fallback("Get", id, err); ok {
		old.Outcome = nil
		return old, nil
	}
	return r, err
}

func (s stale) Result(ctx context.Context, owner tasks.Owner, id string) (tasks.Record, error) {
	r, err := s.tracker.Result(ctx, owner, id)
	if old, ok := s.fallback("Result", id, err); ok && old.Status.Terminal() {
		return old, nil
	}
	return r, err
}

func (s stale) Cancel(ctx context.Context, owner tasks.Owner, id string, msg string) (tasks.Record, error) {
	r, err := s.tracker.Cancel(ctx, owner, id, msg)
	if old, ok := s.fallback("Cancel", id, err); ok && !old.Status.Terminal() {
		old.Status, old.StatusMessage, old.Outcome = tasks.StatusCancelled, msg, nil
		old.Version++
		return old, nil
	}
	return r, err
}

func (s stale) Wait(ctx context.Context, owner tasks.Owner, id string, after int64) (tasks.Record, error) {
	r, err := s.tracker.Wait(ctx, owner, id, after)
	if old, ok := s.fallback("Wait", id, err); ok {
		old.Outcome = nil
		return old, nil
	}
	return r, err
}

// How a broken DeleteExpired sweeps.
const (
	sweepZero      = iota // removes the right tasks, reports none
	sweepEarly            // removes tasks that expire within the next second
	sweepUnlimited        // treats a missing expiry as the zero time
)

type sweeper struct {
	*tracker
	mode int
}

func (s sweeper) DeleteExpired(ctx context.Context) (int, error) {
	now := s.cfg.Now()
	var extra []string
	if s.mode != sweepZero {
		for _, r := range s.shadows(func(r tasks.Record) bool { return !s.gone(r.ID) && !r.Expired(now) }) {
			early := s.mode == sweepEarly && !r.ExpiresAt.IsZero() && r.ExpiresAt.Before(now.Truncate(time.Second).Add(time.Second))
			unlimited := s.mode == sweepUnlimited && r.ExpiresAt.IsZero()
			if early || unlimited {
				extra = append(extra, r.ID)
			}
		}
	}
	n, err := s.tracker.DeleteExpired(ctx)
	if err != nil {
		return n, err
	}
	for _, id := range extra {
		s.hide(id)
	}
	if s.mode == sweepZero {
		return 0, nil
	}
	return n + len(extra), nil
}
