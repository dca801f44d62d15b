package bite_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/mcptasks/mcptasks/tasks"
)

// Mutants that get timestamps, the ttl a task reports, or versions wrong.
var stampMutants = []mutant{
	{"timestamps in whole seconds", "MCPT-LIFE-002", withOut(func(_ tasks.Config, r *tasks.Record) {
		r.CreatedAt = r.CreatedAt.Truncate(time.Second)
		r.LastUpdatedAt = r.LastUpdatedAt.Truncate(time.Second)
		if r.TTL != nil {
			r.ExpiresAt = r.CreatedAt.Add(*r.TTL)
		}
	})},
	{"timestamps not truncated to the millisecond", "MCPT-LIFE-002", withOut(func(cfg tasks.Config, r *tasks.Record) {
		// The suite's clock only ever moves by whole milliseconds or
		// keeps its sub-millisecond phase; this is the raw reading.
		frac := cfg.Clock.Now().Sub(cfg.Now())
		r.CreatedAt = r.CreatedAt.Add(frac)
		r.LastUpdatedAt = r.LastUpdatedAt.Add(frac)
		if !r.ExpiresAt.IsZero() {
			r.ExpiresAt = r.ExpiresAt.Add(frac)
		}
	})},
	{"createdAt rewritten on every update", "TASKS-TTL-002", withOut(func(_ tasks.Config, r *tasks.Record) {
		r.CreatedAt = r.LastUpdatedAt
	})},
	{"the expiry slides with lastUpdatedAt", "MCPT-TTL-008", withOut(func(_ tasks.Config, r *tasks.Record) {
		if r.TTL != nil {
			r.ExpiresAt = r.LastUpdatedAt.Add(*r.TTL)
		}
	})},
	{"the requested ttl is reported, the clamped one applied", "TASKS-TTL-004", func(cfg tasks.Config) tasks.Store {
		return newTTLLiar(cfg, false)
	}},
	{"the clamped ttl is reported, the requested one applied", "TASKS-TTL-004", func(cfg tasks.Config) tasks.Store {
		return newTTLLiar(cfg, true)
	}},
	{"a ttl's fraction of a millisecond is kept", "TASKS-TTL-004", withOut(func(_ tasks.Config, r *tasks.Record) {
		if r.TTL != nil && *r.TTL == 90*time.Second+time.Millisecond {
			d := 90*time.Second + 1500*time.Microsecond
			r.TTL = &d
		}
	})},
	{"records carry no owner", "TASKS-SEC-001", withOut(func(_ tasks.Config, r *tasks.Record) { r.Owner = "" })},
	{"records lose the method", "MCPT-LIFE-002", withOut(func(_ tasks.Config, r *tasks.Record) { r.Method = "" })},
	{"records carry no poll interval", "MCPT-LIFE-002", withOut(func(_ tasks.Config, r *tasks.Record) { r.PollInterval = 0 })},
	{"versions start at 0", "MCPT-LIFE-001", withOut(func(_ tasks.Config, r *tasks.Record) { r.Version-- })},
	{"Get stamps lastUpdatedAt", "MCPT-TIME-001", func(cfg tasks.Config) tasks.Store { return readStamps{track(cfg)} }},
	{"a refused SetVariables still bumps the version", "MCPT-VAR-003", func(cfg tasks.Config) tasks.Store { return refusedBumps{track(cfg)} }},
	{"a refused Transition still touches the task", "MCPT-TIME-001", func(cfg tasks.Config) tasks.Store { return refusedTouches{track(cfg)} }},
	{"SetVariables leaves lastUpdatedAt behind", "TASKS-TTL-002", func(cfg tasks.Config) tasks.Store { return newLazyStamp(cfg, "SetVariables") }},
	{"Cancel leaves lastUpdatedAt behind", "TASKS-TTL-002", func(cfg tasks.Config) tasks.Store { return newLazyStamp(cfg, "Cancel") }},
	{"SetVariables does not bump the version", "MCPT-LIFE-001", func(cfg tasks.Config) tasks.Store { return newHiddenBumps(cfg, "SetVariables") }},
	{"Cancel does not bump the version", "TASKS-CANCEL-003", func(cfg tasks.Config) tasks.Store { return newHiddenBumps(cfg, "Cancel") }},
}

// ttlLiar shows one ttl and applies another. With applyRequested, the
// store keeps tasks for the ttl that was asked and shows the clamped one;
// otherwise it applies the clamped one and shows what was asked.
type ttlLiar struct {
	*tracker
	mu        sync.Mutex
	requested map[string]time.Duration
}

func newTTLLiar(cfg tasks.Config, applyRequested bool) tasks.Store {
	inner := cfg.WithDefaults()
	if applyRequested {
		inner.MaxTTL = tasks.Unlimited
	}
	s := &ttlLiar{tracker: newTracker(cfg, inner), requested: map[string]time.Duration{}}
	c := s.cfg
	s.out = func(r *tasks.Record) {
		if r.TTL == nil {
			return
		}
		if applyRequested {
			if c.MaxTTL != tasks.Unlimited && *r.TTL > c.MaxTTL {
				d := c.MaxTTL
				r.TTL = &d
				r.ExpiresAt = r.CreatedAt.Add(d)
			}
			return
		}
		s.mu.Lock()
		d, ok := s.requested[r.ID]
		s.mu.Unlock()
		if ok {
			r.TTL = &d
		}
	}
	return s
}

func (s *ttlLiar) Create(ctx context.Context, owner tasks.Owner, p tasks.CreateParams) (tasks.Record, error) {
	r, err := s.tracker.Create(ctx, owner, p)
	if err == nil && p.TTL != nil && r.TTL != nil && *p.TTL >= 0 && *p.TTL != *r.TTL {
		s.mu.Lock()
		s.requested[r.ID] = *p.TTL
		s.mu.Unlock()
		s.out(&r) // again, now that the request is known
	}
	return r, err
}

// readStamps treats a read as a change of lastUpdatedAt.
type readStamps struct{ *tracker }

func (s readStamps) Get(ctx context.Context, owner tasks.Owner, id string) (tasks.Record, error) {
	r, err := s.tracker.Get(ctx, owner, id)
	if err == nil {
		r.LastUpdatedAt = s.cfg.Now()
	}
	return r, err
}

// bump makes a change that changes nothing but the version and time.
func (t *tracker) bump(ctx context.Context, owner tasks.Owner, id string) {
	_, _ = t.inner.SetVariables(ctx, owner, id, map[string]json.RawMessage{})
}

// refusedBumps writes the task before checking the merged size.
type refusedBumps struct{ *tracker }

func (s refusedBumps) SetVariables(ctx context.Context, owner tasks.Owner, id string, patch map[string]json.RawMessage) (tasks.Record, error) {
	r, err := s.tracker.SetVariables(ctx, owner, id, patch)
	if errors.Is(err, tasks.ErrVariablesTooLarge) || errors.Is(err, tasks.ErrInvalidParams) {
		s.bump(ctx, owner, id)
	}
	return r, err
}

// refusedTouches stamps the task before checking the move.
type refusedTouches struct{ *tracker }

func (s refusedTouches) Transition(ctx context.Context, owner tasks.Owner, id string, to tasks.Status, msg string) (tasks.Record, error) {
	r, err := s.tracker.Transition(ctx, owner, id, to, msg)
	if errors.Is(err, tasks.ErrInvalidTransition) {
		s.bump(ctx, owner, id)
	}
	return r, err
}

// lazyStamp forgets to move lastUpdatedAt in one method: records keep
// showing the time of the change before.
type lazyStamp struct {
	*tracker
	method string
	mu     sync.Mutex
	keep   map[string][2]time.Time // id: the real stamp, the one shown instead
}

func newLazyStamp(cfg tasks.Config, method string) tasks.Store {
	s := &lazyStamp{tracker: track(cfg), method: method, keep: map[string][2]time.Time{}}
	s.out = func(r *tasks.Record) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if k, ok := s.keep[r.ID]; ok && k[0].Equal(r.LastUpdatedAt) {
			r.LastUpdatedAt = k[1]
		}
	}
	return s
}

// stamped records that id's change at real time now should show the
// time of the change before.
func (s *lazyStamp) stamped(id string, before tasks.Record, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	shown := before.LastUpdatedAt
	if k, ok := s.keep[id]; ok && k[0].Equal(shown) {
		shown = k[1]
	}
	s.keep[id] = [2]time.Time{now, shown}
}

func (s *lazyStamp) SetVariables(ctx context.Context, owner tasks.Owner, id string, patch map[string]json.RawMessage) (tasks.Record, error) {
	if s.method != "SetVariables" {
		return s.tracker.SetVariables(ctx, owner, id, patch)
	}
	before, _ := s.snapshot(id)
	r, err := s.inner.SetVariables(ctx, owner, id, patch)
	if err == nil {
		s.stamped(id, before, r.LastUpdatedAt)
	}
	return s.seen(r, err)
}

func (s *lazyStamp) Cancel(ctx context.Context, owner tasks.Owner, id string, msg string) (tasks.Record, error) {
	if s.method != "Cancel" {
		return s.tracker.Cancel(ctx, owner, id, msg)
	}
	before, _ := s.snapshot(id)
	r, err := s.inner.Cancel(ctx, owner, id, msg)
	if err == nil {
		s.stamped(id, before, r.LastUpdatedAt)
	}
	return s.seen(r, err)
}

// hiddenBumps does not bump the version in one method: every record shows
// the version minus the bumps that method made.
type hiddenBumps struct {
	*tracker
	method string
	mu     sync.Mutex
	n      map[string]int64
}

func newHiddenBumps(cfg tasks.Config, method string) tasks.Store {
	s := &hiddenBumps{tracker: track(cfg), method: method, n: map[string]int64{}}
	s.out = func(r *tasks.Record) { r.Version -= s.hidden(r.ID) }
	return s
}

func (s *hiddenBumps) hidden(id string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n[id]
}

func (s *hiddenBumps) count(id string, r *tasks.Record, err error) {
	if err != nil {
		return
	}
	s.mu.Lock()
	s.n[id]++
	s.mu.Unlock()
	r.Version--
}

func (s *hiddenBumps) SetVariables(ctx context.Context, owner tasks.Owner, id string, patch map[string]json.RawMessage) (tasks.Record, error) {
	r, err := s.tracker.SetVariables(ctx, owner, id, patch)
	if s.method == "SetVariables" {
		s.count(id, &r, err)
	}
	return r, err
}

func (s *hiddenBumps) Cancel(ctx context.Context, owner tasks.Owner, id string, msg string) (tasks.Record, error) {
	r, err := s.tracker.Cancel(ctx, owner, id, msg)
	if s.method == "Cancel" {
		s.count(id, &r, err)
	}
	return r, err
}

func (s *hiddenBumps) Wait(ctx context.Context, owner tasks.Owner, id string, after int64) (tasks.Record, error) {
	return s.tracker.Wait(ctx, owner, id, after+s.hidden(id))
}
