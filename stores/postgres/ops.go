package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
)

// visibleAt opens the SQL condition "not expired at now"; callers append
// the now parameter and a closing parenthesis.
const visibleAt = "(expires_at IS NULL OR expires_at > "

func notFound(op, id string) error {
	return &tasks.Error{Op: op, TaskID: id, Err: tasks.ErrNotFound}
}

// read loads a task of owner by id, as Get sees it (full adds the outcome).
// A task of another owner is not found; an expired one is ErrExpired.
func (s *Store) read(ctx context.Context, op string, owner tasks.Owner, id string, now time.Time, full bool) (tasks.Record, error) {
	cols, r := viewColumns, row{}
	dest := r.viewDest()
	if full {
		cols, dest = fullColumns, r.fullDest()
	}
	err := s.pool.QueryRow(ctx, "SELECT "+cols+" FROM mcptasks_tasks WHERE id = $1 AND owner = $2", id, string(owner)).Scan(dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		return tasks.Record{}, notFound(op, id)
	}
	if err != nil {
		return tasks.Record{}, s.dbErr(ctx, op, id, err)
	}
	rec, err := r.record(full)
	if err != nil {
		return tasks.Record{}, s.dbErr(ctx, op, id, err)
	}
	if rec.Expired(now) {
		return tasks.Record{}, &tasks.Error{Op: op, TaskID: id, Err: tasks.ErrExpired}
	}
	return rec, nil
}

// Create stores a new working task for owner. With a task limit, the
// insert runs after a per-owner transaction advisory lock in the same
// implicit transaction (one round trip), and inserts nothing when the
// owner already holds the maximum number of visible active tasks.
func (s *Store) Create(ctx context.Context, owner tasks.Owner, p tasks.CreateParams) (tasks.Record, error) {
	if err := s.check(ctx, "create"); err != nil {
		return tasks.Record{}, err
	}
	rec, err := storekit.NewRecord(s.cfg, owner, p)
	if err != nil {
		return tasks.Record{}, err
	}
	if !storable(string(owner)) {
		return tasks.Record{}, &tasks.Error{Op: "create", Err: tasks.ErrInvalidParams,
			Detail: "the owner must be valid UTF-8 without NUL bytes"}
	}
	rec.Method, rec.StatusMessage = clean(rec.Method), clean(rec.StatusMessage)
	args := []any{rec.ID, string(rec.Owner), rec.Method, string(rec.Status), rec.StatusMessage,
		rec.CreatedAt, rec.LastUpdatedAt, nullableMS(rec.TTL), rec.PollInterval.Milliseconds(),
		nullableTime(rec.ExpiresAt), rec.Version, storekit.EncodeVariables(rec.Variables)}
	const insert = `INSERT INTO mcptasks_tasks
		(id, owner, method, status, status_message, created_at, updated_at, ttl_ms, poll_ms, expires_at, version, variables) `
	limit := s.cfg.MaxTasksPerOwner
	if limit <= 0 {
		if _, err := s.pool.Exec(ctx, insert+"VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)", args...); err != nil {
			return tasks.Record{}, s.dbErr(ctx, "create", "", err)
		}
		return rec, nil
	}
	b := &pgx.Batch{}
	b.Queue("SELECT pg_advisory_xact_lock($1, hashtext($2))", lockOwner, string(owner))
	b.Queue(insert+`SELECT $1::text, $2::text, $3::text, $4::text, $5::text, $6::timestamptz, $7::timestamptz,
			$8::bigint, $9::bigint, $10::timestamptz, $11::bigint, $12::bytea
		WHERE (SELECT count(*) FROM mcptasks_tasks
			WHERE owner = $2 AND status IN ('working', 'input_required') AND `+visibleAt+`$6)) < $13`,
		append(args, limit)...)
	br := s.pool.SendBatch(ctx, b)
	_, err = br.Exec()
	var n int64
	if err == nil {
		var tag interface{ RowsAffected() int64 }
		tag, err = br.Exec()
		if err == nil {
			n = tag.RowsAffected()
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return tasks.Record{}, s.dbErr(ctx, "create", "", err)
	}
	if n == 0 {
		return tasks.Record{}, &tasks.Error{Op: "create", Err: tasks.ErrLimit,
			Detail: "the owner already has the maximum number of active tasks"}
	}
	return rec, nil
}

// Get returns the task.
func (s *Store) Get(ctx context.Context, owner tasks.Owner, id string) (tasks.Record, error) {
	if err := s.checkTask(ctx, "get", owner, id); err != nil {
		return tasks.Record{}, err
	}
	return s.read(ctx, "get", owner, id, s.cfg.Now(), false)
}

// conditional runs one conditional UPDATE … RETURNING (sql, args) that
// changes the task only from an allowed status. When it changes nothing,
// the task is read to find out why: check turns the current record into
// the error to report. If check finds nothing wrong, the task moved into
// an allowed status meanwhile and the update is tried again.
func (s *Store) conditional(ctx context.Context, op string, owner tasks.Owner, id string, now time.Time,
	sql string, args []any, check func(tasks.Record) error) (tasks.Record, error) {
	for range 5 {
		if sql != "" {
			rec, err := scanView(s.pool.QueryRow(ctx, sql, args...))
			if err == nil {
				return rec, nil
			}
			if !errors.Is(err, pgx.ErrNoRows) {
				return tasks.Record{}, s.dbErr(ctx, op, id, err)
			}
		}
		cur, err := s.read(ctx, op, owner, id, now, false)
		if err != nil {
			return tasks.Record{}, err
		}
		if err := check(cur); err != nil {
			return tasks.Record{}, err
		}
		if sql == "" {
			break
		}
	}
	// Contention, not a refusal: like every other store, report an error
	// that is not ErrInvalidTransition, so a caller may try again.
	return tasks.Record{}, &tasks.Error{Op: op, TaskID: id, Err: errors.New("postgres: the task kept changing; try again")}
}

// Transition moves a task between working and input_required with one
// conditional UPDATE.
func (s *Store) Transition(ctx context.Context, owner tasks.Owner, id string, to tasks.Status, message string) (tasks.Record, error) {
	if err := s.checkTask(ctx, "transition", owner, id); err != nil {
		return tasks.Record{}, err
	}
	now := s.cfg.Now()
	var sql string
	var args []any
	// Between the two active statuses there is exactly one source status.
	if from := fromStatuses(to); !to.Terminal() && len(from) == 1 {
		sql = `UPDATE mcptasks_tasks
			SET status = $4, status_message = $5, version = version + 1, updated_at = GREATEST(updated_at, $6)
			WHERE id = $1 AND owner = $2 AND status = $3 AND ` + visibleAt + `$6)
			RETURNING ` + viewColumns
		args = []any{id, string(owner), from[0], string(to), clean(message), now}
	}
	return s.conditional(ctx, "transition", owner, id, now, sql, args,
		func(cur tasks.Record) error { return storekit.CheckTransition(cur, to) })
}

// finishSQL ends an active task with its outcome and drops its lease.
const finishSQL = `UPDATE mcptasks_tasks
	SET status = $3, status_message = $4, version = version + 1, updated_at = GREATEST(updated_at, $5),
		result = $6, error_code = $7, error_message = $8, error_data = $9, lease_until = NULL
	WHERE id = $1 AND owner = $2 AND status IN ('working', 'input_required') AND ` + visibleAt + `$5)
	RETURNING ` + viewColumns

func finishArgs(owner tasks.Owner, id string, status tasks.Status, message string, now time.Time, o tasks.Outcome) []any {
	res, code, msg, data := outcomeArgs(o)
	return []any{id, string(owner), string(status), clean(message), now, res, code, msg, data}
}

// Complete ends the task as completed or failed and stores its outcome in
// the same UPDATE.
func (s *Store) Complete(ctx context.Context, owner tasks.Owner, id string, status tasks.Status, message string, outcome tasks.Outcome) (tasks.Record, error) {
	if err := s.checkTask(ctx, "complete", owner, id); err != nil {
		return tasks.Record{}, err
	}
	now := s.cfg.Now()
	check := func(cur tasks.Record) error { return storekit.CheckComplete(cur, status, outcome) }
	var sql string
	var args []any
	// Only a valid target and outcome may reach the database; otherwise
	// the read below reports the error the memory store reports.
	if (status == tasks.StatusCompleted || status == tasks.StatusFailed) && storekit.CheckOutcome(outcome) == nil {
		sql, args = finishSQL, finishArgs(owner, id, status, message, now, outcome)
	}
	return s.conditional(ctx, "complete", owner, id, now, sql, args, check)
}

// Cancel moves a non-terminal task to cancelled with one conditional
// UPDATE that also stores the cancellation outcome.
func (s *Store) Cancel(ctx context.Context, owner tasks.Owner, id string, message string) (tasks.Record, error) {
	if err := s.checkTask(ctx, "cancel", owner, id); err != nil {
		return tasks.Record{}, err
	}
	now := s.cfg.Now()
	args := finishArgs(owner, id, tasks.StatusCancelled, message, now, storekit.CancelledOutcome(message))
	return s.conditional(ctx, "cancel", owner, id, now, finishSQL, args, func(cur tasks.Record) error {
		if !tasks.CanTransition(cur.Status, tasks.StatusCancelled) {
			return &tasks.Error{Op: "cancel", TaskID: id, Status: cur.Status,
				Target: tasks.StatusCancelled, Err: tasks.ErrInvalidTransition}
		}
		return nil
	})
}

// Result returns the task with its outcome once it is terminal.
func (s *Store) Result(ctx context.Context, owner tasks.Owner, id string) (tasks.Record, error) {
	if err := s.checkTask(ctx, "result", owner, id); err != nil {
		return tasks.Record{}, err
	}
	rec, err := s.read(ctx, "result", owner, id, s.cfg.Now(), true)
	if err != nil {
		return tasks.Record{}, err
	}
	if !rec.Status.Terminal() {
		return tasks.Record{}, &tasks.Error{Op: "result", TaskID: id, Status: rec.Status, Err: tasks.ErrNotReady}
	}
	return rec, nil
}

// SetVariables merges patch into the task's variables. The row is locked
// (SELECT … FOR UPDATE) for the read-merge-write, so concurrent merges
// never lose an update, and the merge is storekit.MergeVariables itself, so
// the result and the size check equal every other backend's.
func (s *Store) SetVariables(ctx context.Context, owner tasks.Owner, id string, patch map[string]json.RawMessage) (tasks.Record, error) {
	const op = "set variables"
	if err := s.checkTask(ctx, op, owner, id); err != nil {
		return tasks.Record{}, err
	}
	now := s.cfg.Now()
	var out tasks.Record
	var opErr error // a refusal, as opposed to a database failure
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		cur, err := scanView(tx.QueryRow(ctx, "SELECT "+viewColumns+" FROM mcptasks_tasks WHERE id = $1 AND owner = $2 FOR UPDATE", id, string(owner)))
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			opErr = notFound(op, id)
			return nil
		case err != nil:
			return err
		case cur.Expired(now):
			opErr = &tasks.Error{Op: op, TaskID: id, Err: tasks.ErrExpired}
			return nil
		}
		vars, err := storekit.MergeVariables(cur.Variables, patch, s.cfg.MaxVariablesBytes)
		if err != nil {
			opErr = &tasks.Error{Op: op, TaskID: id, Status: cur.Status, Err: err}
			return nil
		}
		out, err = scanView(tx.QueryRow(ctx, `UPDATE mcptasks_tasks
			SET variables = $2, version = version + 1, updated_at = GREATEST(updated_at, $3)
			WHERE id = $1 RETURNING `+viewColumns, id, storekit.EncodeVariables(vars), now))
		return err
	})
	if err != nil {
		return tasks.Record{}, s.dbErr(ctx, op, id, err)
	}
	if opErr != nil {
		return tasks.Record{}, opErr
	}
	return out, nil
}

// List returns one page of the owner's visible tasks in (created_at, id)
// order: a keyset range scan of the (owner, created_at, id) index, so a
// page costs the same whatever the owner's or the table's size.
func (s *Store) List(ctx context.Context, owner tasks.Owner, opts tasks.ListOptions) (tasks.Page, error) {
	if err := ctx.Err(); err != nil {
		return tasks.Page{}, err
	}
	after := storekit.Cursor{ID: ""} // before everything: ids are never empty
	hasCursor := opts.Cursor != ""
	if hasCursor {
		c, err := storekit.DecodeCursor(opts.Cursor)
		if err != nil {
			return tasks.Page{}, err
		}
		after = c
	}
	if err := s.check(ctx, "list"); err != nil {
		return tasks.Page{}, err
	}
	if !storable(string(owner)) {
		return tasks.Page{}, nil // no such owner can hold tasks
	}
	limit := s.cfg.PageLimit(opts.Limit)
	now := s.cfg.Now()
	var rows pgx.Rows
	var err error
	if hasCursor {
		rows, err = s.pool.Query(ctx, "SELECT "+viewColumns+` FROM mcptasks_tasks
			WHERE owner = $1 AND (created_at, id) > ($2, $3) AND `+visibleAt+`$4)
			ORDER BY created_at, id LIMIT $5`, string(owner), after.CreatedAt, after.ID, now, limit+1)
	} else {
		rows, err = s.pool.Query(ctx, "SELECT "+viewColumns+` FROM mcptasks_tasks
			WHERE owner = $1 AND `+visibleAt+`$2)
			ORDER BY created_at, id LIMIT $3`, string(owner), now, limit+1)
	}
	if err != nil {
		return tasks.Page{}, s.dbErr(ctx, "list", "", err)
	}
	recs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (tasks.Record, error) { return scanView(r) })
	if err != nil {
		return tasks.Page{}, s.dbErr(ctx, "list", "", err)
	}
	var page tasks.Page
	if len(recs) > limit {
		recs = recs[:limit]
		page.NextCursor = storekit.CursorOf(recs[limit-1]).Encode()
	}
	if len(recs) > 0 {
		page.Tasks = recs
	}
	return page, nil
}

// DeleteExpired removes every expired task of every owner with one DELETE
// and wakes all waiters so those waiting on a removed task end.
func (s *Store) DeleteExpired(ctx context.Context) (int, error) {
	if err := s.check(ctx, "delete expired"); err != nil {
		return 0, err
	}
	tag, err := s.pool.Exec(ctx, "DELETE FROM mcptasks_tasks WHERE expires_at <= $1", s.cfg.Now())
	if err != nil {
		return 0, s.dbErr(ctx, "delete expired", "", err)
	}
	n := int(tag.RowsAffected())
	if n > 0 {
		// Best effort: waiters poll anyway.
		_, _ = s.pool.Exec(ctx, "SELECT pg_notify($1, $2)", notifyChannel, notifyAll)
	}
	return n, nil
}
