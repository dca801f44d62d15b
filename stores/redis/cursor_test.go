package redis_test

import (
	"testing"

	"github.com/mcptasks/mcptasks/stores/internal/storetest"
)

func TestCursorBounds(t *testing.T)  { storetest.CursorBounds(t, open) }
func TestServerCursors(t *testing.T) { storetest.ServerCursors(t, open) }
