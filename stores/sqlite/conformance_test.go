package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mcptasks/mcptasks/stores/sqlite"
	"github.com/mcptasks/mcptasks/suites"
	"github.com/mcptasks/mcptasks/tasks"
)

func TestConformance(t *testing.T) {
	suites.RunStore(t, func(tb testing.TB, cfg tasks.Config) (tasks.Store, error) {
		return sqlite.Open(context.Background(), filepath.Join(tb.TempDir(), "tasks.db"), cfg)
	}, suites.WithImplementation("sqlite", "dev"))
}
