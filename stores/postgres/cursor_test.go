package postgres_test

import (
	"testing"

	"github.com/mcptasks/mcptasks/stores/internal/storetest"
	"github.com/mcptasks/mcptasks/tasks"
)

func openFresh(tb testing.TB, cfg tasks.Config) tasks.Store {
	s, _ := fresh(tb, cfg)
	return s
}

// TestCursorBounds covers the cursor at the latest accepted time (an
// empty page, as on every store; it used to wrap around to the first
// page here) and cursors with NUL bytes (an invalid cursor, -32602, where
// PostgreSQL used to refuse the query with an SQLSTATE).
func TestCursorBounds(t *testing.T)  { storetest.CursorBounds(t, openFresh) }
func TestServerCursors(t *testing.T) { storetest.ServerCursors(t, openFresh) }
