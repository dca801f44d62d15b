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
	attrLeaseMS    = "lease_ms"
	attrPending    = "pending"
	// owner items
	attrSlots = "slots"
)

// TableDefinition returns the CreateTable request EnsureTable sends for
// table: on-demand billing, partition key pk, and the by_owner index
// (owner, created_key) projecting every attribute. The TTL on expires_at
// is enabled separately, as DynamoDB requires.
func TableDefinition(table string) *ddb.CreateTableInput {
	return &ddb.CreateTableInput{
		TableName:   aws.String(table),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String(AttrPK), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String(AttrOwner), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String(AttrCreatedKey), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(AttrPK), KeyType: types.KeyTypeHash},
		},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName: aws.String(OwnerIndex),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String(AttrOwner), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String(AttrCreatedKey), KeyType: types.KeyTypeRange},
			},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
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
	for _, g := range t.GlobalSecondaryIndexes {
		if aws.ToString(g.IndexName) != OwnerIndex {
			continue
		}
		if !sameKeys(g.KeySchema, want.GlobalSecondaryIndexes[0].KeySchema) {
			return fmt.Errorf("dynamodb: index %s of table %s has keys %s, want %s", OwnerIndex, s.table,
				keysString(g.KeySchema), keysString(want.GlobalSecondaryIndexes[0].KeySchema))
		}
		if g.Projection == nil || g.Projection.ProjectionType != types.ProjectionTypeAll {
			return fmt.Errorf("dynamodb: index %s of table %s must project ALL attributes", OwnerIndex, s.table)
		}
		return nil
	}
	return fmt.Errorf("dynamodb: table %s has no global secondary index %s", s.table, OwnerIndex)
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
