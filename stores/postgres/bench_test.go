package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/mcptasks/mcptasks/internal/testenv"
	"github.com/mcptasks/mcptasks/stores/postgres"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
)

// Seeded data for the benchmarks.
const (
	benchBig    = 100_000 // tasks of owner "big"
	benchSmall  = 1_000   // tasks of owner "small"
	benchToggle = 16_000  // working tasks of owner "tx", toggled by Transition and the bare UPDATE
	benchChunks = 16      // disjoint slices of the toggle tasks, one per goroutine
)

// bareUpdate is the single conditional statement a transition needs at
// the least, without the store's checks, owner filter and full RETURNING.
const bareUpdate = `UPDATE mcptasks_tasks SET status = $3, status_message = $4, version = version + 1, updated_at = $5
	WHERE id = $1 AND status = ANY($2) RETURNING version`

type benchEnv struct {
	s          *postgres.Store
	big, small []storekit.Cursor // list order
	toggle     []string
	toggleIn   []bool // toggle[i] is in input_required; slot i is used by one goroutine at a time
	chunk      atomic.Int64
}

// seedBench copies the seed rows into a fresh database with COPY.
func seedBench(b *testing.B) *benchEnv {
	b.Helper()
	dsn := testenv.Postgres(b)
	ctx := context.Background()
	cfg := tasks.Config{DefaultTTL: tasks.Unlimited}
	env := &benchEnv{s: open(b, dsn, cfg, postgres.WithMaxConns(16))}
	base := time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)
	var rows [][]any
	add := func(owner string, n int, status tasks.Status) []storekit.Cursor {
		out := make([]storekit.Cursor, n)
		for i := range n {
			id := uuid.NewString()
			at := base.Add(time.Duration(i) * time.Millisecond)
			out[i] = storekit.Cursor{CreatedAt: at, ID: id}
			rows = append(rows, []any{id, owner, "tools/call", string(status), "", at, at, nil, int64(1000), nil, int64(1), nil})
		}
		return out
	}
	env.big = add("big", benchBig, tasks.StatusCompleted)
	env.small = add("small", benchSmall, tasks.StatusCompleted)
	for _, c := range add("tx", benchToggle, tasks.StatusWorking) {
		env.toggle = append(env.toggle, c.ID)
	}
	env.toggleIn = make([]bool, benchToggle)
	start := time.Now()
	n, err := env.s.Pool().CopyFrom(ctx, pgx.Identifier{"mcptasks_tasks"},
		[]string{"id", "owner", "method", "status", "status_message", "created_at", "updated_at", "ttl_ms", "poll_ms", "expires_at", "version", "variables"},
		pgx.CopyFromRows(rows))
	if err != nil || int(n) != len(rows) {
		b.Fatalf("seeding: %d rows, %v", n, err)
	}
	// VACUUM too, so autovacuum and hint-bit writes on the fresh rows
	// do not land on whichever benchmark runs first.
	if _, err := env.s.Pool().Exec(ctx, "VACUUM (ANALYZE) mcptasks_tasks"); err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded %d tasks with COPY in %v", n, time.Since(start))
	return env
}

// runOps measures op with g goroutines; newOp is called once per
// goroutine to build its operation.
func runOps(b *testing.B, g int, newOp func() func() error) {
	b.ReportAllocs()
	if g == 1 {
		op := newOp()
		b.ResetTimer()
		for b.Loop() {
			if err := op(); err != nil {
				b.Fatal(err)
			}
		}
	} else {
		b.SetParallelism((g + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			op := newOp()
			for pb.Next() {
				if err := op(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

// toggler returns an operation that moves the tasks of one chunk between
// working and input_required, with move doing the actual update.
func (env *benchEnv) toggler(move func(id string, from, to tasks.Status) error) func() func() error {
	return func() func() error {
		k := int(env.chunk.Add(1)) % benchChunks
		size := benchToggle / benchChunks
		lo, i := k*size, 0
		return func() error {
			j := lo + i%size
			i++
			from, to := tasks.StatusWorking, tasks.StatusInputRequired
			if env.toggleIn[j] {
				from, to = to, from
			}
			if err := move(env.toggle[j], from, to); err != nil {
				return err
			}
			env.toggleIn[j] = !env.toggleIn[j]
			return nil
		}
	}
}

// BenchmarkStore measures the store's operations on a database holding
// 117 000 tasks, with 1 and 8 goroutines, beside the bare conditional
// UPDATE a transition costs at least.
func BenchmarkStore(b *testing.B) {
	env := seedBench(b)
	ctx := context.Background()
	pool := env.s.Pool()
	var created atomic.Int64
	for _, g := range []int{1, 8} {
		b.Run(fmt.Sprintf("Create/goroutines=%d", g), func(b *testing.B) {
			runOps(b, g, func() func() error {
				return func() error {
					// 50 tasks per owner, so the per-owner limit never bites.
					owner := tasks.Owner(fmt.Sprintf("create-%d", created.Add(1)/50))
					_, err := env.s.Create(ctx, owner, tasks.CreateParams{Method: "tools/call"})
					return err
				}
			})
		})
		b.Run(fmt.Sprintf("Get/goroutines=%d", g), func(b *testing.B) {
			runOps(b, g, func() func() error {
				rng := rand.New(rand.NewPCG(rand.Uint64(), 1))
				return func() error {
					_, err := env.s.Get(ctx, "big", env.big[rng.IntN(benchBig)].ID)
					return err
				}
			})
		})
		b.Run(fmt.Sprintf("BareUpdate/goroutines=%d", g), func(b *testing.B) {
			runOps(b, g, env.toggler(func(id string, from, to tasks.Status) error {
				var v int64
				return pool.QueryRow(ctx, bareUpdate, id, []string{string(from)}, string(to), "bench",
					time.Now().UTC().Truncate(time.Millisecond)).Scan(&v)
			}))
		})
		b.Run(fmt.Sprintf("Transition/goroutines=%d", g), func(b *testing.B) {
			runOps(b, g, env.toggler(func(id string, _, to tasks.Status) error {
				_, err := env.s.Transition(ctx, "tx", id, to, "bench")
				return err
			}))
		})
		// Transition and the bare UPDATE in alternating windows of the same
		// run, so slow phases of a shared machine hit both alike; reports
		// each rate and Transition's as a fraction of the bare one's.
		b.Run(fmt.Sprintf("TransitionVsBare/goroutines=%d", g), func(b *testing.B) {
			transition := func(id string, _, to tasks.Status) error {
				_, err := env.s.Transition(ctx, "tx", id, to, "bench")
				return err
			}
			bare := func(id string, from, to tasks.Status) error {
				var v int64
				return pool.QueryRow(ctx, bareUpdate, id, []string{string(from)}, string(to), "bench",
					time.Now().UTC().Truncate(time.Millisecond)).Scan(&v)
			}
			const windows = 40
			perG := max(b.N/windows/g, 1)
			var took [2]time.Duration
			var ops [2]int
			b.ResetTimer()
			for w := range windows {
				kind := w % 2
				move := transition
				if kind == 1 {
					move = bare
				}
				start := time.Now()
				var wg sync.WaitGroup
				for range g {
					op := env.toggler(move)()
					wg.Go(func() {
						for range perG {
							if err := op(); err != nil {
								b.Error(err)
								return
							}
						}
					})
				}
				wg.Wait()
				took[kind] += time.Since(start)
				ops[kind] += perG * g
			}
			rateT := float64(ops[0]) / took[0].Seconds()
			rateB := float64(ops[1]) / took[1].Seconds()
			b.ReportMetric(rateT, "transition-ops/s")
			b.ReportMetric(rateB, "bare-ops/s")
			b.ReportMetric(rateT/rateB, "transition/bare")
		})
		for _, owner := range []struct {
			name    string
			cursors []storekit.Cursor
		}{{"small", env.small}, {"big", env.big}} {
			b.Run(fmt.Sprintf("ListPage/owner_tasks=%d/goroutines=%d", len(owner.cursors), g), func(b *testing.B) {
				runOps(b, g, func() func() error {
					rng := rand.New(rand.NewPCG(rand.Uint64(), 2))
					return func() error {
						c := owner.cursors[rng.IntN(len(owner.cursors)-50)].Encode()
						p, err := env.s.List(ctx, tasks.Owner(owner.name), tasks.ListOptions{Cursor: c, Limit: 50})
						if err == nil && len(p.Tasks) != 50 {
							err = fmt.Errorf("page of %d tasks, want 50", len(p.Tasks))
						}
						return err
					}
				})
			})
		}
	}
}
