package tasks

import (
	"fmt"
	"time"
)

// Unlimited, used as Config.DefaultTTL or Config.MaxTTL, means "no expiry"
// or "no maximum" respectively.
const Unlimited time.Duration = -1

// Defaults applied by Config.WithDefaults.
const (
	DefaultMaxTasksPerOwner  = 100
	DefaultMaxTTL            = 24 * time.Hour
	DefaultDefaultTTL        = time.Hour
	DefaultMinTTL            = time.Second
	DefaultPollInterval      = time.Second
	DefaultMaxVariablesBytes = 64 << 10
	DefaultPageSize          = 50
	MaxPageSize              = 1000
)

// Config holds the limits every Store enforces the same way. The zero
// value means "all defaults"; call WithDefaults to resolve it.
type Config struct {
	// Clock is the time source; nil means SystemClock.
	Clock Clock
	// MaxTasksPerOwner caps the active (non-terminal) tasks one owner may
	// hold. Zero means DefaultMaxTasksPerOwner; negative means no cap.
	MaxTasksPerOwner int
	// DefaultTTL applies when a requestor asks for none; Unlimited gives
	// tasks that never expire (ttl null on the wire).
	DefaultTTL time.Duration
	// MaxTTL clamps requested TTLs; Unlimited disables clamping.
	MaxTTL time.Duration
	// MinTTL raises tiny requested TTLs (such as 0) so a task never
	// vanishes the instant it is created.
	MinTTL time.Duration
	// PollInterval is suggested to requestors and used by stores that
	// wait by polling.
	PollInterval time.Duration
	// MaxVariablesBytes caps the JSON size of a task's variables.
	MaxVariablesBytes int
	// PageSize is the number of tasks List returns when asked for none.
	PageSize int
	// AllowAnonymous lets requestors without any identity create tasks,
	// all under one shared owner.
	AllowAnonymous bool
	// CursorKey is the secret the Engine signs tasks/list cursors with,
	// so that a requestor can neither forge a cursor nor use one issued
	// to someone else. Every engine sharing a store must be given the
	// same key (at least MinCursorKeyBytes random bytes) for a cursor
	// from one instance to work on another. Empty means a random key per
	// Engine: safe, but cursors then only work on the engine that issued
	// them. Stores ignore it.
	CursorKey string
}

// WithDefaults returns c with every zero field replaced by its default.
func (c Config) WithDefaults() Config {
	if c.Clock == nil {
		c.Clock = SystemClock{}
	}
	if c.MaxTasksPerOwner == 0 {
		c.MaxTasksPerOwner = DefaultMaxTasksPerOwner
	}
	if c.DefaultTTL == 0 {
		c.DefaultTTL = DefaultDefaultTTL
	}
	if c.MaxTTL == 0 {
		c.MaxTTL = DefaultMaxTTL
	}
	if c.MinTTL == 0 {
		c.MinTTL = DefaultMinTTL
	}
	if c.PollInterval == 0 {
		c.PollInterval = DefaultPollInterval
	}
	if c.MaxVariablesBytes == 0 {
		c.MaxVariablesBytes = DefaultMaxVariablesBytes
	}
	if c.PageSize == 0 {
		c.PageSize = DefaultPageSize
	}
	return c
}

// Now reads the clock, in UTC, truncated to the millisecond: the precision
// every backend can store and the wire shows.
func (c Config) Now() time.Time {
	clk := c.Clock
	if clk == nil {
		clk = SystemClock{}
	}
	return clk.Now().UTC().Truncate(time.Millisecond)
}

// EffectiveTTL applies the TTL policy to a requested TTL (nil: none
// requested) and returns the TTL to store (nil: unlimited). A negative
// request is an ErrInvalidParams. Call it on a Config with defaults.
func (c Config) EffectiveTTL(requested *time.Duration) (*time.Duration, error) {
	var ttl time.Duration
	switch {
	case requested == nil && c.DefaultTTL == Unlimited:
		return nil, nil
	case requested == nil:
		ttl = c.DefaultTTL
	case *requested < 0:
		return nil, fmt.Errorf("%w: ttl must not be negative, got %d ms", ErrInvalidParams, requested.Milliseconds())
	default:
		ttl = *requested
	}
	if c.MaxTTL != Unlimited && ttl > c.MaxTTL {
		ttl = c.MaxTTL
	}
	if ttl < c.MinTTL {
		ttl = c.MinTTL
	}
	ttl = ttl.Truncate(time.Millisecond)
	return &ttl, nil
}

// PageLimit resolves a requested page size: zero or negative means the
// default, anything above MaxPageSize is capped.
func (c Config) PageLimit(requested int) int {
	switch {
	case requested <= 0:
		if c.PageSize > 0 {
			return min(c.PageSize, MaxPageSize)
		}
		return DefaultPageSize
	case requested > MaxPageSize:
		return MaxPageSize
	}
	return requested
}
