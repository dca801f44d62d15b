package dynamodb

import (
	"context"
	"errors"
	"time"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
)

var _ tasks.TTLExtender = (*Store)(nil)

// ExtendTTL lengthens a task's ttl (see tasks.TTLExtender). The check is
// made on the item as read and the write is conditional on its version,
// so a concurrent change (an end of the task included) makes it start
// over.
func (s *Store) ExtendTTL(ctx context.Context, owner tasks.Owner, id string, ttl time.Duration) (tasks.Record, error) {
	const op = "extend ttl"
	if err := s.check(ctx, op); err != nil {
		return tasks.Record{}, err
	}
	for attempt := 0; ; attempt++ {
		cur, err := s.load(ctx, op, owner, id, false)
		if err != nil {
			return tasks.Record{}, err
		}
		newTTL, change, err := storekit.CheckExtendTTL(s.cfg, cur, ttl)
		if err != nil {
			return tasks.Record{}, err
		}
		if !change {
			return cur, nil
		}
		exp := cur.CreatedAt.Add(newTTL)
		values := map[string]av{
			":owner":  str(string(owner)),
			":now":    num(s.cfg.Now().UnixMilli()),
			":ver":    num(cur.Version),
			":one":    num(1),
			":ttl":    num(newTTL.Milliseconds()),
			":expms":  num(exp.UnixMilli()),
			":expsec": num(expiresEpoch(exp)),
		}
		set := []string{"#updated_ms = :now", "#version = #version + :one",
			"#" + attrTTLMS + " = :ttl", "#" + attrExpiresMS + " = :expms", "#" + AttrExpiresAt + " = :expsec"}
		cond := "#owner = :owner AND " + visible + " AND #version = :ver"
		it, err := s.update(ctx, id, cond, set, nil, values)
		if err == nil {
			return view(op, id, it)
		}
		var cf *conditionFailed
		if !errors.As(err, &cf) {
			return tasks.Record{}, backendErr(op, id, err)
		}
		if attempt >= maxAttempts {
			return tasks.Record{}, &tasks.Error{Op: op, TaskID: id, Err: errors.New("dynamodb: the task kept changing; giving up")}
		}
		if err := backoff(ctx, attempt); err != nil {
			return tasks.Record{}, err
		}
	}
}
