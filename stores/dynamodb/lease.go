package dynamodb

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
)

// RenewLease sets the task's lease_ms to until with one conditional
// UpdateItem (owner, visible, non-terminal). The lease is bookkeeping, not
// a change a waiter cares about, so Version stays as it is. A terminal task
// makes it a no-op success.
func (s *Store) RenewLease(ctx context.Context, owner tasks.Owner, id string, until time.Time) error {
	const op = "renew lease"
	if err := s.check(ctx, op); err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		values := map[string]av{
			":owner": str(string(owner)),
			":now":   num(s.cfg.Now().UnixMilli()),
			":until": num(until.UnixMilli()),
		}
		cond := "#owner = :owner AND " + live + " AND " + statusIn(nonTerminal, values)
		values[":shard"] = str(dueShard(id))
		_, err := s.update(ctx, id, cond, []string{"#lease_ms = :until", "#lease_shard = :shard"}, nil, values)
		if err == nil {
			return nil
		}
		var cf *conditionFailed
		if !errors.As(err, &cf) {
			return backendErr(op, id, err)
		}
		cur, err := s.classify(ctx, op, owner, id, cf)
		if err != nil {
			return err
		}
		if cur.Status.Terminal() {
			return nil
		}
		if attempt >= maxAttempts {
			return &tasks.Error{Op: op, TaskID: id, Err: errors.New("dynamodb: the task kept changing; giving up")}
		}
	}
}

// ReapExpiredLeases ends as failed every visible non-terminal task whose
// lease lapsed at Config.Now(). It finds them in the sparse by_lease index
// (only non-terminal tasks with a lease are in it), so its cost is the
// lapsed leases, not the table. Each task is ended by the same conditional
// UpdateItem as Complete, also requiring the lease to still be lapsed, so
// a renewal that lands first wins and a task is never reaped twice.
func (s *Store) ReapExpiredLeases(ctx context.Context) (int, error) {
	const op = "reap expired leases"
	if err := s.check(ctx, op); err != nil {
		return 0, err
	}
	const lapsed = "#lease_ms <= :now"
	type victim struct {
		owner tasks.Owner
		id    string
	}
	var victims []victim
	err := s.due(ctx, LeaseIndex, AttrLeaseShard, AttrLeaseMS, s.cfg.Now().UnixMilli(), func(it map[string]av) error {
		id, _ := it[attrID].(*types.AttributeValueMemberS)
		owner, _ := it[AttrOwner].(*types.AttributeValueMemberS)
		if id != nil && owner != nil {
			victims = append(victims, victim{owner: tasks.Owner(owner.Value), id: id.Value})
		}
		return nil
	})
	if err != nil {
		return 0, backendErr(op, "", err)
	}
	n := 0
	lost := storekit.LostWorkerOutcome()
	for _, v := range victims {
		_, err := s.finish(ctx, op, v.owner, v.id, tasks.StatusFailed, lost.Error.Message, lost, lapsed, nil, func(tasks.Record) error {
			// Renewed, finished or gone meanwhile: not ours to reap.
			return errNotReaped
		})
		switch {
		case err == nil:
			n++
		case errors.Is(err, errNotReaped), errors.Is(err, tasks.ErrNotFound):
		default:
			return n, err
		}
	}
	return n, nil
}

var errNotReaped = errors.New("not reaped")
