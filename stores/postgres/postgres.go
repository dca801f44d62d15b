// Package postgres is a tasks.Store on PostgreSQL, meant to be shared by
// several server instances.
//
// Every status change is one conditional UPDATE … WHERE status IN (…)
// RETURNING, so of concurrent attempts to end a task exactly one wins.
// Create takes a per-owner transaction advisory lock, so the per-owner task
// limit holds across instances. List is a keyset scan of the index on
// (owner, created_at, id). Times come from the injected clock, never from
// the database's now(). Changes into input_required or a terminal status
// are announced with NOTIFY by the updating statement itself (a trigger);
// Wait listens for them and also polls at Config.PollInterval, so it works
// while the listening connection is down. The store implements
// tasks.LeaseStore for crash recovery across instances.
//
// The schema lives in migrations/ and is applied by Open (or Migrate),
// idempotently, under an advisory lock.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mcptasks/mcptasks/tasks"
)

// ErrClosed is returned by every method of a Store after Close.
var ErrClosed = fmt.Errorf("postgres: %w", tasks.ErrStoreClosed)

// Store is the PostgreSQL tasks.Store. Create it with Open.
type Store struct {
	cfg    tasks.Config
	pool   *pgxpool.Pool
	log    *slog.Logger
	closed atomic.Bool

	lmu      sync.Mutex
	listener *listener // started by the first Wait
}

var (
	_ tasks.Store      = (*Store)(nil)
	_ tasks.LeaseStore = (*Store)(nil)
)

// Option configures Open.
type Option func(*options)

type options struct {
	maxConns  int32
	log       *slog.Logger
	noMigrate bool
}

// WithMaxConns sets the size of the connection pool (default: pgxpool's,
// the larger of 4 and the number of CPUs, unless the DSN sets
// pool_max_conns).
func WithMaxConns(n int32) Option { return func(o *options) { o.maxConns = n } }

// WithLogger sets where the store reports trouble it recovers from, such
// as a lost LISTEN connection. Default slog.Default().
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.log = l } }

// WithoutMigrations skips applying the schema at Open, for deployments
// that run Migrate separately.
func WithoutMigrations() Option { return func(o *options) { o.noMigrate = true } }

// Open connects to the database at dsn (a postgres:// URL or key=value
// string as pgx accepts), applies the embedded migrations and returns a
// store enforcing cfg (defaults applied).
func Open(ctx context.Context, dsn string, cfg tasks.Config, opts ...Option) (*Store, error) {
	o := options{log: slog.Default()}
	for _, opt := range opts {
		opt(&o)
	}
	pcfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: parse DSN: %w", err)
	}
	if o.maxConns > 0 {
		pcfg.MaxConns = o.maxConns
	}
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}
	if !o.noMigrate {
		if err := Migrate(ctx, pool); err != nil {
			pool.Close()
			return nil, fmt.Errorf("postgres: migrate: %w", err)
		}
	}
	return &Store{cfg: cfg.WithDefaults(), pool: pool, log: o.log}, nil
}

// Pool returns the store's connection pool, for tests and tools that need
// to reach the same database.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Close stops the listener and closes the pool. Calls after Close fail
// with ErrClosed; waiters end with ErrClosed.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	s.lmu.Lock()
	l := s.listener
	s.listener = nil
	s.lmu.Unlock()
	if l != nil {
		l.stop()
	}
	s.pool.Close()
	return nil
}

// check returns the error a method reports before touching the database:
// the context's, or ErrClosed.
func (s *Store) check(ctx context.Context, op string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.closed.Load() {
		return &tasks.Error{Op: op, Err: ErrClosed}
	}
	return nil
}

// checkTask is check for the methods that address one task. An owner or
// id PostgreSQL cannot store as text (invalid UTF-8, a NUL byte) names no
// task, so it is reported as not found without asking the database.
func (s *Store) checkTask(ctx context.Context, op string, owner tasks.Owner, id string) error {
	if err := s.check(ctx, op); err != nil {
		return err
	}
	if !storable(string(owner)) || !storable(id) {
		return notFound(op, id)
	}
	return nil
}

// storable reports whether PostgreSQL can hold s in a text column.
func storable(s string) bool { return utf8.ValidString(s) && !strings.ContainsRune(s, 0) }

// clean makes a free-text value (a status or error message, a method
// name) storable: invalid UTF-8 and NUL bytes, which a text column
// refuses, become U+FFFD. Every other string is kept exactly.
func clean(s string) string {
	if storable(s) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// dbErr wraps an error from the database. Context errors pass through so
// callers can tell a cancellation from an outage; everything else becomes
// an internal error (JSON-RPC -32603) naming the operation.
func (s *Store) dbErr(ctx context.Context, op, id string, err error) error {
	if ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return ctx.Err()
	}
	if s.closed.Load() {
		return &tasks.Error{Op: op, TaskID: id, Err: ErrClosed}
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return &tasks.Error{Op: op, TaskID: id, Err: fmt.Errorf("postgres: %w", err)}
	}
	// No answer from the server: the connection broke or could not be made.
	return &tasks.Error{Op: op, TaskID: id, Err: fmt.Errorf("postgres is unreachable: %w", err)}
}
