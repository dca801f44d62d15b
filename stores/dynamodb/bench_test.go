package dynamodb_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
)

// Each benchmark runs with 1 and with 8 goroutines. Throughput is bound by
// the server (dynalite does a few thousand writes/s on two cores).
var benchConcurrency = []int{1, 8}

// parallel runs body on g goroutines (exactly one when g is 1), each with
// its own worker index below g; next reports whether to do one more
// operation.
func parallel(b *testing.B, g int, body func(worker int, next func() bool)) {
	if g == 1 {
		n := 0
		body(0, func() bool { n++; return n <= b.N })
		return
	}
	var idx atomic.Int64
	b.SetParallelism(max(1, g/runtimeProcs()))
	b.RunParallel(func(pb *testing.PB) { body(int(idx.Add(1)-1)%g, pb.Next) })
}

// BenchmarkBareConditionalUpdate is the yardstick: one UpdateItem with a
// condition on an existing item, no store code around it.
func BenchmarkBareConditionalUpdate(b *testing.B) {
	for _, g := range benchConcurrency {
		b.Run(fmt.Sprintf("goroutines=%d", g), func(b *testing.B) {
			s := newStore(b, tasks.Config{MaxTasksPerOwner: -1})
			c, _ := client(b)
			ctx := context.Background()
			for i := range g {
				_, err := c.PutItem(ctx, &ddb.PutItemInput{TableName: aws.String(s.Table()), Item: map[string]types.AttributeValue{
					"pk": &types.AttributeValueMemberS{Value: fmt.Sprintf("bare#%d", i)},
					"n":  &types.AttributeValueMemberN{Value: "0"},
				}})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			parallel(b, g, func(w int, next func() bool) {
				key := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: fmt.Sprintf("bare#%d", w)}}
				for next() {
					_, err := c.UpdateItem(ctx, &ddb.UpdateItemInput{
						TableName:                 aws.String(s.Table()),
						Key:                       key,
						UpdateExpression:          aws.String("SET #n = #n + :one"),
						ConditionExpression:       aws.String("attribute_exists(#pk) AND #n >= :zero"),
						ExpressionAttributeNames:  map[string]string{"#n": "n", "#pk": "pk"},
						ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}, ":zero": &types.AttributeValueMemberN{Value: "0"}},
						ReturnValues:              types.ReturnValueAllNew,
					})
					if err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// BenchmarkTransition moves tasks back and forth between working and
// input_required: one conditional UpdateItem per call.
func BenchmarkTransition(b *testing.B) {
	for _, g := range benchConcurrency {
		b.Run(fmt.Sprintf("goroutines=%d", g), func(b *testing.B) {
			s := newStore(b, tasks.Config{MaxTasksPerOwner: -1})
			ctx := context.Background()
			ids := make([]string, g)
			cur := make([]tasks.Status, g) // survives the benchmark's rounds
			for i := range ids {
				r, err := s.Create(ctx, "bench", tasks.CreateParams{})
				if err != nil {
					b.Fatal(err)
				}
				ids[i], cur[i] = r.ID, r.Status
			}
			b.ResetTimer()
			parallel(b, g, func(w int, next func() bool) {
				for next() {
					to := tasks.StatusInputRequired
					if cur[w] == to {
						to = tasks.StatusWorking
					}
					if _, err := s.Transition(ctx, "bench", ids[w], to, ""); err != nil {
						b.Error(err)
						return
					}
					cur[w] = to
				}
			})
		})
	}
}

// BenchmarkGet reads a task with a strongly consistent GetItem.
func BenchmarkGet(b *testing.B) {
	for _, g := range benchConcurrency {
		b.Run(fmt.Sprintf("goroutines=%d", g), func(b *testing.B) {
			s := newStore(b, tasks.Config{MaxTasksPerOwner: -1})
			ctx := context.Background()
			r, err := s.Create(ctx, "bench", tasks.CreateParams{})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			parallel(b, g, func(_ int, next func() bool) {
				for next() {
					if _, err := s.Get(ctx, "bench", r.ID); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// BenchmarkCreate creates tasks without a cap (one PutItem) and with the
// default cap of 100 (put, slot, reveal: three writes), each goroutine
// for its own owners so the cap is never reached.
func BenchmarkCreate(b *testing.B) {
	for _, capped := range []bool{false, true} {
		for _, g := range benchConcurrency {
			b.Run(fmt.Sprintf("capped=%v/goroutines=%d", capped, g), func(b *testing.B) {
				cfg := tasks.Config{MaxTasksPerOwner: -1}
				if capped {
					cfg.MaxTasksPerOwner = tasks.DefaultMaxTasksPerOwner
				}
				s := newStore(b, cfg)
				ctx := context.Background()
				b.ResetTimer()
				parallel(b, g, func(w int, next func() bool) {
					for i := 0; next(); i++ {
						owner := tasks.Owner(fmt.Sprintf("bench-%d-%d", w, i/50))
						if _, err := s.Create(ctx, owner, tasks.CreateParams{}); err != nil {
							b.Error(err)
							return
						}
					}
				})
			})
		}
	}
}

// BenchmarkListPage reads pages of 50 from an owner holding 2 000 tasks,
// at a cursor in the middle: one index Query per page.
func BenchmarkListPage(b *testing.B) {
	s := newStore(b, tasks.Config{MaxTasksPerOwner: -1})
	ctx := context.Background()
	var mid string
	for i := range 2000 {
		r, err := s.Create(ctx, "bench", tasks.CreateParams{})
		if err != nil {
			b.Fatal(err)
		}
		if i == 1000 {
			mid = storekit.CursorOf(r).Encode()
		}
	}
	for _, g := range benchConcurrency {
		b.Run(fmt.Sprintf("goroutines=%d", g), func(b *testing.B) {
			parallel(b, g, func(_ int, next func() bool) {
				for next() {
					p, err := s.List(ctx, "bench", tasks.ListOptions{Cursor: mid, Limit: 50})
					if err != nil || len(p.Tasks) != 50 {
						b.Errorf("page of %d: %v", len(p.Tasks), err)
						return
					}
				}
			})
		})
	}
}
