package bite_test

import (
	"context"
	"time"

	"github.com/mcptasks/mcptasks/tasks"
)

// Mutants that extend ttls wrongly. Each is a tracker with an ExtendTTL
// of its own (the tracker itself has none, so on the plain tracker the
// ttl-extension specs are not-applicable).
var ttlExtensionMutants = []mutant{
	{"ExtendTTL clamps to the maximum instead of refusing", "MCPT-TTLX-002", func(cfg tasks.Config) tasks.Store {
		t := track(cfg)
		return ttlExtender{t, func(ctx context.Context, o tasks.Owner, id string, ttl time.Duration) (tasks.Record, error) {
			return t.inner.ExtendTTL(ctx, o, id, min(ttl, t.cfg.MaxTTL))
		}}
	}},
	{"ExtendTTL answers the new ttl but stores nothing", "MCPT-TTLX-001", func(cfg tasks.Config) tasks.Store {
		t := track(cfg)
		return ttlExtender{t, func(ctx context.Context, o tasks.Owner, id string, ttl time.Duration) (tasks.Record, error) {
			r, err := t.Get(ctx, o, id)
			if err != nil || r.Status.Terminal() || ttl > t.cfg.MaxTTL || r.TTL == nil || ttl < *r.TTL {
				return t.inner.ExtendTTL(ctx, o, id, ttl)
			}
			r.TTL, r.ExpiresAt, r.Version = &ttl, r.CreatedAt.Add(ttl), r.Version+1
			return r, nil
		}}
	}},
	{"ExtendTTL counts the new ttl from now", "MCPT-TTLX-001", func(cfg tasks.Config) tasks.Store {
		t := track(cfg)
		return ttlExtender{t, func(ctx context.Context, o tasks.Owner, id string, ttl time.Duration) (tasks.Record, error) {
			r, err := t.Get(ctx, o, id)
			if err != nil || r.TTL == nil {
				return t.inner.ExtendTTL(ctx, o, id, ttl)
			}
			// Asks for the total that makes the task live ttl from now.
			return t.inner.ExtendTTL(ctx, o, id, min(t.cfg.MaxTTL, t.cfg.Now().Sub(r.CreatedAt)+ttl))
		}}
	}},
	{"ExtendTTL lets another owner's task be extended", "MCPT-TTLX-003", func(cfg tasks.Config) tasks.Store {
		t := track(cfg)
		return ttlExtender{t, func(ctx context.Context, o tasks.Owner, id string, ttl time.Duration) (tasks.Record, error) {
			t.mu.Lock()
			r, ok := t.shadow[id]
			t.mu.Unlock()
			if ok {
				o = r.Owner
			}
			return t.inner.ExtendTTL(ctx, o, id, ttl)
		}}
	}},
}

// ttlExtender is a tracker with the given ExtendTTL.
type ttlExtender struct {
	*tracker
	extend func(ctx context.Context, owner tasks.Owner, id string, ttl time.Duration) (tasks.Record, error)
}

func (s ttlExtender) ExtendTTL(ctx context.Context, owner tasks.Owner, id string, ttl time.Duration) (tasks.Record, error) {
	return s.tracker.seen(s.extend(ctx, owner, id, ttl))
}
