package dynamodb

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/mcptasks/mcptasks/tasks"
)

// The per-owner cap (Config.MaxTasksPerOwner) is kept in one item per
// owner, pk "owner#<owner>", whose string set "slots" names the tasks that
// hold a slot (each element is the task's created key, "<time>#<id>").
//
// Create, when a cap is set, takes three writes:
//  1. put the task marked pending: every read and write ignores it;
//  2. add its element to the owner's slots with the condition
//     size(slots) < cap — one conditional UpdateItem, so concurrent creates
//     can never hold more slots than the cap together;
//  3. remove the pending mark, which makes the task visible.
//
// If step 2 fails the pending task is deleted, so a refused create leaves
// nothing behind. Complete, Cancel and the lease reaper remove the task's
// element after winning their transition. Set operations are idempotent,
// so a slot is never given back twice.
//
// Expiry gives nothing back by itself (DynamoDB's TTL deletes items
// silently). Instead, when a create finds the set full it reconciles: it
// reads every task in the set (strongly consistent BatchGetItem) and
// removes the elements whose task is gone, terminal or expired — states a
// task never leaves — or is still pending after pendingGrace (its creator
// died between steps 2 and 3). Because the task is written before its
// slot is taken, a task in the set that cannot be found really is gone.
//
// Guarantee: an owner never holds more visible non-terminal tasks than the
// cap, whatever the concurrency and on AWS too (no index read is
// involved). The one exception is a creator stalled for longer than
// pendingGrace between steps 2 and 3. The set costs about 55 bytes per
// slot of the 400 KB item, hence MaxCapPerOwner.

// MaxCapPerOwner is the largest Config.MaxTasksPerOwner the store accepts.
const MaxCapPerOwner = 5000

// pendingGrace is how long a create may take between taking its slot and
// making its task visible before a reconciliation frees the slot.
const pendingGrace = time.Minute

// reserve takes a slot named slot in owner's set or fails with ErrLimit.
func (s *Store) reserve(ctx context.Context, owner tasks.Owner, slot string) error {
	limit := s.cfg.MaxTasksPerOwner
	cond := "attribute_not_exists(#slots) OR size(#slots) < :limit"
	for attempt := 0; attempt < 5; attempt++ {
		_, err := s.writer.UpdateItem(ctx, &ddb.UpdateItemInput{
			TableName:                aws.String(s.table),
			Key:                      ownerKey(owner),
			UpdateExpression:         aws.String("ADD #slots :slot"),
			ConditionExpression:      aws.String(cond),
			ExpressionAttributeNames: namesFor(cond),
			ExpressionAttributeValues: map[string]av{
				":slot":  &types.AttributeValueMemberSS{Value: []string{slot}},
				":limit": num(int64(limit)),
			},
		})
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

// release gives the slot back. Failures are only logged: the next
// reconciliation frees a slot whose task is terminal.
func (s *Store) release(ctx context.Context, owner tasks.Owner, slot string) {
	_, err := s.writer.UpdateItem(ctx, &ddb.UpdateItemInput{
		TableName:                 aws.String(s.table),
		Key:                       ownerKey(owner),
		UpdateExpression:          aws.String("DELETE #slots :slot"),
		ExpressionAttributeNames:  namesFor("#slots"),
		ExpressionAttributeValues: map[string]av{":slot": &types.AttributeValueMemberSS{Value: []string{slot}}},
	})
	if err != nil {
		s.log.Warn("dynamodb: could not release a task slot; the next reconciliation frees it", "owner", owner, "slot", slot, "err", err)
	}
}

// reconcile frees the slots of tasks that no longer hold one and reports
// whether a create should try again.
func (s *Store) reconcile(ctx context.Context, owner tasks.Owner) (bool, error) {
	out, err := s.client.GetItem(ctx, &ddb.GetItemInput{
		TableName:      aws.String(s.table),
		Key:            ownerKey(owner),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return false, backendErr("create", "", err)
	}
	var slots []string
	if v, ok := out.Item[attrSlots].(*types.AttributeValueMemberSS); ok {
		slots = v.Value
	}
	if len(slots) < s.cfg.MaxTasksPerOwner {
		return true, nil // a slot was freed meanwhile
	}
	items, err := s.batchGet(ctx, slots)
	if err != nil {
		return false, backendErr("create", "", err)
	}
	now := s.cfg.Now()
	var stale []string
	for _, slot := range slots {
		_, id, _ := strings.Cut(slot, "#")
		if holdsSlot(items[id], owner, now) {
			continue
		}
		stale = append(stale, slot)
	}
	if len(stale) == 0 {
		return false, nil
	}
	s.log.Info("dynamodb: freeing slots of ended or expired tasks", "owner", owner, "slots", len(slots), "freed", len(stale))
	_, err = s.writer.UpdateItem(ctx, &ddb.UpdateItemInput{
		TableName:                 aws.String(s.table),
		Key:                       ownerKey(owner),
		UpdateExpression:          aws.String("DELETE #slots :stale"),
		ExpressionAttributeNames:  namesFor("#slots"),
		ExpressionAttributeValues: map[string]av{":stale": &types.AttributeValueMemberSS{Value: stale}},
	})
	if err != nil {
		return false, backendErr("create", "", err)
	}
	return true, nil
}

// holdsSlot reports whether a task item (nil: missing) still takes one of
// owner's slots at now.
func holdsSlot(it map[string]av, owner tasks.Owner, now time.Time) bool {
	if it == nil {
		return false
	}
	getS := func(n string) string {
		v, _ := it[n].(*types.AttributeValueMemberS)
		if v == nil {
			return ""
		}
		return v.Value
	}
	getN := func(n string) (int64, bool) {
		v, _ := it[n].(*types.AttributeValueMemberN)
		if v == nil {
			return 0, false
		}
		x, err := strconv.ParseInt(v.Value, 10, 64)
		return x, err == nil
	}
	if tasks.Owner(getS(AttrOwner)) != owner || tasks.Status(getS(attrStatus)).Terminal() {
		return false
	}
	if exp, ok := getN(attrExpiresMS); ok && exp <= now.UnixMilli() {
		return false
	}
	if _, pending := it[attrPending]; pending {
		created, _ := getN(attrCreatedMS)
		return now.Sub(time.UnixMilli(created)) < pendingGrace
	}
	return true
}

// batchGet reads the tasks named by slots with strongly consistent
// BatchGetItem calls, keyed by task id.
func (s *Store) batchGet(ctx context.Context, slots []string) (map[string]map[string]av, error) {
	const proj = "#id, #owner, #status, #expires_ms, #pending, #created_ms"
	found := make(map[string]map[string]av, len(slots))
	for len(slots) > 0 {
		n := min(len(slots), 100)
		keys := make([]map[string]av, 0, n)
		for _, slot := range slots[:n] {
			_, id, _ := strings.Cut(slot, "#")
			keys = append(keys, taskKey(id))
		}
		slots = slots[n:]
		req := map[string]types.KeysAndAttributes{s.table: {
			Keys:                     keys,
			ConsistentRead:           aws.Bool(true),
			ProjectionExpression:     aws.String(proj),
			ExpressionAttributeNames: namesFor(proj),
		}}
		for attempt := 0; len(req) > 0; attempt++ {
			out, err := s.client.BatchGetItem(ctx, &ddb.BatchGetItemInput{RequestItems: req})
			if err != nil {
				return nil, err
			}
			for _, it := range out.Responses[s.table] {
				if v, ok := it[attrID].(*types.AttributeValueMemberS); ok {
					found[v.Value] = it
				}
			}
			req = out.UnprocessedKeys
			if len(req) > 0 {
				if err := backoff(ctx, attempt); err != nil {
					return nil, err
				}
			}
		}
	}
	return found, nil
}
