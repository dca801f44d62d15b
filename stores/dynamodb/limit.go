package dynamodb

import (
	"context"
	"errors"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/mcptasks/mcptasks/tasks"
)

// The per-owner cap (Config.MaxTasksPerOwner) uses one counter item per
// owner, pk "owner#<owner>", attribute active:
//
//   - Create first adds one to active with the condition active < cap (one
//     conditional UpdateItem, so concurrent creates never pass the cap
//     together), then puts the task; if the put fails it gives the slot
//     back.
//   - Complete, Cancel and the lease reaper give one back after winning
//     their transition.
//   - Expiry never gives a slot back (DynamoDB's TTL deletes items without
//     telling anyone), so the counter can run high. When a create finds the
//     counter at the cap, it recounts the owner's visible non-terminal
//     tasks through the by_owner index and, if that count is lower, stores
//     it with a condition that the counter did not move meanwhile
//     (reconcile). A crash between the two writes of a create or a finish
//     is healed the same way.
//
// What this guarantees: with no expired task in the owner's history the
// cap is exact under any concurrency. A reconciliation ignores creates
// whose counter step is done but whose task is not yet written (or, on
// AWS, not yet in the eventually consistent index), so at the moment a
// reconciliation runs the cap can be exceeded by at most the number of
// such creates in flight. Exactness in every case would need a
// transaction over the counter and the task (TransactWriteItems), which
// dynalite does not implement.

// reserve takes a slot in owner's counter or fails with ErrLimit.
func (s *Store) reserve(ctx context.Context, owner tasks.Owner) error {
	limit := s.cfg.MaxTasksPerOwner
	for attempt := 0; attempt < 5; attempt++ {
		cond := "attribute_not_exists(#active) OR #active < :limit"
		_, err := s.client.UpdateItem(ctx, &ddb.UpdateItemInput{
			TableName:                aws.String(s.table),
			Key:                      ownerKey(owner),
			UpdateExpression:         aws.String("ADD #active :one"),
			ConditionExpression:      aws.String(cond),
			ExpressionAttributeNames: namesFor(cond),
			ExpressionAttributeValues: map[string]av{
				":one":   num(1),
				":limit": num(int64(limit)),
			},
		}, s.writes)
		var ccf *types.ConditionalCheckFailedException
		if err == nil {
			return nil
		}
		if !errors.As(err, &ccf) {
			return backendErr("create", "", err)
		}
		freed, err := s.reconcile(ctx, owner)
		if err != nil {
			return err
		}
		if !freed {
			break
		}
	}
	return &tasks.Error{Op: "create", Err: tasks.ErrLimit,
		Detail: "the owner already has the maximum number of active tasks"}
}

// release gives a slot back. It never takes the counter below zero.
// Failures are logged only: a counter that stays high is corrected by the
// next reconciliation.
func (s *Store) release(ctx context.Context, owner tasks.Owner) {
	const cond = "#active > :zero"
	_, err := s.client.UpdateItem(ctx, &ddb.UpdateItemInput{
		TableName:                 aws.String(s.table),
		Key:                       ownerKey(owner),
		UpdateExpression:          aws.String("ADD #active :minus"),
		ConditionExpression:       aws.String(cond),
		ExpressionAttributeNames:  namesFor(cond),
		ExpressionAttributeValues: map[string]av{":minus": num(-1), ":zero": num(0)},
	}, s.writes)
	var ccf *types.ConditionalCheckFailedException
	if err != nil && !errors.As(err, &ccf) {
		s.log.Warn("dynamodb: could not release a task slot; the next reconciliation corrects it", "owner", owner, "err", err)
	}
}

// reconcile recounts owner's active tasks and lowers the counter to the
// count if the counter is still what it read. It reports whether a create
// should try again.
func (s *Store) reconcile(ctx context.Context, owner tasks.Owner) (bool, error) {
	out, err := s.client.GetItem(ctx, &ddb.GetItemInput{
		TableName:      aws.String(s.table),
		Key:            ownerKey(owner),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return false, backendErr("create", "", err)
	}
	var seen int64
	if v, ok := out.Item[attrActive].(*types.AttributeValueMemberN); ok {
		seen, _ = strconv.ParseInt(v.Value, 10, 64)
	}
	if seen < int64(s.cfg.MaxTasksPerOwner) {
		return true, nil // a slot was freed meanwhile
	}
	actual, err := s.countActive(ctx, owner)
	if err != nil {
		return false, backendErr("create", "", err)
	}
	if actual < seen {
		s.log.Info("dynamodb: reconciling an owner's task counter", "owner", owner, "counter", seen, "active", actual)
		const cond = "#active = :seen"
		_, err = s.client.UpdateItem(ctx, &ddb.UpdateItemInput{
			TableName:                 aws.String(s.table),
			Key:                       ownerKey(owner),
			UpdateExpression:          aws.String("SET #active = :actual"),
			ConditionExpression:       aws.String(cond),
			ExpressionAttributeNames:  namesFor(cond),
			ExpressionAttributeValues: map[string]av{":seen": num(seen), ":actual": num(actual)},
		}, s.writes)
		var ccf *types.ConditionalCheckFailedException
		if err != nil && !errors.As(err, &ccf) {
			return false, backendErr("create", "", err)
		}
	}
	return actual < int64(s.cfg.MaxTasksPerOwner), nil
}

// countActive counts owner's visible non-terminal tasks in the by_owner
// index.
func (s *Store) countActive(ctx context.Context, owner tasks.Owner) (int64, error) {
	values := map[string]av{
		":owner": str(string(owner)),
		":now":   num(s.cfg.Now().UnixMilli()),
	}
	keyCond := "#owner = :owner"
	filter := visible + " AND " + statusIn(nonTerminal, values)
	var (
		n     int64
		start map[string]av
	)
	for {
		out, err := s.client.Query(ctx, &ddb.QueryInput{
			TableName:                 aws.String(s.table),
			IndexName:                 aws.String(OwnerIndex),
			KeyConditionExpression:    aws.String(keyCond),
			FilterExpression:          aws.String(filter),
			ExpressionAttributeNames:  namesFor(keyCond, filter),
			ExpressionAttributeValues: values,
			Select:                    types.SelectCount,
			ExclusiveStartKey:         start,
		})
		if err != nil {
			return 0, err
		}
		n += int64(out.Count)
		if len(out.LastEvaluatedKey) == 0 {
			return n, nil
		}
		start = out.LastEvaluatedKey
	}
}
