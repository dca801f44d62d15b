package storeurl

import (
	"context"

	"github.com/mcptasks/mcptasks/stores/dynamodb"
	"github.com/mcptasks/mcptasks/tasks"
)

// openDynamoDB opens the DynamoDB store from
// dynamodb://TABLE?endpoint=URL&region=REGION; add create=1 to create the
// table (with its index and TTL) when it does not exist. Without endpoint
// the AWS SDK's usual region and credential sources apply.
func openDynamoDB(ctx context.Context, spec string, cfg tasks.Config) (tasks.Store, error) {
	return dynamodb.OpenURL(ctx, spec, cfg)
}
