package storeurl

import (
	"context"
	"errors"

	"github.com/mcptasks/mcptasks/tasks"
)

// openMemory is replaced when the memory store lands.
func openMemory(ctx context.Context, spec string, cfg tasks.Config) (tasks.Store, error) {
	return nil, errors.New("storeurl: the memory store is not built yet")
}
