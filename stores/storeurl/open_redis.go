package storeurl

import (
	"context"
	"errors"

	"github.com/mcptasks/mcptasks/tasks"
)

// openRedis is replaced when the redis store lands.
func openRedis(ctx context.Context, spec string, cfg tasks.Config) (tasks.Store, error) {
	return nil, errors.New("storeurl: the redis store is not built yet")
}
