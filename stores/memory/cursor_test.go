package memory_test

import (
	"testing"

	"github.com/mcptasks/mcptasks/stores/internal/storetest"
	"github.com/mcptasks/mcptasks/stores/memory"
	"github.com/mcptasks/mcptasks/tasks"
)

func openMemory(tb testing.TB, cfg tasks.Config) tasks.Store {
	s := memory.New(cfg)
	tb.Cleanup(func() { _ = s.Close() })
	return s
}

func TestCursorBounds(t *testing.T)  { storetest.CursorBounds(t, openMemory) }
func TestServerCursors(t *testing.T) { storetest.ServerCursors(t, openMemory) }
