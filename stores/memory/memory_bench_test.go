package memory_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/stores/memory"
	"github.com/mcptasks/mcptasks/tasks"
)

// benchTasks is the number of tasks the read benchmarks run against.
const benchTasks = 100_000

// benchOwners spreads tasks over this many owners, as a busy server would.
const benchOwners = 1000

// cpuTime is the CPU time (user and system) the process has used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds a cpu-ns/op metric: CPU time spent per operation, which,
// unlike ns/op, does not grow when other processes take the machine's
// cores. Call it after setup; call the returned func after the loop.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

func benchConfig() tasks.Config {
	return tasks.Config{MaxTasksPerOwner: -1}
}

func owner(i int) tasks.Owner { return tasks.Owner(fmt.Sprintf("owner-%d", i%benchOwners)) }

// populate creates n tasks spread over the bench owners and returns their
// owners and ids.
func populate(tb testing.TB, s *memory.Store, n int) ([]tasks.Owner, []string) {
	tb.Helper()
	ctx := context.Background()
	owners := make([]tasks.Owner, n)
	ids := make([]string, n)
	for i := range n {
		r, err := s.Create(ctx, owner(i), tasks.CreateParams{Method: "tools/call"})
		if err != nil {
			tb.Fatal(err)
		}
		owners[i], ids[i] = r.Owner, r.ID
	}
	return owners, ids
}

func BenchmarkCreate(b *testing.B) {
	s := memory.New(benchConfig())
	ctx := context.Background()
	p := tasks.CreateParams{Method: "tools/call"}
	i := 0
	defer reportCPU(b)()
	for b.Loop() {
		if _, err := s.Create(ctx, owner(i), p); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkCreateParallel(b *testing.B) {
	s := memory.New(benchConfig())
	var next atomic.Int64
	p := tasks.CreateParams{Method: "tools/call"}
	defer reportCPU(b)()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			if _, err := s.Create(ctx, owner(int(next.Add(1))), p); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkGet reads tasks out of benchTasks: "random" jumps across all of
// them (every read misses the CPU caches), "hot" polls 1000 of them, as
// requestors polling their running tasks do.
func BenchmarkGet(b *testing.B) {
	s := memory.New(benchConfig())
	owners, ids := populate(b, s, benchTasks)
	for _, bc := range []struct {
		name   string
		stride int
		span   int
	}{{"random", 7919, benchTasks}, {"hot", 1, 1000}} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			i := 0
			defer reportCPU(b)()
			for b.Loop() {
				k := (i * bc.stride) % bc.span
				if _, err := s.Get(ctx, owners[k], ids[k]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

func BenchmarkGetParallel(b *testing.B) {
	s := memory.New(benchConfig())
	owners, ids := populate(b, s, benchTasks)
	b.ResetTimer()
	defer reportCPU(b)()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		k := rand.IntN(benchTasks)
		for pb.Next() {
			if _, err := s.Get(ctx, owners[k], ids[k]); err != nil {
				b.Error(err)
				return
			}
			k = (k + 7919) % benchTasks
		}
	})
}

// flip is the status a task in from moves to in the Transition benchmarks.
func flip(i int) tasks.Status {
	if i%2 == 0 {
		return tasks.StatusInputRequired
	}
	return tasks.StatusWorking
}

func BenchmarkTransition(b *testing.B) {
	s := memory.New(benchConfig())
	owners, ids := populate(b, s, benchTasks)
	ctx := context.Background()
	i := 0
	defer reportCPU(b)()
	for b.Loop() {
		k := i % benchTasks
		if _, err := s.Transition(ctx, owners[k], ids[k], flip(i/benchTasks), "step"); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkTransitionParallel(b *testing.B) {
	s := memory.New(benchConfig())
	owners, ids := populate(b, s, benchTasks)
	var next atomic.Int64
	b.ResetTimer()
	defer reportCPU(b)()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			i := int(next.Add(1))
			k := i % benchTasks
			// Concurrent flips of one task may collide; those are refused
			// and still measure a full locked round trip.
			_, _ = s.Transition(ctx, owners[k], ids[k], flip(i/benchTasks), "step")
		}
	})
}

func BenchmarkComplete(b *testing.B) {
	const batch = 20_000
	ctx := context.Background()
	out := tasks.Outcome{Result: []byte(`{"content":[{"type":"text","text":"done"}]}`)}
	var s *memory.Store
	var owners []tasks.Owner
	var ids []string
	k := batch
	var setupCPU time.Duration
	start := cpuTime()
	for b.Loop() {
		if k == batch {
			b.StopTimer()
			t0 := cpuTime()
			s = memory.New(benchConfig())
			owners, ids = populate(b, s, batch)
			k = 0
			setupCPU += cpuTime() - t0
			b.StartTimer()
		}
		if _, err := s.Complete(ctx, owners[k], ids[k], tasks.StatusCompleted, "", out); err != nil {
			b.Fatal(err)
		}
		k++
	}
	b.ReportMetric(float64(cpuTime()-start-setupCPU)/float64(b.N), "cpu-ns/op")
}

// listFixture is one owner holding benchTasks tasks and cursors spread
// over them.
func listFixture(b *testing.B) (*memory.Store, []string) {
	s := memory.New(benchConfig())
	ctx := context.Background()
	for range benchTasks {
		if _, err := s.Create(ctx, "big", tasks.CreateParams{Method: "tools/call"}); err != nil {
			b.Fatal(err)
		}
	}
	var cursors []string
	cursor := ""
	for {
		page, err := s.List(ctx, "big", tasks.ListOptions{Cursor: cursor, Limit: 500})
		if err != nil {
			b.Fatal(err)
		}
		cursors = append(cursors, cursor)
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	return s, cursors
}

func BenchmarkList(b *testing.B) {
	s, cursors := listFixture(b)
	ctx := context.Background()
	i := 0
	defer reportCPU(b)()
	for b.Loop() {
		page, err := s.List(ctx, "big", tasks.ListOptions{Cursor: cursors[i%len(cursors)], Limit: 50})
		if err != nil || len(page.Tasks) != 50 {
			b.Fatal(err, len(page.Tasks))
		}
		i++
	}
}

func BenchmarkListParallel(b *testing.B) {
	s, cursors := listFixture(b)
	b.ResetTimer()
	defer reportCPU(b)()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		i := rand.IntN(len(cursors))
		for pb.Next() {
			if _, err := s.List(ctx, "big", tasks.ListOptions{Cursor: cursors[i%len(cursors)], Limit: 50}); err != nil {
				b.Error(err)
				return
			}
			i++
		}
	})
}

// idleTaskBytes measures the heap held per idle task: n working tasks
// with the default TTL and no variables, over benchOwners owners.
func idleTaskBytes(tb testing.TB, n int) float64 {
	tb.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := memory.New(benchConfig())
	populate(tb, s, n)
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(s)
	return float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
}

func BenchmarkIdleTaskBytes(b *testing.B) {
	var per float64
	for b.Loop() {
		per = idleTaskBytes(b, benchTasks)
	}
	b.ReportMetric(per, "B/task")
}

// TestIdleTaskMemory holds the store to its memory budget: an idle task
// costs less than 1 KiB.
func TestIdleTaskMemory(t *testing.T) {
	if per := idleTaskBytes(t, 20_000); per >= 1024 {
		t.Errorf("an idle task holds %.0f bytes, budget 1024", per)
	} else {
		t.Logf("an idle task holds %.0f bytes", per)
	}
}

// BenchmarkDeleteExpired measures the reaper's pass in the state a busy
// requestor leaves it in: one owner with 200 000 finished tasks of which
// the oldest 80 % have expired. cpu-ns/op is per deleted task.
func BenchmarkDeleteExpired(b *testing.B) {
	const total, expiredShare = 200_000, 0.8
	ctx := context.Background()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := tasks.NewFakeClock(start)
	cfg := tasks.Config{MaxTasksPerOwner: -1, Clock: clock}
	ttl := time.Second
	b.ReportAllocs()
	var deleted int
	var spent time.Duration
	b.StopTimer()
	for range b.N {
		s := memory.New(cfg)
		for i := range total {
			clock.Set(start.Add(time.Duration(int64(i) * int64(10*time.Second) / total)))
			r, err := s.Create(ctx, "busy", tasks.CreateParams{Method: "tools/call", TTL: &ttl})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.Complete(ctx, "busy", r.ID, tasks.StatusCompleted, "", tasks.Outcome{Result: []byte(`{}`)}); err != nil {
				b.Fatal(err)
			}
		}
		// 9 s after the first task: those created in the first 8 s expired.
		clock.Set(start.Add(9 * time.Second))
		c0 := cpuTime()
		b.StartTimer()
		n, err := s.DeleteExpired(ctx)
		b.StopTimer()
		spent += cpuTime() - c0
		if err != nil || n < int(total*expiredShare)-total/50 {
			b.Fatalf("deleted %d (%v)", n, err)
		}
		deleted += n
	}
	b.ReportMetric(float64(spent.Nanoseconds())/float64(deleted), "cpu-ns/task")
}
