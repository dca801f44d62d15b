package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/internal/testenv"
	"github.com/mcptasks/mcptasks/stores/internal/storetest"
	"github.com/mcptasks/mcptasks/tasks"
)

var benchCfg = tasks.Config{MaxTasksPerOwner: -1, DefaultTTL: tasks.Unlimited}

// TestMain stops what the tests started and removes the benchmark
// databases, which outlive any one benchmark.
func TestMain(m *testing.M) {
	code := testenv.Main(m)
	seededMu.Lock()
	for _, s := range seeded {
		s.Store.Close()
	}
	for _, d := range benchDirs {
		os.RemoveAll(d)
	}
	seededMu.Unlock()
	os.Exit(code)
}

var benchDirs []string

func mkdirTemp() (string, error) {
	d, err := os.MkdirTemp("", "mcptasks-sqlite-bench-")
	if err == nil {
		benchDirs = append(benchDirs, d)
	}
	return d, err
}

// seeded stores are built once per benchmark binary, keyed by task count.
var (
	seededMu sync.Mutex
	seeded   = map[int]*storetest.Seeded{}
)

// seed returns a store holding n tasks of one owner, inserted in a single
// transaction.
func seed(b *testing.B, n int) *storetest.Seeded {
	b.Helper()
	seededMu.Lock()
	defer seededMu.Unlock()
	if s := seeded[n]; s != nil {
		return s
	}
	ctx := context.Background()
	dir, err := mkdirTemp()
	if err != nil {
		b.Fatal(err)
	}
	st, err := Open(ctx, filepath.Join(dir, "bench.db"), benchCfg)
	if err != nil {
		b.Fatal(err)
	}
	owner := tasks.Owner(fmt.Sprintf("bench-%d", n))
	recs, err := storetest.SeedRecords(benchCfg, owner, n)
	if err != nil {
		b.Fatal(err)
	}
	tx, err := st.writer.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range recs {
		if err := insert(ctx, tx, r); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	s := storetest.NewSeeded(st, owner, recs)
	seeded[n] = s
	return s
}

func BenchmarkCreate(b *testing.B) {
	storetest.ForEachG(b, func(b *testing.B, g int) { storetest.BenchCreate(b, seed(b, 100_000).Store, g) })
}

func BenchmarkGet(b *testing.B) {
	storetest.ForEachG(b, func(b *testing.B, g int) { storetest.BenchGet(b, seed(b, 100_000), g) })
}

func BenchmarkTransition(b *testing.B) {
	storetest.ForEachG(b, func(b *testing.B, g int) { storetest.BenchTransition(b, seed(b, 100_000), g) })
}

// BenchmarkBareUpdate is the single conditional UPDATE a transition costs
// at least, without RETURNING or any Go around it: the yardstick for
// BenchmarkTransition.
func BenchmarkBareUpdate(b *testing.B) {
	storetest.ForEachG(b, func(b *testing.B, g int) {
		s := seed(b, 100_000)
		st := s.Store.(*Store)
		storetest.BenchFlip(b, s, g, func(ctx context.Context, id string, from, to tasks.Status) (bool, error) {
			res, err := st.writer.ExecContext(ctx, `UPDATE tasks SET status = ?, version = version + 1 WHERE id = ? AND status = ?`,
				string(to), id, string(from))
			if err != nil {
				return false, err
			}
			n, err := res.RowsAffected()
			return n == 1, err
		})
	})
}

// BenchmarkList reads a 50-task page at a random position among 1 000
// and among 100 000 tasks: the cost must not depend on the total.
func BenchmarkList(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("tasks=%d", n), func(b *testing.B) {
			storetest.ForEachG(b, func(b *testing.B, g int) { storetest.BenchList(b, seed(b, n), g) })
		})
	}
}

// BenchmarkRenewLease is what the engine adds per running task every
// third of a lease (and once per Start): one lease renewal among 100 000
// tasks.
func BenchmarkRenewLease(b *testing.B) {
	s := seed(b, 100_000)
	st := s.Store.(*Store)
	ctx := context.Background()
	var live []string
	for _, r := range s.Records {
		if !r.Status.Terminal() {
			live = append(live, r.ID)
		}
	}
	if len(live) == 0 {
		b.Fatal("no running task among the seeded ones")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		id := live[(i*7919)%len(live)]
		if err := st.RenewLease(ctx, s.Owner, id, benchCfg.Now().Add(time.Minute)); err != nil {
			b.Fatal(err)
		}
	}
}
