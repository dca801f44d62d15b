package storeurl

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcptasks/mcptasks/stores/sqlite"
	"github.com/mcptasks/mcptasks/tasks"
)

// openSQLite opens the SQLite store at the path after "sqlite:" (a
// leading "//" is allowed, as in sqlite:///var/lib/tasks.db).
func openSQLite(ctx context.Context, spec string, cfg tasks.Config) (tasks.Store, error) {
	path := strings.TrimPrefix(spec, "sqlite:")
	path = strings.TrimPrefix(path, "//")
	if path == "" {
		return nil, fmt.Errorf("storeurl: %q names no database file: want sqlite:PATH", spec)
	}
	st, err := sqlite.Open(ctx, path, cfg)
	if err != nil {
		return nil, fmt.Errorf("storeurl: %w", err)
	}
	return st, nil
}
