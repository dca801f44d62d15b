package memory

import (
	"context"
	"time"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
)

var _ tasks.TTLExtender = (*Store)(nil)

// ExtendTTL lengthens a task's ttl (see tasks.TTLExtender).
func (s *Store) ExtendTTL(ctx context.Context, owner tasks.Owner, id string, ttl time.Duration) (tasks.Record, error) {
	if err := ctx.Err(); err != nil {
		return tasks.Record{}, err
	}
	now := s.cfg.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.lookup("extend ttl", owner, id, now)
	if err != nil {
		return tasks.Record{}, err
	}
	ttl, change, err := storekit.CheckExtendTTL(s.cfg, e.rec, ttl)
	if err != nil {
		return tasks.Record{}, err
	}
	if !change {
		return view(e), nil
	}
	e.ttl = ttl
	e.rec.TTL = &e.ttl
	e.rec.ExpiresAt = e.rec.CreatedAt.Add(ttl)
	touch(e, now)
	return view(e), nil
}
