package postgres

import (
	"context"
	"time"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
)

// RenewLease records that the task's work is alive until until. It does
// not change the task's Version: a lease is bookkeeping, not a change a
// requestor sees.
func (s *Store) RenewLease(ctx context.Context, owner tasks.Owner, id string, until time.Time) error {
	const op = "renew lease"
	if err := s.checkTask(ctx, op, owner, id); err != nil {
		return err
	}
	now := s.cfg.Now()
	tag, err := s.pool.Exec(ctx, `UPDATE mcptasks_tasks SET lease_until = $3
		WHERE id = $1 AND owner = $2 AND status IN ('working', 'input_required') AND `+visibleAt+`$4)`,
		id, string(owner), until.UTC(), now)
	if err != nil {
		return s.dbErr(ctx, op, id, err)
	}
	if tag.RowsAffected() == 1 {
		return nil
	}
	// Not renewed: unknown, expired or terminal. Only the last is fine.
	_, err = s.read(ctx, op, owner, id, now, false)
	return err
}

// ReapExpiredLeases ends, with one UPDATE, every visible non-terminal task
// whose lease has lapsed (lease_until <= now) as failed with
// storekit.LostWorkerOutcome. The status change notifies waiters like any
// other terminal change.
func (s *Store) ReapExpiredLeases(ctx context.Context) (int, error) {
	const op = "reap expired leases"
	if err := s.check(ctx, op); err != nil {
		return 0, err
	}
	now := s.cfg.Now()
	o := storekit.LostWorkerOutcome()
	res, code, msg, data := outcomeArgs(o)
	tag, err := s.pool.Exec(ctx, `UPDATE mcptasks_tasks
		SET status = 'failed', status_message = $2, version = version + 1, updated_at = GREATEST(updated_at, $1),
			result = $3, error_code = $4, error_message = $5, error_data = $6, lease_until = NULL
		WHERE lease_until IS NOT NULL AND lease_until <= $1
			AND status IN ('working', 'input_required') AND `+visibleAt+`$1)`,
		now, o.Error.Message, res, code, msg, data)
	if err != nil {
		return 0, s.dbErr(ctx, op, "", err)
	}
	return int(tag.RowsAffected()), nil
}
