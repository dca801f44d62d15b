package certifystore_test

import (
	"os"
	"testing"

	"github.com/mcptasks/mcptasks/stores/memory"
	"github.com/mcptasks/mcptasks/suites"
	"github.com/mcptasks/mcptasks/tasks"
)

func TestMyStoreConforms(t *testing.T) {
	suites.RunStore(t, func(tb testing.TB, cfg tasks.Config) (tasks.Store, error) {
		return memory.New(cfg), nil // open a fresh, empty store of yours here, honouring cfg
	}, suites.WithImplementation("my-store", "v0.1.0"), suites.WithReportDir(os.Getenv("CONFORMANCE_REPORT_DIR")))
}
