package sqlite

import (
	"context"
	"time"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
)

var _ tasks.TTLExtender = (*Store)(nil)

// ExtendTTL lengthens a task's ttl (see tasks.TTLExtender) inside one
// immediate transaction.
func (s *Store) ExtendTTL(ctx context.Context, owner tasks.Owner, id string, ttl time.Duration) (tasks.Record, error) {
	const op = "extend ttl"
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
	ttl, change, err := storekit.CheckExtendTTL(s.cfg, cur, ttl)
	if err != nil {
		return tasks.Record{}, err
	}
	if !change {
		return cur, nil
	}
	row := tx.QueryRowContext(ctx, `UPDATE tasks SET ttl_ms = ?, expires_at = ?,
		updated_at = max(updated_at, ?), version = version + 1
		WHERE id = ? RETURNING `+columns, ttl.Milliseconds(), ms(cur.CreatedAt.Add(ttl)), ms(s.cfg.Now()), id)
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
