package sqlite

import (
	"context"
	"time"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
)

var _ tasks.LeaseStore = (*Store)(nil)

// RenewLease records that the task's work is alive until until. Like a
// shared store's lease it is bookkeeping: Version does not change and no
// waiter wakes. On a terminal task it is a no-op success.
func (s *Store) RenewLease(ctx context.Context, owner tasks.Owner, id string, until time.Time) error {
	const op = "renew lease"
	if err := s.begin(ctx, op); err != nil {
		return err
	}
	now := ms(s.cfg.Now())
	res, err := s.writer.ExecContext(ctx, `UPDATE tasks SET lease_until = ?
		WHERE id = ? AND owner = ? AND status IN ('working', 'input_required') AND `+visible,
		ms(until), id, string(owner), now)
	if err != nil {
		return s.dbErr(op, id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return s.dbErr(op, id, err)
	} else if n == 1 {
		return nil
	}
	// Not renewed: unknown, expired or terminal. Only the last is fine.
	_, err = s.get(ctx, s.writer, op, owner, id, false)
	return err
}

// ReapExpiredLeases ends, in one UPDATE, every visible non-terminal task
// whose lease lapsed at Config.Now() as failed with
// storekit.LostWorkerOutcome, freeing its owner's slot, and wakes the waiters
// of those tasks in this process.
func (s *Store) ReapExpiredLeases(ctx context.Context) (int, error) {
	const op = "reap expired leases"
	if err := s.begin(ctx, op); err != nil {
		return 0, err
	}
	return s.reap(ctx, op)
}

func (s *Store) reap(ctx context.Context, op string) (int, error) {
	now := ms(s.cfg.Now())
	o := storekit.LostWorkerOutcome()
	rows, err := s.writer.QueryContext(ctx, `UPDATE tasks SET status = 'failed', status_message = ?,
		result = NULL, err_code = ?, err_message = ?, err_data = NULL, lease_until = NULL,
		updated_at = max(updated_at, ?), version = version + 1
		WHERE lease_until IS NOT NULL AND lease_until <= ?
			AND status IN ('working', 'input_required') AND `+visible+`
		RETURNING id`,
		o.Error.Message, o.Error.Code, o.Error.Message, now, now, now)
	if err != nil {
		return 0, s.dbErr(op, "", err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, s.dbErr(op, "", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Close(); err != nil {
		return 0, s.dbErr(op, "", err)
	}
	if err := rows.Err(); err != nil {
		return 0, s.dbErr(op, "", err)
	}
	for _, id := range ids {
		s.notify.wake(id)
	}
	return len(ids), nil
}
