package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// Goroutines are the concurrency levels every store benchmark runs at.
var Goroutines = []int{1, 8}

// Seeded is a store filled with Records of one owner, all working, for
// benchmarks. Status tracks each task's status as Transition benchmarks
// flip it; a benchmark worker only touches its own share of it.
type Seeded struct {
	Store   tasks.Store
	Owner   tasks.Owner
	Records []tasks.Record
	Status  []tasks.Status
}

// NewSeeded wraps records already inserted into st.
func NewSeeded(st tasks.Store, owner tasks.Owner, recs []tasks.Record) *Seeded {
	recs = slices.Clone(recs)
	slices.SortFunc(recs, func(a, b tasks.Record) int {
		switch {
		case storekit.CursorOf(a).After(b): // b sorts after a
			return -1
		case storekit.CursorOf(b).After(a):
			return 1
		}
		return 0
	})
	s := &Seeded{Store: st, Owner: owner, Records: recs, Status: make([]tasks.Status, len(recs))}
	for i := range s.Status {
		s.Status[i] = tasks.StatusWorking
	}
	return s
}

// Parallel runs body b.N times in total on g goroutines; each goroutine
// gets its index w (0 ≤ w < workers) and the number of workers.
func Parallel(b *testing.B, g int, body func(w, workers int, rng *rand.Rand, next func() bool)) {
	if g <= 1 {
		rng := rand.New(rand.NewPCG(1, 2))
		i := 0
		body(0, 1, rng, func() bool { i++; return i <= b.N })
		return
	}
	procs := runtime.GOMAXPROCS(0)
	p := (g + procs - 1) / procs
	workers := p * procs
	b.SetParallelism(p)
	var n atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		w := int(n.Add(1) - 1)
		rng := rand.New(rand.NewPCG(uint64(w), 7))
		body(w%workers, workers, rng, pb.Next)
	})
}

// ForEachG runs fn as a sub-benchmark per concurrency level.
func ForEachG(b *testing.B, fn func(b *testing.B, g int)) {
	for _, g := range Goroutines {
		b.Run(fmt.Sprintf("g=%d", g), func(b *testing.B) { fn(b, g) })
	}
}

// BenchCreate measures Create for one owner without a task limit.
func BenchCreate(b *testing.B, st tasks.Store, g int) {
	ctx := context.Background()
	owner := tasks.Owner(fmt.Sprintf("bench-create-%d", g))
	b.ReportAllocs()
	b.ResetTimer()
	Parallel(b, g, func(_, _ int, _ *rand.Rand, next func() bool) {
		for next() {
			if _, err := st.Create(ctx, owner, tasks.CreateParams{Method: wire.MethodToolsCall}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchGet measures Get of random seeded tasks.
func BenchGet(b *testing.B, s *Seeded, g int) {
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	Parallel(b, g, func(_, _ int, rng *rand.Rand, next func() bool) {
		for next() {
			r := s.Records[rng.IntN(len(s.Records))]
			if _, err := s.Store.Get(ctx, s.Owner, r.ID); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchTransition flips random seeded tasks between working and
// input_required; each worker owns a disjoint share of the tasks, so every
// call is a successful conditional change.
func BenchTransition(b *testing.B, s *Seeded, g int) {
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	Parallel(b, g, func(w, workers int, rng *rand.Rand, next func() bool) {
		share := len(s.Records) / workers
		for next() {
			i := w*share + rng.IntN(share)
			to := tasks.StatusInputRequired
			if s.Status[i] == tasks.StatusInputRequired {
				to = tasks.StatusWorking
			}
			if _, err := s.Store.Transition(ctx, s.Owner, s.Records[i].ID, to, "bench"); err != nil {
				b.Error(err)
				return
			}
			s.Status[i] = to
		}
	})
}

// Flip runs a bare conditional status flip for BenchBare-style
// comparisons: it is given the task and the from/to statuses and reports
// whether it changed the task.
type Flip func(ctx context.Context, id string, from, to tasks.Status) (bool, error)

// BenchFlip drives flip exactly like BenchTransition drives Transition.
func BenchFlip(b *testing.B, s *Seeded, g int, flip Flip) {
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	Parallel(b, g, func(w, workers int, rng *rand.Rand, next func() bool) {
		share := len(s.Records) / workers
		for next() {
			i := w*share + rng.IntN(share)
			from, to := tasks.StatusWorking, tasks.StatusInputRequired
			if s.Status[i] == tasks.StatusInputRequired {
				from, to = to, from
			}
			ok, err := flip(ctx, s.Records[i].ID, from, to)
			if err != nil || !ok {
				b.Errorf("flip %s: %v, changed=%v", s.Records[i].ID, err, ok)
				return
			}
			s.Status[i] = to
		}
	})
}

// BenchList reads one page of 50 tasks starting at a random position.
func BenchList(b *testing.B, s *Seeded, g int) {
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	Parallel(b, g, func(_, _ int, rng *rand.Rand, next func() bool) {
		for next() {
			from := s.Records[rng.IntN(len(s.Records)-60)]
			p, err := s.Store.List(ctx, s.Owner, tasks.ListOptions{Cursor: storekit.CursorOf(from).Encode(), Limit: 50})
			if err != nil || len(p.Tasks) != 50 {
				b.Errorf("list: %d tasks, %v", len(p.Tasks), err)
				return
			}
		}
	})
}

// SeedRecords builds n working records of owner (without storing them);
// many share a creation millisecond, as under real load.
func SeedRecords(cfg tasks.Config, owner tasks.Owner, n int) ([]tasks.Record, error) {
	cfg = cfg.WithDefaults()
	out := make([]tasks.Record, n)
	for i := range out {
		r, err := storekit.NewRecord(cfg, owner, tasks.CreateParams{Method: wire.MethodToolsCall})
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}
