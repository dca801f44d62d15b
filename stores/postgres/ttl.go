package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
)

var _ tasks.TTLExtender = (*Store)(nil)

// ExtendTTL lengthens a task's ttl (see tasks.TTLExtender). The row is
// locked for the check and the update, so the check sees the status the
// update changes.
func (s *Store) ExtendTTL(ctx context.Context, owner tasks.Owner, id string, ttl time.Duration) (tasks.Record, error) {
	const op = "extend ttl"
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
		newTTL, change, err := storekit.CheckExtendTTL(s.cfg, cur, ttl)
		if err != nil {
			opErr = err
			return nil
		}
		if !change {
			out = cur
			return nil
		}
		out, err = scanView(tx.QueryRow(ctx, `UPDATE mcptasks_tasks
			SET ttl_ms = $2, expires_at = $3, version = version + 1, updated_at = GREATEST(updated_at, $4)
			WHERE id = $1 RETURNING `+viewColumns, id, newTTL.Milliseconds(), cur.CreatedAt.Add(newTTL), now))
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
