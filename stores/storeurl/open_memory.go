package storeurl

import (
	"context"
	"fmt"

	"github.com/mcptasks/mcptasks/stores/memory"
	"github.com/mcptasks/mcptasks/tasks"
)

// openMemory opens a fresh, empty in-memory store. The spec takes no
// options: "memory" (or "memory:").
func openMemory(_ context.Context, spec string, cfg tasks.Config) (tasks.Store, error) {
	if spec != "memory" && spec != "memory:" {
		return nil, fmt.Errorf("storeurl: the memory store takes no options, got %q", spec)
	}
	return memory.New(cfg), nil
}
