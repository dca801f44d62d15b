package storeurl

import (
	"context"
	"errors"

	"github.com/mcptasks/mcptasks/tasks"
)

// openSQLite is replaced when the sqlite store lands.
func openSQLite(ctx context.Context, spec string, cfg tasks.Config) (tasks.Store, error) {
	return nil, errors.New("storeurl: the sqlite store is not built yet")
}
