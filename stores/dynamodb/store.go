// Package dynamodb is a tasks.Store and tasks.LeaseStore on Amazon
// DynamoDB (aws-sdk-go-v2), meant to be shared by many server instances.
//
// Layout: one item per task (partition key "task#<id>") holding status,
// message, timestamps, version, variables, outcome, expiry and lease; a
// global secondary index by_owner (owner, created_key) that List pages
// through; and two sparse, sharded indexes, by_expiry and by_lease, through
// which DeleteExpired and ReapExpiredLeases find due tasks without scanning
// the table. Every status change is one conditional UpdateItem whose
// condition names the owner, the allowed source statuses and "not
// expired", so of several racing writers exactly one wins; the SDK never
// retries writes except after throttling (which guarantees nothing was
// written). Expired tasks are filtered out of every read and removed by
// DeleteExpired or by DynamoDB's own TTL on expires_at.
//
// Limits of the design (see README_dynamodb.md): the indexes are eventually
// consistent on AWS, so a task created a moment ago may be missing from a
// list there (dynalite and DynamoDB Local are consistent); Wait polls at
// Config.PollInterval; the per-owner cap is kept in a slot set per owner
// (limit.go) and is exact without transactions.
package dynamodb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
)

// ErrClosed is returned by every method of a Store after Close.
var ErrClosed = fmt.Errorf("dynamodb: %w", tasks.ErrStoreClosed)

// MaxVariablesBytes is the largest variables size the store accepts: one
// DynamoDB item holds at most 400 KB, and the task's other attributes and
// its outcome need room beside the variables. A Config asking for more (or
// for no limit) gets this cap.
const MaxVariablesBytes = 256 << 10

// maxAttempts bounds the optimistic retry loops (a transition whose
// condition failed although a re-read says it is allowed; a variables
// merge that lost to a concurrent one).
const maxAttempts = 200

// Store is the DynamoDB tasks.Store. Create it with Open.
type Store struct {
	client    *ddb.Client
	table     string
	cfg       tasks.Config
	log       *slog.Logger
	nativeTTL bool
	// writer is client with writeRetryer: every write goes through it.
	writer *ddb.Client
	closed atomic.Bool

	// oldFromServer and oldFromRead count how conditional-write failures
	// were classified: from the item the server returned
	// (ReturnValuesOnConditionCheckFailure) or by a GetItem.
	oldFromServer, oldFromRead atomic.Int64
}

var (
	_ tasks.Store      = (*Store)(nil)
	_ tasks.LeaseStore = (*Store)(nil)
)

// Option configures a Store.
type Option func(*Store)

// WithLogger sets the logger for rare events (TTL unsupported, limit
// reconciliation). The default discards.
func WithLogger(l *slog.Logger) Option { return func(s *Store) { s.log = l } }

// WithNativeTTL chooses whether EnsureTable enables DynamoDB's TTL on
// expires_at (default true). Turn it off when the Config's clock is not the
// wall clock, since DynamoDB deletes by real time.
func WithNativeTTL(on bool) Option { return func(s *Store) { s.nativeTTL = on } }

// Open returns a store on table through client, enforcing cfg (defaults
// applied). It makes no request; call EnsureTable or CheckTable to create
// or verify the table.
func Open(ctx context.Context, client *ddb.Client, table string, cfg tasks.Config, opts ...Option) (*Store, error) {
	if client == nil {
		return nil, errors.New("dynamodb: nil client")
	}
	if table == "" {
		return nil, errors.New("dynamodb: empty table name")
	}
	cfg = cfg.WithDefaults()
	switch {
	case cfg.MaxVariablesBytes <= 0:
		cfg.MaxVariablesBytes = MaxVariablesBytes
	case cfg.MaxVariablesBytes > MaxVariablesBytes:
		return nil, fmt.Errorf("dynamodb: MaxVariablesBytes %d is more than one item can hold; at most %d", cfg.MaxVariablesBytes, MaxVariablesBytes)
	}
	if cfg.MaxTasksPerOwner > MaxCapPerOwner {
		return nil, fmt.Errorf("dynamodb: MaxTasksPerOwner %d is more than the store can track in one item; at most %d (or negative for no cap)", cfg.MaxTasksPerOwner, MaxCapPerOwner)
	}
	s := &Store{
		client:    client,
		table:     table,
		cfg:       cfg,
		log:       discardLogger,
		nativeTTL: true,
		writer: ddb.New(client.Options(), func(o *ddb.Options) {
			o.Retryer = writeRetryer()
			o.RetryMaxAttempts = 0
		}),
	}
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

// Table returns the name of the store's table.
func (s *Store) Table() string { return s.table }

// Close marks the store closed. The client is the caller's and stays
// open.
func (s *Store) Close() error {
	s.closed.Store(true)
	return nil
}

func (s *Store) check(ctx context.Context, op string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.closed.Load() {
		return &tasks.Error{Op: op, Err: ErrClosed}
	}
	return nil
}

func notFound(op, id string) error { return &tasks.Error{Op: op, TaskID: id, Err: tasks.ErrNotFound} }

func backendErr(op, id string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &tasks.Error{Op: op, TaskID: id, Err: fmt.Errorf("dynamodb: %w", err)}
}

// conditionFailed marks a conditional write whose condition did not
// hold; old is the item as the server saw it, when it sent it.
type conditionFailed struct{ old map[string]av }

func (*conditionFailed) Error() string { return "condition failed" }

// visibleRecord checks that an item is a task of owner that has not
// expired at now and decodes it.
func visibleRecord(op, id string, it map[string]av, owner tasks.Owner, now time.Time, withOutcome bool) (tasks.Record, error) {
	if len(it) == 0 {
		return tasks.Record{}, notFound(op, id)
	}
	r, err := decode(it, withOutcome)
	if err != nil {
		return tasks.Record{}, &tasks.Error{Op: op, TaskID: id, Err: err}
	}
	if _, pending := it[attrPending]; pending || r.Owner != owner || r.ID != id {
		return tasks.Record{}, notFound(op, id)
	}
	if r.Expired(now) {
		return tasks.Record{}, &tasks.Error{Op: op, TaskID: id, Err: tasks.ErrExpired}
	}
	return r, nil
}

// maxIDBytes bounds the task ids looked up: DynamoDB refuses partition
// keys over 2 KB with a validation error, and no id this store issues
// comes near it, so a longer one is simply not found.
const maxIDBytes = 1024

// load reads a visible task with a strongly consistent GetItem.
func (s *Store) load(ctx context.Context, op string, owner tasks.Owner, id string, withOutcome bool) (tasks.Record, error) {
	if len(id) > maxIDBytes {
		return tasks.Record{}, notFound(op, id)
	}
	proj := projection(withOutcome)
	out, err := s.client.GetItem(ctx, &ddb.GetItemInput{
		TableName:                aws.String(s.table),
		Key:                      taskKey(id),
		ConsistentRead:           aws.Bool(true),
		ProjectionExpression:     aws.String(proj),
		ExpressionAttributeNames: namesFor(proj),
	})
	if err != nil {
		return tasks.Record{}, backendErr(op, id, err)
	}
	return visibleRecord(op, id, out.Item, owner, s.cfg.Now(), withOutcome)
}

// classify re-reads a task after a failed conditional write, using the item
// the server returned with the failure when there is one. It returns the
// task as it is, or the error the caller should report (not found,
// expired).
func (s *Store) classify(ctx context.Context, op string, owner tasks.Owner, id string, cf *conditionFailed) (tasks.Record, error) {
	if len(cf.old) > 0 {
		s.oldFromServer.Add(1)
		return visibleRecord(op, id, cf.old, owner, s.cfg.Now(), false)
	}
	s.oldFromRead.Add(1)
	return s.load(ctx, op, owner, id, false)
}

// update runs one conditional UpdateItem on a task and returns the new
// item, or a *conditionFailed.
func (s *Store) update(ctx context.Context, id string, cond string, set, remove []string, values map[string]av) (map[string]av, error) {
	if len(id) > maxIDBytes {
		return nil, &conditionFailed{} // classified as not found by load
	}
	expr := updateExpr(set, remove)
	out, err := s.writer.UpdateItem(ctx, &ddb.UpdateItemInput{
		TableName:                           aws.String(s.table),
		Key:                                 taskKey(id),
		UpdateExpression:                    aws.String(expr),
		ConditionExpression:                 aws.String(cond),
		ExpressionAttributeNames:            namesFor(expr, cond),
		ExpressionAttributeValues:           values,
		ReturnValues:                        types.ReturnValueAllNew,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return nil, &conditionFailed{old: ccf.Item}
	}
	if err != nil {
		return nil, err
	}
	return out.Attributes, nil
}

// view decodes the item a write returned, without its outcome.
func view(op, id string, it map[string]av) (tasks.Record, error) {
	r, err := decode(it, false)
	if err != nil {
		return tasks.Record{}, &tasks.Error{Op: op, TaskID: id, Err: err}
	}
	return r, nil
}

// nonTerminal are the statuses a task can leave.
var nonTerminal = []tasks.Status{tasks.StatusWorking, tasks.StatusInputRequired}

// statusIn renders "#status IN (:from0, :from1)" and adds the values.
func statusIn(from []tasks.Status, values map[string]av) string {
	c := "#status IN ("
	for i, st := range from {
		k := fmt.Sprintf(":from%d", i)
		values[k] = str(string(st))
		if i > 0 {
			c += ", "
		}
		c += k
	}
	return c + ")"
}

// Create stores a new working task for owner, after reserving a slot in
// the owner's active-task counter.
func (s *Store) Create(ctx context.Context, owner tasks.Owner, p tasks.CreateParams) (tasks.Record, error) {
	if err := s.check(ctx, "create"); err != nil {
		return tasks.Record{}, err
	}
	rec, err := storekit.NewRecord(s.cfg, owner, p)
	if err != nil {
		return tasks.Record{}, err
	}
	item, err := encode(rec)
	if err != nil {
		return tasks.Record{}, &tasks.Error{Op: "create", Err: fmt.Errorf("%w: %v", tasks.ErrInvalidParams, err)}
	}
	if s.cfg.MaxTasksPerOwner <= 0 {
		if err := s.put(ctx, item); err != nil {
			return tasks.Record{}, backendErr("create", rec.ID, err)
		}
		return rec, nil
	}
	// Capped: put the task hidden, take a slot, then reveal it (limit.go).
	item[attrPending] = num(1)
	if err := s.put(ctx, item); err != nil {
		return tasks.Record{}, backendErr("create", rec.ID, err)
	}
	slot := createdKey(rec.CreatedAt, rec.ID)
	if err := s.reserve(ctx, owner, slot); err != nil {
		s.discard(context.WithoutCancel(ctx), rec.ID)
		return tasks.Record{}, err
	}
	_, err = s.writer.UpdateItem(ctx, &ddb.UpdateItemInput{
		TableName:                aws.String(s.table),
		Key:                      taskKey(rec.ID),
		UpdateExpression:         aws.String("REMOVE #pending"),
		ConditionExpression:      aws.String("attribute_exists(#pk)"),
		ExpressionAttributeNames: namesFor("#pending #pk"),
	})
	if err != nil {
		s.release(context.WithoutCancel(ctx), owner, slot)
		s.discard(context.WithoutCancel(ctx), rec.ID)
		return tasks.Record{}, backendErr("create", rec.ID, err)
	}
	return rec, nil
}

// put writes a new task item.
func (s *Store) put(ctx context.Context, item map[string]av) error {
	_, err := s.writer.PutItem(ctx, &ddb.PutItemInput{
		TableName:                aws.String(s.table),
		Item:                     item,
		ConditionExpression:      aws.String("attribute_not_exists(#pk)"),
		ExpressionAttributeNames: namesFor("#pk"),
	})
	return err
}

// discard deletes a task whose create failed. It only logs failures: a
// pending task is invisible anyway and expires with its TTL.
func (s *Store) discard(ctx context.Context, id string) {
	_, err := s.writer.DeleteItem(ctx, &ddb.DeleteItemInput{
		TableName: aws.String(s.table),
		Key:       taskKey(id),
	})
	if err != nil {
		s.log.Warn("dynamodb: could not delete the task of a failed create", "task", id, "err", err)
	}
}

// Get returns the task.
func (s *Store) Get(ctx context.Context, owner tasks.Owner, id string) (tasks.Record, error) {
	if err := s.check(ctx, "get"); err != nil {
		return tasks.Record{}, err
	}
	return s.load(ctx, "get", owner, id, false)
}

// Result returns the task with its outcome once it is terminal.
func (s *Store) Result(ctx context.Context, owner tasks.Owner, id string) (tasks.Record, error) {
	if err := s.check(ctx, "result"); err != nil {
		return tasks.Record{}, err
	}
	r, err := s.load(ctx, "result", owner, id, true)
	if err != nil {
		return tasks.Record{}, err
	}
	if !r.Status.Terminal() {
		return tasks.Record{}, &tasks.Error{Op: "result", TaskID: id, Status: r.Status, Err: tasks.ErrNotReady}
	}
	return r, nil
}

// Transition moves a task between working and input_required with one
// conditional UpdateItem.
func (s *Store) Transition(ctx context.Context, owner tasks.Owner, id string, to tasks.Status, message string) (tasks.Record, error) {
	const op = "transition"
	if err := s.check(ctx, op); err != nil {
		return tasks.Record{}, err
	}
	var from []tasks.Status
	if !to.Terminal() {
		for _, st := range nonTerminal {
			if tasks.CanTransition(st, to) {
				from = append(from, st)
			}
		}
	}
	if len(from) == 0 {
		// Never allowed: report it as the other stores do, after the
		// not-found and expiry checks.
		r, err := s.load(ctx, op, owner, id, false)
		if err != nil {
			return tasks.Record{}, err
		}
		return tasks.Record{}, storekit.CheckTransition(r, to)
	}
	return s.change(ctx, op, owner, id, from, to, message, nil, "", nil, func(r tasks.Record) error {
		return storekit.CheckTransition(r, to)
	})
}

// Complete ends a task as completed or failed and stores its outcome in
// the same conditional UpdateItem.
func (s *Store) Complete(ctx context.Context, owner tasks.Owner, id string, status tasks.Status, message string, outcome tasks.Outcome) (tasks.Record, error) {
	const op = "complete"
	if err := s.check(ctx, op); err != nil {
		return tasks.Record{}, err
	}
	if (status != tasks.StatusCompleted && status != tasks.StatusFailed) || storekit.CheckOutcome(outcome) != nil {
		r, err := s.load(ctx, op, owner, id, false)
		if err != nil {
			return tasks.Record{}, err
		}
		return tasks.Record{}, storekit.CheckComplete(r, status, outcome)
	}
	return s.finish(ctx, op, owner, id, status, message, outcome, "", nil, func(r tasks.Record) error {
		return storekit.CheckComplete(r, status, outcome)
	})
}

// Cancel moves a non-terminal task to cancelled.
func (s *Store) Cancel(ctx context.Context, owner tasks.Owner, id string, message string) (tasks.Record, error) {
	const op = "cancel"
	if err := s.check(ctx, op); err != nil {
		return tasks.Record{}, err
	}
	return s.finish(ctx, op, owner, id, tasks.StatusCancelled, message, storekit.CancelledOutcome(message), "", nil, func(r tasks.Record) error {
		if !tasks.CanTransition(r.Status, tasks.StatusCancelled) {
			return &tasks.Error{Op: op, TaskID: id, Status: r.Status, Target: tasks.StatusCancelled, Err: tasks.ErrInvalidTransition}
		}
		return nil
	})
}

// finish is change to a terminal status, storing the outcome, dropping the
// lease and freeing the owner's slot.
func (s *Store) finish(ctx context.Context, op string, owner tasks.Owner, id string, to tasks.Status, message string,
	o tasks.Outcome, extraCond string, extraValues map[string]av, recheck func(tasks.Record) error) (tasks.Record, error) {
	r, err := s.change(ctx, op, owner, id, nonTerminal, to, message, outcomeValues(o), extraCond, extraValues, recheck)
	if err == nil && s.cfg.MaxTasksPerOwner > 0 {
		s.release(context.WithoutCancel(ctx), owner, createdKey(r.CreatedAt, r.ID))
	}
	return r, err
}

// change is the one conditional UpdateItem behind every status change:
// the task must belong to owner, be visible, and be in one of from. When
// the condition fails, recheck (given the task as it now is) produces the
// error to report; if the re-read task would allow the change after all
// (it moved in between), the write is tried again.
func (s *Store) change(ctx context.Context, op string, owner tasks.Owner, id string, from []tasks.Status, to tasks.Status,
	message string, extra map[string]av, extraCond string, extraValues map[string]av, recheck func(tasks.Record) error) (tasks.Record, error) {
	for attempt := 0; ; attempt++ {
		values := map[string]av{
			":owner": str(string(owner)),
			":now":   num(s.cfg.Now().UnixMilli()),
			":to":    str(string(to)),
			":one":   num(1),
		}
		cond := "#owner = :owner AND " + live + " AND " + statusIn(from, values)
		if extraCond != "" {
			cond += " AND " + extraCond
		}
		for k, v := range extraValues {
			values[k] = v
		}
		set := []string{"#status = :to", "#updated_ms = :now", "#version = #version + :one"}
		var remove []string
		if message != "" {
			set = append(set, "#status_message = :msg")
			values[":msg"] = str(message)
		} else {
			remove = append(remove, "#status_message")
		}
		if to.Terminal() {
			remove = append(remove, "#"+AttrLeaseMS, "#"+AttrLeaseShard)
		}
		for name, v := range extra {
			set = append(set, "#"+name+" = :"+name)
			values[":"+name] = v
		}
		it, err := s.update(ctx, id, cond, set, remove, values)
		if err == nil {
			return view(op, id, it)
		}
		var cf *conditionFailed
		if !errors.As(err, &cf) {
			return tasks.Record{}, backendErr(op, id, err)
		}
		cur, err := s.classify(ctx, op, owner, id, cf)
		if err != nil {
			return tasks.Record{}, err
		}
		if err := recheck(cur); err != nil {
			return tasks.Record{}, err
		}
		if attempt >= maxAttempts {
			return tasks.Record{}, &tasks.Error{Op: op, TaskID: id, Err: errors.New("dynamodb: the task kept changing; giving up")}
		}
	}
}

// SetVariables merges patch into the task's variables. The merge is done
// here and written back with a condition on the version read, so a
// concurrent merge makes this one start over instead of being lost.
func (s *Store) SetVariables(ctx context.Context, owner tasks.Owner, id string, patch map[string]json.RawMessage) (tasks.Record, error) {
	const op = "set variables"
	if err := s.check(ctx, op); err != nil {
		return tasks.Record{}, err
	}
	for attempt := 0; ; attempt++ {
		cur, err := s.load(ctx, op, owner, id, false)
		if err != nil {
			return tasks.Record{}, err
		}
		vars, err := storekit.MergeVariables(cur.Variables, patch, s.cfg.MaxVariablesBytes)
		if err != nil {
			return tasks.Record{}, &tasks.Error{Op: op, TaskID: id, Status: cur.Status, Err: err}
		}
		values := map[string]av{
			":owner": str(string(owner)),
			":now":   num(s.cfg.Now().UnixMilli()),
			":ver":   num(cur.Version),
			":one":   num(1),
		}
		set := []string{"#updated_ms = :now", "#version = #version + :one"}
		var remove []string
		if len(vars) > 0 {
			set = append(set, "#variables = :vars")
			values[":vars"] = str(string(storekit.EncodeVariables(vars)))
		} else {
			remove = append(remove, "#variables")
		}
		cond := "#owner = :owner AND " + visible + " AND #version = :ver"
		it, err := s.update(ctx, id, cond, set, remove, values)
		if err == nil {
			return view(op, id, it)
		}
		var cf *conditionFailed
		if !errors.As(err, &cf) {
			return tasks.Record{}, backendErr(op, id, err)
		}
		if attempt >= maxAttempts {
			return tasks.Record{}, &tasks.Error{Op: op, TaskID: id, Err: errors.New("dynamodb: too many concurrent variable updates; giving up")}
		}
		if err := backoff(ctx, attempt); err != nil {
			return tasks.Record{}, err
		}
	}
}

// backoff sleeps a short random time that grows with attempt, so writers
// that keep colliding spread out.
func backoff(ctx context.Context, attempt int) error {
	d := time.Duration(rand.Int64N(int64(min(attempt+1, 20)) * int64(time.Millisecond)))
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// List returns one page of the owner's visible tasks from the by_owner
// index, in (CreatedAt, ID) order. The cursor is the last task's
// (CreatedAt, ID), which is its index sort key, so the next page starts
// with a key condition created_key > cursor and stays correct even if that
// task has since been deleted. The index is eventually consistent on AWS.
func (s *Store) List(ctx context.Context, owner tasks.Owner, opts tasks.ListOptions) (tasks.Page, error) {
	const op = "list"
	if err := s.check(ctx, op); err != nil {
		return tasks.Page{}, err
	}
	values := map[string]av{":owner": str(string(owner)), ":now": num(s.cfg.Now().UnixMilli())}
	keyCond := "#owner = :owner"
	if opts.Cursor != "" {
		c, err := storekit.DecodeCursor(opts.Cursor)
		if err != nil {
			return tasks.Page{}, err
		}
		keyCond += " AND #created_key > :after"
		values[":after"] = str(createdKey(c.CreatedAt, c.ID))
	}
	limit := s.cfg.PageLimit(opts.Limit)
	proj := projection(false)
	var (
		page  tasks.Page
		start map[string]av
	)
	for {
		out, err := s.client.Query(ctx, &ddb.QueryInput{
			TableName:                 aws.String(s.table),
			IndexName:                 aws.String(OwnerIndex),
			KeyConditionExpression:    aws.String(keyCond),
			FilterExpression:          aws.String(visible),
			ProjectionExpression:      aws.String(proj),
			ExpressionAttributeNames:  namesFor(keyCond, visible, proj),
			ExpressionAttributeValues: values,
			Limit:                     aws.Int32(int32(limit + 1 - len(page.Tasks))),
			ExclusiveStartKey:         start,
		})
		if err != nil {
			return tasks.Page{}, backendErr(op, "", err)
		}
		for _, it := range out.Items {
			r, err := decode(it, false)
			if err != nil {
				return tasks.Page{}, &tasks.Error{Op: op, Err: err}
			}
			page.Tasks = append(page.Tasks, r)
		}
		if len(page.Tasks) > limit {
			page.Tasks = page.Tasks[:limit]
			page.NextCursor = storekit.CursorOf(page.Tasks[limit-1]).Encode()
			return page, nil
		}
		if len(out.LastEvaluatedKey) == 0 {
			return page, nil
		}
		start = out.LastEvaluatedKey
	}
}

// Wait polls the task at Config.PollInterval until its Version exceeds
// after. DynamoDB has no change notification a store could block on.
func (s *Store) Wait(ctx context.Context, owner tasks.Owner, id string, after int64) (tasks.Record, error) {
	return storekit.Poller{
		Interval: s.cfg.PollInterval,
		Check:    func(ctx context.Context) error { return s.check(ctx, "wait") },
		Read: func(ctx context.Context) (tasks.Record, error) {
			return s.load(ctx, "wait", owner, id, false)
		},
	}.Wait(ctx, after)
}

// due calls fn for every item of a due-task index (ExpiryIndex or
// LeaseIndex) whose range key is at most now, shard by shard and page by
// page. Its cost is the due items, not the table. The indexes are
// eventually consistent on AWS, so an item that became due less than a
// moment ago may be found only by the next call.
func (s *Store) due(ctx context.Context, index, shardAttr, dueAttr string, now int64, fn func(map[string]av) error) error {
	keyCond := "#" + shardAttr + " = :shard AND #" + dueAttr + " <= :now"
	for shard := range DueShards {
		var start map[string]av
		for {
			out, err := s.client.Query(ctx, &ddb.QueryInput{
				TableName:                aws.String(s.table),
				IndexName:                aws.String(index),
				KeyConditionExpression:   aws.String(keyCond),
				ExpressionAttributeNames: namesFor(keyCond),
				ExpressionAttributeValues: map[string]av{
					":shard": str(strconv.Itoa(shard)),
					":now":   num(now),
				},
				ExclusiveStartKey: start,
			})
			if err != nil {
				return err
			}
			for _, it := range out.Items {
				if err := fn(it); err != nil {
					return err
				}
			}
			if len(out.LastEvaluatedKey) == 0 {
				break
			}
			start = out.LastEvaluatedKey
		}
	}
	return nil
}

// DeleteExpired removes every expired task: it reads the expired entries
// of the by_expiry index and deletes each task with a condition that it
// is still expired. On AWS the table's TTL does the same in the background
// for free; this is the way on servers without TTL and for callers that
// want expired tasks gone now.
func (s *Store) DeleteExpired(ctx context.Context) (int, error) {
	const op = "delete expired"
	if err := s.check(ctx, op); err != nil {
		return 0, err
	}
	now := s.cfg.Now().UnixMilli()
	values := map[string]av{":now": num(now)}
	const cond = "#expires_ms <= :now"
	n := 0
	err := s.due(ctx, ExpiryIndex, AttrExpiryShard, AttrExpiresMS, now, func(it map[string]av) error {
		_, err := s.writer.DeleteItem(ctx, &ddb.DeleteItemInput{
			TableName:                 aws.String(s.table),
			Key:                       map[string]av{AttrPK: it[AttrPK]},
			ConditionExpression:       aws.String(cond),
			ExpressionAttributeNames:  namesFor(cond),
			ExpressionAttributeValues: values,
		})
		var ccf *types.ConditionalCheckFailedException
		switch {
		case errors.As(err, &ccf):
			return nil // already gone
		case err != nil:
			return err
		}
		n++
		return nil
	})
	if err != nil {
		return n, backendErr(op, "", err)
	}
	return n, nil
}
