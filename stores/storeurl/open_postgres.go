package storeurl

import (
	"context"

	"github.com/mcptasks/mcptasks/stores/postgres"
	"github.com/mcptasks/mcptasks/tasks"
)

// openPostgres opens the PostgreSQL store. The spec is the DSN itself,
// postgres://USER[:PASSWORD]@HOST:PORT/DB?sslmode=disable (postgresql://
// too), with any parameter pgx understands, such as pool_max_conns. The
// schema is created or upgraded on open.
func openPostgres(ctx context.Context, spec string, cfg tasks.Config) (tasks.Store, error) {
	return postgres.Open(ctx, spec, cfg)
}
