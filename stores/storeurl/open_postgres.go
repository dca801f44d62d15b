package storeurl

import (
	"context"
	"errors"

	"github.com/mcptasks/mcptasks/tasks"
)

// openPostgres is replaced when the postgres store lands.
func openPostgres(ctx context.Context, spec string, cfg tasks.Config) (tasks.Store, error) {
	return nil, errors.New("storeurl: the postgres store is not built yet")
}
