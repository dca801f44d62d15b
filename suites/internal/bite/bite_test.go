// Package bite_test proves the store suite catches broken stores: each
// deliberately broken store runs through every store spec and must fail
// the requirements it breaks, while the memory store passes them all.
package bite_test

import (
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/mcptasks/mcptasks/stores/memory"
	"github.com/mcptasks/mcptasks/suites"
	"github.com/mcptasks/mcptasks/suites/internal/suitetest"
	"github.com/mcptasks/mcptasks/tasks"
)

// factory adapts a constructor to a suites.StoreFactory.
func factory(open func(tasks.Config) tasks.Store) suites.StoreFactory {
	return func(_ testing.TB, cfg tasks.Config) (tasks.Store, error) { return open(cfg), nil }
}

func run(open func(tasks.Config) tasks.Store) types.Report {
	return suitetest.Run(func() {
		suites.DescribeStore(factory(open), suites.WithWaitLatency(time.Second))
	}, nil)
}

func TestSuiteBites(t *testing.T) {
	baseline := run(func(cfg tasks.Config) tasks.Store { return memory.New(cfg) })
	if failed := suitetest.Failed(baseline); len(failed) > 0 {
		t.Fatalf("the memory store fails %v; the broken-store results would mean nothing", keys(failed))
	}
	tests := []struct {
		name string
		open func(tasks.Config) tasks.Store
		want []string
	}{
		{"terminal tasks move back to working", newReopen, []string{"TASKS-LIFE-005", "TASKS-CANCEL-004"}},
		{"Get ignores the owner", newOwnerBlindGet, []string{"TASKS-SEC-006", "TASKS-SEC-001"}},
		{"tasks never expire", newNeverExpires, []string{"TASKS-TTL-005", "MCPT-TTL-006", "MCPT-TTL-007", "TASKS-RSRC-003"}},
		{"List crosses owners", newLeakyList, []string{"TASKS-SEC-007"}},
		{"Complete is not atomic", newSplitComplete, []string{"MCPT-RES-001"}},
		{"variable writes overwrite each other", newLostUpdate, []string{"MCPT-CONC-002"}},
		{"Complete checks then acts", newCheckThenAct, []string{"MCPT-CONC-001"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			failed := suitetest.Failed(run(tt.open))
			for _, id := range tt.want {
				if _, ok := failed[id]; !ok {
					t.Errorf("the suite did not fail %s; it failed %v", id, keys(failed))
				}
			}
			t.Logf("failed requirements: %s", strings.Join(keys(failed), ", "))
		})
	}
}

func keys(m map[string][]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
