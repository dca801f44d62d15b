package dynamodb

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// Table layout. The deploy/dynamodb templates must declare exactly these
// names; a test checks them against TableDefinition.
const (
	// AttrPK is the table's partition key: "task#<id>" for a task,
	// "owner#<owner>" for an owner's active-task counter.
	AttrPK = "pk"
	// AttrOwner is the owner of a task, the hash key of OwnerIndex. Counter
	// items do not carry it, so the index holds tasks only.
	AttrOwner = "owner"
	// AttrCreatedKey sorts an owner's tasks in list order: the creation
	// time in milliseconds as 16 order-preserving hex digits, "#", the id.
	AttrCreatedKey = "created_key"
	// AttrExpiresAt is the TTL attribute: epoch seconds at which DynamoDB
	// may delete the task (rounded up from the millisecond expiry).
	AttrExpiresAt = "expires_at"
	// OwnerIndex is the global secondary index List queries.
	OwnerIndex = "by_owner"

	// AttrExpiresMS is the task's expiry in epoch milliseconds, the range
	// key of ExpiryIndex (absent for tasks that never expire).
	AttrExpiresMS = "expires_ms"
	// AttrExpiryShard spreads ExpiryIndex over DueShards partitions: a
	// digit from the task id's hash, set on tasks that expire.
	AttrExpiryShard = "expiry_shard"
	// ExpiryIndex (expiry_shard, expires_ms), keys only, lets
	// DeleteExpired find expired tasks without scanning the table.
	ExpiryIndex = "by_expiry"

	// AttrLeaseMS is the end of the task's work lease in epoch
	// milliseconds, the range key of LeaseIndex.
	AttrLeaseMS = "lease_ms"
	// AttrLeaseShard spreads LeaseIndex like AttrExpiryShard. It is set
	// while a non-terminal task holds a lease and removed when the task
	// ends, so the index only holds tasks the reaper may have to end.
	AttrLeaseShard = "lease_shard"
	// LeaseIndex (lease_shard, lease_ms), with id and owner, lets
	// ReapExpiredLeases find lapsed leases without scanning the table.
	LeaseIndex = "by_lease"

	// DueShards is the number of partitions of ExpiryIndex and LeaseIndex;
	// each query for due tasks reads every shard. It is part of the stored
	// layout: changing it strands items in shards no longer read.
	DueShards = 8
)

// Other attributes of a task item.
const (
	attrID         = "id"
	attrStatus     = "status"
	attrMessage    = "status_message"
	attrMethod     = "method"
	attrCreatedMS  = "created_ms"
	attrUpdatedMS  = "updated_ms"
	attrTTLMS      = "ttl_ms"
	attrExpiresMS  = "expires_ms"
	attrPollMS     = "poll_ms"
	attrVersion    = "version"
	attrVariables  = "variables"
	attrResult     = "result"
	attrErrCode    = "error_code"
	attrErrMessage = "error_message"
	attrErrData    = "error_data"
	attrLeaseMS    = AttrLeaseMS
	attrPending    = "pending"
	// owner items
	attrSlots = "slots"
)

// TableDefinition returns the CreateTable request EnsureTable sends for
// table: on-demand billing, partition key pk, the by_owner index (owner,
// created_key) projecting every attribute for List, and the two sparse
// indexes the cleanup jobs query, by_expiry (keys only) and by_lease (with
// id and owner). The TTL on expires_at is enabled separately, as DynamoDB
// requires.
func TableDefinition(table string) *ddb.CreateTableInput {
	key := func(name string, t types.KeyType) types.KeySchemaElement {
		return types.KeySchemaElement{AttributeName: aws.String(name), KeyType: t}
	}
	attr := func(name string, t types.ScalarAttributeType) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(name), AttributeType: t}
	}
	return &ddb.CreateTableInput{
		TableName:   aws.String(table),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			attr(AttrPK, types.ScalarAttributeTypeS),
			attr(AttrOwner, types.ScalarAttributeTypeS),
			attr(AttrCreatedKey, types.ScalarAttributeTypeS),
			attr(AttrExpiryShard, types.ScalarAttributeTypeS),
			attr(AttrExpiresMS, types.ScalarAttributeTypeN),
			attr(AttrLeaseShard, types.ScalarAttributeTypeS),
			attr(AttrLeaseMS, types.ScalarAttributeTypeN),
		},
		KeySchema: []types.KeySchemaElement{key(AttrPK, types.KeyTypeHash)},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
			{
				IndexName:  aws.String(OwnerIndex),
				KeySchema:  []types.KeySchemaElement{key(AttrOwner, types.KeyTypeHash), key(AttrCreatedKey, types.KeyTypeRange)},
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
			},
			{
				IndexName:  aws.String(ExpiryIndex),
				KeySchema:  []types.KeySchemaElement{key(AttrExpiryShard, types.KeyTypeHash), key(AttrExpiresMS, types.KeyTypeRange)},
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
			},
			{
				IndexName: aws.String(LeaseIndex),
				KeySchema: []types.KeySchemaElement{key(AttrLeaseShard, types.KeyTypeHash), key(AttrLeaseMS, types.KeyTypeRange)},
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude,
					NonKeyAttributes: []string{attrID, AttrOwner}},
			},
		},
	}
}

// EnsureTable creates the store's table with its index if it does not
// exist, waits until it is active, checks that an existing table has the
// expected keys, and enables TTL on expires_at unless the store was opened
// WithNativeTTL(false). It is idempotent. Servers that do not implement
// the TTL API (dynalite) are tolerated: expired tasks are then removed only
// by DeleteExpired, and every read hides them either way.
func (s *Store) EnsureTable(ctx context.Context) error {
	_, err := s.client.CreateTable(ctx, TableDefinition(s.table))
	var inUse *types.ResourceInUseException
	if err != nil && !errors.As(err, &inUse) {
		return fmt.Errorf("dynamodb: create table %s: %w", s.table, err)
	}
	w := ddb.NewTableExistsWaiter(s.client, func(o *ddb.TableExistsWaiterOptions) {
		o.MinDelay = 50 * time.Millisecond
		o.MaxDelay = 2 * time.Second
	})
	if err := w.Wait(ctx, &ddb.DescribeTableInput{TableName: aws.String(s.table)}, 5*time.Minute); err != nil {
		return fmt.Errorf("dynamodb: wait for table %s: %w", s.table, err)
	}
	if err := s.CheckTable(ctx); err != nil {
		return err
	}
	if !s.nativeTTL {
		return nil
	}
	return s.enableTTL(ctx)
}

// enableTTL turns on native expiry on expires_at unless it is already on.
func (s *Store) enableTTL(ctx context.Context) error {
	d, err := s.client.DescribeTimeToLive(ctx, &ddb.DescribeTimeToLiveInput{TableName: aws.String(s.table)})
	if unsupported(err) {
		s.log.Info("dynamodb: server has no TTL support; expired tasks are removed by DeleteExpired only", "table", s.table)
		return nil
	}
	if err != nil {
		return fmt.Errorf("dynamodb: describe TTL of %s: %w", s.table, err)
	}
	if t := d.TimeToLiveDescription; t != nil {
		switch t.TimeToLiveStatus {
		case types.TimeToLiveStatusEnabled, types.TimeToLiveStatusEnabling:
			if aws.ToString(t.AttributeName) != AttrExpiresAt {
				return fmt.Errorf("dynamodb: table %s has TTL on %q, the store needs it on %q", s.table, aws.ToString(t.AttributeName), AttrExpiresAt)
			}
			return nil
		}
	}
	_, err = s.client.UpdateTimeToLive(ctx, &ddb.UpdateTimeToLiveInput{
		TableName: aws.String(s.table),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{
			AttributeName: aws.String(AttrExpiresAt),
			Enabled:       aws.Bool(true),
		},
	})
	switch {
	case unsupported(err):
		s.log.Info("dynamodb: server has no TTL support; expired tasks are removed by DeleteExpired only", "table", s.table)
	case err != nil:
		// Another instance may have enabled it meanwhile (DynamoDB then
		// refuses a second change for a while): fine if it is ours.
		d, derr := s.client.DescribeTimeToLive(ctx, &ddb.DescribeTimeToLiveInput{TableName: aws.String(s.table)})
		if derr == nil && d.TimeToLiveDescription != nil && aws.ToString(d.TimeToLiveDescription.AttributeName) == AttrExpiresAt &&
			(d.TimeToLiveDescription.TimeToLiveStatus == types.TimeToLiveStatusEnabled || d.TimeToLiveDescription.TimeToLiveStatus == types.TimeToLiveStatusEnabling) {
			return nil
		}
		return fmt.Errorf("dynamodb: enable TTL on %s: %w", s.table, err)
	}
	return nil
}

// unsupported reports whether err says the server does not implement the
// operation (dynalite answers UnknownOperationException for the TTL API).
func unsupported(err error) bool {
	var api smithy.APIError
	if !errors.As(err, &api) {
		return false
	}
	switch api.ErrorCode() {
	case "UnknownOperationException", "UnrecognizedClientException", "NotImplemented", "InvalidAction":
		return true
	}
	return false
}

// CheckTable verifies that the table exists and has the key schema and
// index the store needs, so a misconfigured table fails at start-up with a
// clear message instead of on the first request.
func (s *Store) CheckTable(ctx context.Context) error {
	d, err := s.client.DescribeTable(ctx, &ddb.DescribeTableInput{TableName: aws.String(s.table)})
	var nf *types.ResourceNotFoundException
	if errors.As(err, &nf) {
		return fmt.Errorf("dynamodb: table %s does not exist: create it with deploy/dynamodb or EnsureTable (storeurl: &create=1)", s.table)
	}
	if err != nil {
		return fmt.Errorf("dynamodb: describe table %s: %w", s.table, err)
	}
	want := TableDefinition(s.table)
	t := d.Table
	if !sameKeys(t.KeySchema, want.KeySchema) {
		return fmt.Errorf("dynamodb: table %s has key schema %s, want %s", s.table, keysString(t.KeySchema), keysString(want.KeySchema))
	}
	for _, w := range want.GlobalSecondaryIndexes {
		name := aws.ToString(w.IndexName)
		i := slices.IndexFunc(t.GlobalSecondaryIndexes, func(g types.GlobalSecondaryIndexDescription) bool {
			return aws.ToString(g.IndexName) == name
		})
		if i < 0 {
			return fmt.Errorf("dynamodb: table %s has no global secondary index %s (see deploy/dynamodb)", s.table, name)
		}
		g := t.GlobalSecondaryIndexes[i]
		if !sameKeys(g.KeySchema, w.KeySchema) {
			return fmt.Errorf("dynamodb: index %s of table %s has keys %s, want %s", name, s.table, keysString(g.KeySchema), keysString(w.KeySchema))
		}
		if g.Projection == nil || !projects(g.Projection, w.Projection) {
			return fmt.Errorf("dynamodb: index %s of table %s must project %s %v", name, s.table, w.Projection.ProjectionType, w.Projection.NonKeyAttributes)
		}
	}
	return nil
}

// projects reports whether an index projection has is enough for want.
func projects(has, want *types.Projection) bool {
	switch {
	case has.ProjectionType == types.ProjectionTypeAll:
		return true
	case want.ProjectionType == types.ProjectionTypeAll:
		return false
	}
	for _, a := range want.NonKeyAttributes {
		if !slices.Contains(has.NonKeyAttributes, a) {
			return false
		}
	}
	return true
}

func sameKeys(a, b []types.KeySchemaElement) bool {
	return slices.EqualFunc(a, b, func(x, y types.KeySchemaElement) bool {
		return aws.ToString(x.AttributeName) == aws.ToString(y.AttributeName) && x.KeyType == y.KeyType
	})
}

func keysString(ks []types.KeySchemaElement) string {
	s := "("
	for i, k := range ks {
		if i > 0 {
			s += ", "
		}
		s += aws.ToString(k.AttributeName) + " " + string(k.KeyType)
	}
	return s + ")"
}

// discardLogger is the default logger: the store logs nothing unless
// given one.
var discardLogger = slog.New(slog.DiscardHandler)
