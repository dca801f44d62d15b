package dynamodb_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/mcptasks/mcptasks/internal/testenv"
	"github.com/mcptasks/mcptasks/stores/dynamodb"
	"github.com/mcptasks/mcptasks/tasks"
)

// TestConditionFailureClassification: a lost transition is classified from
// the item DynamoDB Local returns with the failure
// (ReturnValuesOnConditionCheckFailure), and by a GetItem on dynalite,
// which ignores that parameter. Either way the error is right.
func TestConditionFailureClassification(t *testing.T) {
	_, kind := client(t)
	s := newStore(t, tasks.Config{Clock: fakeClock()})
	ctx := ctxT(t)
	r, _ := s.Create(ctx, "o", tasks.CreateParams{})
	if _, err := s.Cancel(ctx, "o", r.ID, ""); err != nil {
		t.Fatal(err)
	}
	_, err := s.Complete(ctx, "o", r.ID, tasks.StatusCompleted, "", tasks.Outcome{Result: json.RawMessage(`1`)})
	var te *tasks.Error
	if !errors.As(err, &te) || !errors.Is(err, tasks.ErrInvalidTransition) || te.Status != tasks.StatusCancelled {
		t.Fatalf("complete of cancelled task: %v", err)
	}
	if _, err := s.Cancel(ctx, "intruder", r.ID, ""); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("cancel by another owner: %v", err)
	}
	server, read := s.ClassifiedFrom()
	t.Logf("%s: classified %d failures from the returned item, %d by GetItem", kind, server, read)
	switch kind {
	case testenv.KindDynamoDBLocal:
		if server != 2 || read != 0 {
			t.Fatalf("DynamoDB Local returns the old item on a failed condition: want 2 from the server, got %d (and %d reads)", server, read)
		}
	case testenv.KindDynalite:
		if server != 0 || read != 2 {
			t.Fatalf("dynalite ignores ReturnValuesOnConditionCheckFailure: want 2 GetItem fallbacks, got %d (and %d from the server)", read, server)
		}
	}
}

// TestNativeTTL: EnsureTable enables TTL where the server has it, is
// idempotent, and on DynamoDB Local the server itself deletes an expired
// task (dynalite has no TTL: the test is skipped there, as not supported).
func TestNativeTTL(t *testing.T) {
	c, kind := client(t)
	s := newStore(t, tasks.Config{})
	ctx := ctxT(t)
	if err := s.EnsureTable(ctx); err != nil {
		t.Fatalf("second EnsureTable: %v", err)
	}
	if kind != testenv.KindDynamoDBLocal {
		t.Skipf("not supported by %s: no TTL API; expiry relies on read filtering and DeleteExpired (run with %s=local)", kind, testenv.EnvDynamoDB)
	}
	d, err := c.DescribeTimeToLive(ctx, &ddb.DescribeTimeToLiveInput{TableName: aws.String(s.Table())})
	if err != nil {
		t.Fatal(err)
	}
	if d.TimeToLiveDescription.TimeToLiveStatus != types.TimeToLiveStatusEnabled || aws.ToString(d.TimeToLiveDescription.AttributeName) != dynamodb.AttrExpiresAt {
		t.Fatalf("TTL = %+v", d.TimeToLiveDescription)
	}
	ttl := time.Second
	r, err := s.Create(ctx, "o", tasks.CreateParams{TTL: &ttl})
	if err != nil {
		t.Fatal(err)
	}
	// DynamoDB Local 3.3.1 never TTL-deletes an item that lacks the key of
	// one of the table's indexes (a sparse index entry), which AWS does;
	// a task holding a lease has the keys of every index.
	if err := s.RenewLease(ctx, "o", r.ID, r.ExpiresAt.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		out, err := c.GetItem(ctx, &ddb.GetItemInput{
			TableName:      aws.String(s.Table()),
			Key:            map[string]types.AttributeValue{dynamodb.AttrPK: &types.AttributeValueMemberS{Value: "task#" + r.ID}},
			ConsistentRead: aws.Bool(true),
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Item) == 0 {
			t.Logf("DynamoDB Local deleted the expired item after %s", time.Since(r.CreatedAt).Round(time.Millisecond))
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("expired item still stored %s after its expiry", time.Since(r.ExpiresAt))
		}
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// TestCheckTable: a table without the index is refused with a clear
// message, and a missing table too.
func TestCheckTable(t *testing.T) {
	c, _ := client(t)
	ctx := context.Background()
	name := tableName(t)
	def := dynamodb.TableDefinition(name)
	def.GlobalSecondaryIndexes = nil
	def.AttributeDefinitions = def.AttributeDefinitions[:1]
	if _, err := c.CreateTable(ctx, def); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = c.DeleteTable(context.Background(), &ddb.DeleteTableInput{TableName: &name}) })
	s, err := dynamodb.Open(ctx, c, name, tasks.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.EnsureTable(ctx); err == nil {
		t.Fatal("EnsureTable accepted a table without the owner index")
	}
	missing, _ := dynamodb.Open(ctx, c, tableName(t), tasks.Config{})
	if err := missing.CheckTable(ctx); err == nil {
		t.Fatal("CheckTable accepted a missing table")
	}
}

// TestEnsureTableConcurrent: instances starting together may all create
// the table and enable TTL; every one of them must come up.
func TestEnsureTableConcurrent(t *testing.T) {
	c, _ := client(t)
	ctx := ctxT(t)
	name := tableName(t)
	t.Cleanup(func() { _, _ = c.DeleteTable(context.Background(), &ddb.DeleteTableInput{TableName: &name}) })
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			s, err := dynamodb.Open(ctx, c, name, tasks.Config{})
			if err == nil {
				err = s.EnsureTable(ctx)
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Errorf("concurrent EnsureTable: %v", err)
		}
	}
}
