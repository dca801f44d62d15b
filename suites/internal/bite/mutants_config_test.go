package bite_test

import (
	"context"
	"time"

	"github.com/mcptasks/mcptasks/tasks"
)

// Mutants that get the configuration wrong: limits off by one, TTL policy
// mistakes.
var configMutants = []mutant{
	{"cap off by one: allows one task too many", "MCPT-LIMIT-001", withInner(func(c *tasks.Config) {
		if c.MaxTasksPerOwner > 0 {
			c.MaxTasksPerOwner++
		}
	})},
	{"cap off by one: refuses the last allowed task", "MCPT-LIMIT-001", withInner(func(c *tasks.Config) {
		if c.MaxTasksPerOwner > 1 {
			c.MaxTasksPerOwner--
		}
	})},
	{"a negative cap refuses every task", "MCPT-LIMIT-004", func(cfg tasks.Config) tasks.Store { return negativeCap{track(cfg)} }},
	{"variables limit off by one: accepts one byte over", "MCPT-VAR-003", withInner(func(c *tasks.Config) { c.MaxVariablesBytes++ })},
	{"variables limit off by one: refuses exactly the limit", "MCPT-VAR-003", withInner(func(c *tasks.Config) { c.MaxVariablesBytes-- })},
	{"the configured page size is ignored", "MCPT-PAGE-003", withInner(func(c *tasks.Config) { c.PageSize = tasks.DefaultPageSize })},
	{"no maximum ttl", "TASKS-RSRC-002", withInner(func(c *tasks.Config) { c.MaxTTL = tasks.Unlimited })},
	{"no minimum ttl", "MCPT-TTL-003", withInner(func(c *tasks.Config) { c.MinTTL = time.Nanosecond })},
	{"an unlimited default ttl becomes the maximum", "MCPT-TTL-004", withInner(func(c *tasks.Config) {
		if c.DefaultTTL == tasks.Unlimited {
			c.DefaultTTL = 24 * time.Hour
		}
	})},
	{"no ttl asked means ttl 0", "MCPT-TTL-001", func(cfg tasks.Config) tasks.Store {
		return createHook{track(cfg), func(p *tasks.CreateParams) {
			if p.TTL == nil {
				p.TTL = new(time.Duration)
			}
		}}
	}},
	{"a negative ttl is taken as 0", "MCPT-TTL-005", func(cfg tasks.Config) tasks.Store {
		return createHook{track(cfg), func(p *tasks.CreateParams) {
			if p.TTL != nil && *p.TTL < 0 {
				p.TTL = new(time.Duration)
			}
		}}
	}},
	{"ttl stored in whole seconds", "MCPT-TTL-002", func(cfg tasks.Config) tasks.Store {
		return createHook{track(cfg), func(p *tasks.CreateParams) {
			if p.TTL != nil {
				d := p.TTL.Truncate(time.Second)
				p.TTL = &d
			}
		}}
	}},
	{"the status message given to Create is dropped", "MCPT-LIFE-002", func(cfg tasks.Config) tasks.Store {
		return createHook{track(cfg), func(p *tasks.CreateParams) { p.StatusMessage = "" }}
	}},
}

// negativeCap compares against the cap without checking it is positive.
type negativeCap struct{ *tracker }

func (s negativeCap) Create(ctx context.Context, owner tasks.Owner, p tasks.CreateParams) (tasks.Record, error) {
	if s.cfg.MaxTasksPerOwner < 0 {
		return tasks.Record{}, &tasks.Error{Op: "create", Err: tasks.ErrLimit}
	}
	return s.tracker.Create(ctx, owner, p)
}

// createHook rewrites Create's parameters before storing.
type createHook struct {
	*tracker
	f func(p *tasks.CreateParams)
}

func (s createHook) Create(ctx context.Context, owner tasks.Owner, p tasks.CreateParams) (tasks.Record, error) {
	s.f(&p)
	return s.tracker.Create(ctx, owner, p)
}
