package memory_test

import (
	"testing"

	"github.com/mcptasks/mcptasks/stores/memory"
	"github.com/mcptasks/mcptasks/suites"
	"github.com/mcptasks/mcptasks/tasks"
)

func TestConformance(t *testing.T) {
	suites.RunStore(t, func(tb testing.TB, cfg tasks.Config) (tasks.Store, error) {
		return memory.New(cfg), nil
	}, suites.WithImplementation("memory", "dev"))
}
