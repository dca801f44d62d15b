package storeurl

import (
	"context"
	"errors"

	"github.com/mcptasks/mcptasks/tasks"
)

// openDynamoDB is replaced when the dynamodb store lands.
func openDynamoDB(ctx context.Context, spec string, cfg tasks.Config) (tasks.Store, error) {
	return nil, errors.New("storeurl: the dynamodb store is not built yet")
}
