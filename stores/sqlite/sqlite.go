// Package sqlite is the embedded durable tasks.Store for a single node: one
// SQLite file in WAL mode, through the pure-Go modernc.org/sqlite driver.
//
// It also implements tasks.LeaseStore, so tasks left running by a process
// that died (kill -9, power loss) end as failed: at the next Open if their
// lease has lapsed, otherwise by any engine's reaper once it does. Several
// processes may share one file; each renews the leases of its own work, so
// none of them ever fails another live process's tasks.
//
// Every status change is one conditional UPDATE … RETURNING, so of several
// racing attempts exactly one matches the row. Writes go through a single
// connection (SQLite allows one writer at a time anyway; queuing in Go is
// cheaper than spinning on SQLITE_BUSY), reads through a small pool.
// Expired tasks are filtered out of every read with the injected clock and
// removed by DeleteExpired. Wait wakes at once for changes made through
// this Store and polls at Config.PollInterval for changes made by another
// process sharing the file.
package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
)

// ErrClosed is returned by every method of a Store after Close.
var ErrClosed = fmt.Errorf("sqlite: %w", tasks.ErrStoreClosed)

// Store is the SQLite tasks.Store. Create it with Open.
type Store struct {
	cfg    tasks.Config
	path   string
	writer *sql.DB // one connection: all writes
	reader *sql.DB // a few connections: reads
	notify notifier
	closed atomic.Bool
	done   chan struct{}
	once   sync.Once

	recovered int
}

var _ tasks.Store = (*Store)(nil)

// DSN returns the database/sql data source name Open uses for path: WAL
// journal, synchronous=NORMAL, a 5 s busy timeout, a page cache of up to
// 16 MiB per connection (so list pages stay cheap on large files) and
// transactions that take the write lock when they begin.
func DSN(path string) string {
	return "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)" +
		"&_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)&_pragma=cache_size(-16384)&_txlock=immediate"
}

// Open opens (creating if needed) the database file at path, applies the
// embedded migrations and returns a Store enforcing cfg (defaults
// applied).
func Open(ctx context.Context, path string, cfg tasks.Config) (*Store, error) {
	if path == "" {
		return nil, errors.New("sqlite: empty database path")
	}
	if strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("sqlite: database path %q must not contain '?' or '#'", path)
	}
	dsn := DSN((&url.URL{Path: path}).EscapedPath())
	writer, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	writer.SetMaxOpenConns(1)
	writer.SetMaxIdleConns(1)
	writer.SetConnMaxLifetime(0)
	writer.SetConnMaxIdleTime(0)
	if _, err := migrate(ctx, writer); err != nil {
		writer.Close()
		return nil, fmt.Errorf("sqlite: migrate %s: %w", path, err)
	}
	reader, err := sql.Open("sqlite", dsn+"&_pragma=query_only(1)")
	if err != nil {
		writer.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	reader.SetMaxOpenConns(4)
	reader.SetMaxIdleConns(4)
	reader.SetConnMaxIdleTime(0)
	if err := reader.PingContext(ctx); err != nil {
		writer.Close()
		reader.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	s := &Store{
		cfg:    cfg.WithDefaults(),
		path:   path,
		writer: writer,
		reader: reader,
		notify: notifier{waiters: make(map[string]*waiter)},
		done:   make(chan struct{}),
	}
	// Crash recovery: tasks whose process died and whose lease has
	// already lapsed end now; those whose lease is still running are
	// ended by the engine's reaper once it lapses. A live process keeps
	// renewing its leases, so its tasks are never touched.
	n, err := s.reap(ctx, "recover at open")
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	s.recovered = n
	return s, nil
}

// Recovered returns how many tasks Open ended as failed because the
// process running them had died (its lease had lapsed).
func (s *Store) Recovered() int { return s.recovered }

// Path returns the database file the store uses.
func (s *Store) Path() string { return s.path }

// Close closes the database. Later calls fail with ErrClosed and waiters
// wake with ErrClosed.
func (s *Store) Close() error {
	var err error
	s.once.Do(func() {
		s.closed.Store(true)
		close(s.done)
		err = errors.Join(s.reader.Close(), s.writer.Close())
	})
	return err
}

// columns every read selects, in the order scanRecord expects.
const columns = `id, owner, method, status, status_message, created_at, updated_at,
	ttl_ms, poll_ms, expires_at, version, variables`

// outcomeColumns are appended to columns by Result.
const outcomeColumns = `, result, err_code, err_message, err_data`

// visible is the SQL condition for "not expired at ?".
const visible = `(expires_at IS NULL OR expires_at > ?)`

func (s *Store) begin(ctx context.Context, op string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.closed.Load() {
		return &tasks.Error{Op: op, Err: ErrClosed}
	}
	return nil
}

// dbErr wraps an engine error so callers see which operation failed; it
// maps to JSON-RPC -32603.
func (s *Store) dbErr(op, id string, err error) error {
	if s.closed.Load() {
		return &tasks.Error{Op: op, TaskID: id, Err: ErrClosed}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &tasks.Error{Op: op, TaskID: id, Err: fmt.Errorf("sqlite: %w", err)}
}

func notFound(op, id string) error { return &tasks.Error{Op: op, TaskID: id, Err: tasks.ErrNotFound} }
func expired(op, id string) error  { return &tasks.Error{Op: op, TaskID: id, Err: tasks.ErrExpired} }

// Create stores a new working task for owner, enforcing the per-owner
// limit in the same immediate transaction as the insert.
func (s *Store) Create(ctx context.Context, owner tasks.Owner, p tasks.CreateParams) (tasks.Record, error) {
	if err := s.begin(ctx, "create"); err != nil {
		return tasks.Record{}, err
	}
	rec, err := storekit.NewRecord(s.cfg, owner, p)
	if err != nil {
		return tasks.Record{}, err
	}
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return tasks.Record{}, s.dbErr("create", "", err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	if limit := s.cfg.MaxTasksPerOwner; limit > 0 {
		var n int
		err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM tasks INDEXED BY tasks_owner_active
			WHERE owner = ? AND status IN ('working', 'input_required') AND `+visible,
			string(owner), ms(rec.CreatedAt)).Scan(&n)
		if err != nil {
			return tasks.Record{}, s.dbErr("create", "", err)
		}
		if n >= limit {
			return tasks.Record{}, &tasks.Error{Op: "create", Err: tasks.ErrLimit,
				Detail: "the owner already has the maximum number of active tasks"}
		}
	}
	if err := insert(ctx, tx, rec); err != nil {
		return tasks.Record{}, s.dbErr("create", rec.ID, err)
	}
	if err := tx.Commit(); err != nil {
		return tasks.Record{}, s.dbErr("create", rec.ID, err)
	}
	return rec, nil
}

// insert writes a new record.
func insert(ctx context.Context, tx *sql.Tx, rec tasks.Record) error {
	var ttl, exp any
	if rec.TTL != nil {
		ttl, exp = rec.TTL.Milliseconds(), ms(rec.ExpiresAt)
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO tasks (id, owner, method, status, status_message,
		created_at, updated_at, ttl_ms, poll_ms, expires_at, version, variables)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		rec.ID, string(rec.Owner), rec.Method, string(rec.Status), rec.StatusMessage,
		ms(rec.CreatedAt), ms(rec.LastUpdatedAt), ttl, rec.PollInterval.Milliseconds(), exp,
		rec.Version, variablesValue(rec.Variables))
	return err
}

// Get returns the task.
func (s *Store) Get(ctx context.Context, owner tasks.Owner, id string) (tasks.Record, error) {
	if err := s.begin(ctx, "get"); err != nil {
		return tasks.Record{}, err
	}
	return s.get(ctx, s.reader, "get", owner, id, false)
}

// queryer is a *sql.DB or *sql.Tx.
type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// get reads a visible task of owner, reporting ErrNotFound or ErrExpired
// as op.
func (s *Store) get(ctx context.Context, q queryer, op string, owner tasks.Owner, id string, withOutcome bool) (tasks.Record, error) {
	cols := columns
	if withOutcome {
		cols += outcomeColumns
	}
	row := q.QueryRowContext(ctx, `SELECT `+cols+` FROM tasks WHERE id = ? AND owner = ?`, id, string(owner))
	rec, err := scanRecord(row, withOutcome)
	if errors.Is(err, sql.ErrNoRows) {
		return tasks.Record{}, notFound(op, id)
	}
	if err != nil {
		return tasks.Record{}, s.dbErr(op, id, err)
	}
	if rec.Expired(s.cfg.Now()) {
		return tasks.Record{}, expired(op, id)
	}
	return rec, nil
}

// fromStatuses lists the statuses a task may leave for to, as SQL
// placeholders' arguments.
func fromStatuses(to tasks.Status) []any {
	var out []any
	for _, st := range tasks.Statuses {
		if tasks.CanTransition(st, to) {
			out = append(out, string(st))
		}
	}
	return out
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// update runs one conditional UPDATE … RETURNING on a visible task of
// owner whose status is in from. It returns ok=false when no row matched.
func (s *Store) update(ctx context.Context, op string, owner tasks.Owner, id string, from []any, set string, setArgs ...any) (tasks.Record, bool, error) {
	if len(from) == 0 {
		return tasks.Record{}, false, nil
	}
	now := ms(s.cfg.Now())
	args := append([]any{}, setArgs...)
	args = append(args, now, id, string(owner))
	args = append(args, from...)
	args = append(args, now)
	row := s.writer.QueryRowContext(ctx, `UPDATE tasks SET `+set+`,
		updated_at = max(updated_at, ?), version = version + 1
		WHERE id = ? AND owner = ? AND status IN (`+placeholders(len(from))+`) AND `+visible+`
		RETURNING `+columns, args...)
	rec, err := scanRecord(row, false)
	if errors.Is(err, sql.ErrNoRows) {
		return tasks.Record{}, false, nil
	}
	if err != nil {
		return tasks.Record{}, false, s.dbErr(op, id, err)
	}
	s.notify.wake(id)
	return rec, true, nil
}

// maxRetries bounds how often a conditional update is retried when the
// row changed between the failed UPDATE and the read explaining why.
const maxRetries = 8

// Transition moves a task between working and input_required.
func (s *Store) Transition(ctx context.Context, owner tasks.Owner, id string, to tasks.Status, message string) (tasks.Record, error) {
	if err := s.begin(ctx, "transition"); err != nil {
		return tasks.Record{}, err
	}
	from := fromStatuses(to)
	if to.Terminal() {
		from = nil
	}
	for range maxRetries {
		rec, ok, err := s.update(ctx, "transition", owner, id, from,
			`status = ?, status_message = ?`, string(to), message)
		if err != nil || ok {
			return rec, err
		}
		cur, err := s.get(ctx, s.writer, "transition", owner, id, false)
		if err != nil {
			return tasks.Record{}, err
		}
		if err := storekit.CheckTransition(cur, to); err != nil {
			return tasks.Record{}, err
		}
	}
	return tasks.Record{}, &tasks.Error{Op: "transition", TaskID: id, Err: errors.New("sqlite: task kept changing; try again")}
}

// SetVariables merges patch into the task's variables inside one
// immediate transaction, using storekit.MergeVariables so the result and the
// size limit are exactly those of every other store.
func (s *Store) SetVariables(ctx context.Context, owner tasks.Owner, id string, patch map[string]json.RawMessage) (tasks.Record, error) {
	const op = "set variables"
	if err := s.begin(ctx, op); err != nil {
		return tasks.Record{}, err
	}
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return tasks.Record{}, s.dbErr(op, id, err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	cur, err := s.get(ctx, tx, op, owner, id, false)
	if err != nil {
		return tasks.Record{}, err
	}
	vars, err := storekit.MergeVariables(cur.Variables, patch, s.cfg.MaxVariablesBytes)
	if err != nil {
		return tasks.Record{}, &tasks.Error{Op: op, TaskID: id, Status: cur.Status, Err: err}
	}
	row := tx.QueryRowContext(ctx, `UPDATE tasks SET variables = ?,
		updated_at = max(updated_at, ?), version = version + 1
		WHERE id = ? RETURNING `+columns, variablesValue(vars), ms(s.cfg.Now()), id)
	rec, err := scanRecord(row, false)
	if err != nil {
		return tasks.Record{}, s.dbErr(op, id, err)
	}
	if err := tx.Commit(); err != nil {
		return tasks.Record{}, s.dbErr(op, id, err)
	}
	s.notify.wake(id)
	return rec, nil
}

// Complete ends the task as completed or failed and stores its outcome in
// the same UPDATE.
func (s *Store) Complete(ctx context.Context, owner tasks.Owner, id string, status tasks.Status, message string, outcome tasks.Outcome) (tasks.Record, error) {
	if err := s.begin(ctx, "complete"); err != nil {
		return tasks.Record{}, err
	}
	from := fromStatuses(status)
	// Errors that do not depend on the current status (wrong target, bad
	// outcome) skip the UPDATE; the read below reports them exactly as
	// CheckComplete words them, after the not-found check.
	if storekit.CheckComplete(tasks.Record{Status: tasks.StatusWorking}, status, outcome) != nil {
		from = nil
	}
	return s.finish(ctx, "complete", owner, id, from, status, message, outcome, func(cur tasks.Record) error {
		return storekit.CheckComplete(cur, status, outcome)
	})
}

// Cancel moves a non-terminal task to cancelled with the cancelled outcome.
func (s *Store) Cancel(ctx context.Context, owner tasks.Owner, id string, message string) (tasks.Record, error) {
	if err := s.begin(ctx, "cancel"); err != nil {
		return tasks.Record{}, err
	}
	return s.finish(ctx, "cancel", owner, id, fromStatuses(tasks.StatusCancelled), tasks.StatusCancelled, message,
		storekit.CancelledOutcome(message), func(cur tasks.Record) error {
			if !tasks.CanTransition(cur.Status, tasks.StatusCancelled) {
				return &tasks.Error{Op: "cancel", TaskID: id, Status: cur.Status,
					Target: tasks.StatusCancelled, Err: tasks.ErrInvalidTransition}
			}
			return nil
		})
}

// finish is the conditional terminal UPDATE shared by Complete and Cancel;
// check explains a failed attempt from the current record.
func (s *Store) finish(ctx context.Context, op string, owner tasks.Owner, id string, from []any, status tasks.Status, message string, o tasks.Outcome, check func(tasks.Record) error) (tasks.Record, error) {
	var result, code, msg, data any
	if len(o.Result) > 0 {
		result = []byte(o.Result)
	}
	if o.Error != nil {
		code, msg = o.Error.Code, o.Error.Message
		if len(o.Error.Data) > 0 {
			data = []byte(o.Error.Data)
		}
	}
	for range maxRetries {
		rec, ok, err := s.update(ctx, op, owner, id, from,
			`status = ?, status_message = ?, result = ?, err_code = ?, err_message = ?, err_data = ?`,
			string(status), message, result, code, msg, data)
		if err != nil || ok {
			return rec, err
		}
		cur, err := s.get(ctx, s.writer, op, owner, id, false)
		if err != nil {
			return tasks.Record{}, err
		}
		if err := check(cur); err != nil {
			return tasks.Record{}, err
		}
	}
	return tasks.Record{}, &tasks.Error{Op: op, TaskID: id, Err: errors.New("sqlite: task kept changing; try again")}
}

// Result returns the task with its outcome once it is terminal.
func (s *Store) Result(ctx context.Context, owner tasks.Owner, id string) (tasks.Record, error) {
	if err := s.begin(ctx, "result"); err != nil {
		return tasks.Record{}, err
	}
	rec, err := s.get(ctx, s.reader, "result", owner, id, true)
	if err != nil {
		return tasks.Record{}, err
	}
	if !rec.Status.Terminal() {
		return tasks.Record{}, &tasks.Error{Op: "result", TaskID: id, Status: rec.Status, Err: tasks.ErrNotReady}
	}
	return rec, nil
}

// List returns one page of the owner's visible tasks in (CreatedAt, ID)
// order, read with a keyset condition on the (owner, created_at, id) index
// so its cost does not grow with the number of tasks.
func (s *Store) List(ctx context.Context, owner tasks.Owner, opts tasks.ListOptions) (tasks.Page, error) {
	if err := s.begin(ctx, "list"); err != nil {
		return tasks.Page{}, err
	}
	after := storekit.Cursor{CreatedAt: time.UnixMilli(-1 << 62), ID: ""}
	if opts.Cursor != "" {
		c, err := storekit.DecodeCursor(opts.Cursor)
		if err != nil {
			return tasks.Page{}, err
		}
		after = c
	}
	limit := s.cfg.PageLimit(opts.Limit)
	rows, err := s.reader.QueryContext(ctx, `SELECT `+columns+` FROM tasks INDEXED BY tasks_owner_order
		WHERE owner = ? AND (created_at, id) > (?, ?) AND `+visible+`
		ORDER BY created_at, id LIMIT ?`,
		string(owner), ms(after.CreatedAt), after.ID, ms(s.cfg.Now()), limit+1)
	if err != nil {
		return tasks.Page{}, s.dbErr("list", "", err)
	}
	defer rows.Close()
	var page tasks.Page
	for rows.Next() {
		rec, err := scanRecord(rows, false)
		if err != nil {
			return tasks.Page{}, s.dbErr("list", "", err)
		}
		if len(page.Tasks) == limit {
			page.NextCursor = storekit.CursorOf(page.Tasks[len(page.Tasks)-1]).Encode()
			break
		}
		if page.Tasks == nil {
			page.Tasks = make([]tasks.Record, 0, limit)
		}
		page.Tasks = append(page.Tasks, rec)
	}
	if err := rows.Err(); err != nil {
		return tasks.Page{}, s.dbErr("list", "", err)
	}
	return page, nil
}

// DeleteExpired removes every expired task of every owner.
func (s *Store) DeleteExpired(ctx context.Context) (int, error) {
	if err := s.begin(ctx, "delete expired"); err != nil {
		return 0, err
	}
	rows, err := s.writer.QueryContext(ctx, `DELETE FROM tasks WHERE expires_at IS NOT NULL AND expires_at <= ? RETURNING id`,
		ms(s.cfg.Now()))
	if err != nil {
		return 0, s.dbErr("delete expired", "", err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, s.dbErr("delete expired", "", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Close(); err != nil {
		return 0, s.dbErr("delete expired", "", err)
	}
	if err := rows.Err(); err != nil {
		return 0, s.dbErr("delete expired", "", err)
	}
	for _, id := range ids {
		s.notify.wake(id)
	}
	return len(ids), nil
}

// Wait blocks until the task's Version exceeds after. Changes made through
// this Store wake it at once; it also rereads the row every
// Config.PollInterval, which catches other processes' writes and expiry.
func (s *Store) Wait(ctx context.Context, owner tasks.Owner, id string, after int64) (tasks.Record, error) {
	return storekit.Poller{
		Interval: s.cfg.PollInterval,
		Check:    func(ctx context.Context) error { return s.begin(ctx, "wait") },
		Read: func(ctx context.Context) (tasks.Record, error) {
			return s.get(ctx, s.reader, "wait", owner, id, false)
		},
		Watch: func() (<-chan struct{}, func()) { return s.notify.watch(id) },
		Done:  s.done,
	}.Wait(ctx, after)
}

// notifier hands out a channel per waited-on task that is closed when the
// task changes through this Store.
type notifier struct {
	mu      sync.Mutex
	waiters map[string]*waiter
}

type waiter struct {
	ch chan struct{}
	n  int
}

// watch returns the channel for id and a func to call when done with it.
func (n *notifier) watch(id string) (<-chan struct{}, func()) {
	n.mu.Lock()
	defer n.mu.Unlock()
	w := n.waiters[id]
	if w == nil {
		w = &waiter{ch: make(chan struct{})}
		n.waiters[id] = w
	}
	w.n++
	return w.ch, func() {
		n.mu.Lock()
		defer n.mu.Unlock()
		w.n--
		if w.n == 0 && n.waiters[id] == w {
			delete(n.waiters, id)
		}
	}
}

// wake closes id's channel, if anyone waits on it.
func (n *notifier) wake(id string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if w := n.waiters[id]; w != nil {
		close(w.ch)
		delete(n.waiters, id)
	}
}
