package redis

import (
	"context"
	"fmt"
	"sync"
	"testing"

	goredis "github.com/redis/go-redis/v9"

	"github.com/mcptasks/mcptasks/internal/testenv"
	"github.com/mcptasks/mcptasks/stores/internal/storetest"
	"github.com/mcptasks/mcptasks/tasks"
)

var benchCfg = tasks.Config{MaxTasksPerOwner: -1, DefaultTTL: tasks.Unlimited}

// Seeded stores are built once per benchmark binary, keyed by task count,
// each under its own prefix on the shared server.
var (
	seededMu sync.Mutex
	seeded   = map[int]*storetest.Seeded{}
)

// seed returns a store holding n tasks of one owner, written through
// createScript in pipelines of 1 000 calls.
func seed(b *testing.B, n int) *storetest.Seeded {
	b.Helper()
	seededMu.Lock()
	defer seededMu.Unlock()
	if s := seeded[n]; s != nil {
		return s
	}
	ctx := context.Background()
	url, prefix := testenv.Redis(b)
	st, err := Open(ctx, url, benchCfg, WithPrefix(prefix))
	if err != nil {
		b.Fatal(err)
	}
	owner := tasks.Owner(fmt.Sprintf("bench-%d", n))
	recs, err := storetest.SeedRecords(benchCfg, owner, n)
	if err != nil {
		b.Fatal(err)
	}
	for start := 0; start < n; start += 1000 {
		pipe := st.client.Pipeline()
		for _, r := range recs[start:min(start+1000, n)] {
			keys, args := st.createCall(r)
			createScript.EvalSha(ctx, pipe, keys, args...)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			b.Fatal(err)
		}
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

// bareScript is the least a conditional transition costs in Redis: one
// EVALSHA that compares the status and writes it with the version.
var bareScript = goredis.NewScript(`
if redis.call('HGET', KEYS[1], 'st') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'st', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'ver', 1)
return 1
`)

// BenchmarkBareEvalSHA is the yardstick for BenchmarkTransition, run on
// the same tasks in the same way.
func BenchmarkBareEvalSHA(b *testing.B) {
	storetest.ForEachG(b, func(b *testing.B, g int) {
		s := seed(b, 100_000)
		st := s.Store.(*Store)
		if err := bareScript.Load(context.Background(), st.client).Err(); err != nil {
			b.Fatal(err)
		}
		storetest.BenchFlip(b, s, g, func(ctx context.Context, id string, from, to tasks.Status) (bool, error) {
			n, err := bareScript.EvalSha(ctx, st.client, []string{st.taskKey(id)}, string(from), string(to)).Int()
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
