package dynamodb_test

import (
	"testing"

	"github.com/mcptasks/mcptasks/stores/internal/storetest"
	"github.com/mcptasks/mcptasks/tasks"
)

func openTable(tb testing.TB, cfg tasks.Config) tasks.Store { return newStore(tb, cfg) }

func TestCursorBounds(t *testing.T)  { storetest.CursorBounds(t, openTable) }
func TestServerCursors(t *testing.T) { storetest.ServerCursors(t, openTable) }
