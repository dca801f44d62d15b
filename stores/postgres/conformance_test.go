package postgres_test

import (
	"context"
	"testing"

	"github.com/mcptasks/mcptasks/internal/testenv"
	"github.com/mcptasks/mcptasks/stores/postgres"
	"github.com/mcptasks/mcptasks/suites"
	"github.com/mcptasks/mcptasks/tasks"
)

// TestConformance runs the whole store suite against real PostgreSQL, a
// fresh database per spec.
func TestConformance(t *testing.T) {
	suites.RunStore(t, func(tb testing.TB, cfg tasks.Config) (tasks.Store, error) {
		return postgres.Open(context.Background(), testenv.Postgres(tb), cfg)
	}, suites.WithImplementation("postgres", "dev"))
}
