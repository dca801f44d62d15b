package tasks_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/tasks"
)

// askers is an InputFunc whose requests wait until the test answers them
// by their message.
type askers struct {
	mu      sync.Mutex
	waiting map[string]chan json.RawMessage
	changed chan struct{}
}

func newAskers() *askers {
	return &askers{waiting: map[string]chan json.RawMessage{}, changed: make(chan struct{}, 64)}
}

func (a *askers) input(ctx context.Context, _ tasks.Record, req tasks.InputRequest) (json.RawMessage, error) {
	ch := make(chan json.RawMessage, 1)
	a.mu.Lock()
	a.waiting[string(req.Params)] = ch
	a.mu.Unlock()
	a.changed <- struct{}{}
	defer func() {
		a.mu.Lock()
		delete(a.waiting, string(req.Params))
		a.mu.Unlock()
	}()
	select {
	case ans := <-ch:
		return ans, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// waitFor waits until n requests are outstanding.
func (a *askers) waitFor(t *testing.T, n int) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		a.mu.Lock()
		got := len(a.waiting)
		a.mu.Unlock()
		if got == n {
			return
		}
		select {
		case <-a.changed:
		case <-time.After(5 * time.Millisecond):
		case <-deadline:
			t.Fatalf("%d input requests outstanding, want %d", got, n)
		}
	}
}

func (a *askers) answer(t *testing.T, params string) {
	t.Helper()
	a.mu.Lock()
	ch := a.waiting[params]
	a.mu.Unlock()
	if ch == nil {
		t.Fatalf("no outstanding request %s", params)
	}
	ch <- json.RawMessage(`{"action":"accept"}`)
}

// waitStatus polls the engine until the task has status want.
func waitStatus(t *testing.T, e *tasks.Engine, id string, want tasks.Status) {
	t.Helper()
	var last tasks.Status
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		rec, err := e.Get(context.Background(), owner, id)
		if err != nil {
			t.Fatal(err)
		}
		if last = rec.Status; last == want {
			return
		}
	}
	t.Fatalf("task status %q, want %q", last, want)
}

// TestEngineConcurrentInput runs two input requests of one task at once:
// the task is input_required while either is outstanding and goes back
// to working only after the last one ends, whichever it is and however it
// ends.
func TestEngineConcurrentInput(t *testing.T) {
	cases := []struct {
		name string
		// first ends one of the two requests: "answer" or "abandon" (its
		// own context is cancelled).
		first     string
		firstIdx  int
		wantFirst string // the error the first request returns, "" for none
	}{
		{name: "answer q1 then q2", first: "answer", firstIdx: 0},
		{name: "answer q2 then q1", first: "answer", firstIdx: 1},
		{name: "abandon q1 then answer q2", first: "abandon", firstIdx: 0, wantFirst: "abandoned"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := newAskers()
			e, log := newEngine(t)
			ctx := ctxT(t)
			abandon, stopFirst := context.WithCancelCause(context.Background())
			defer stopFirst(nil)
			release := make(chan struct{})
			returned := make(chan int, 2)
			errs := make([]error, 2)
			rec, err := e.Start(ctx, owner, tasks.CreateParams{Method: "tools/call"}, func(t0 tasks.TaskContext) (json.RawMessage, error) {
				var wg sync.WaitGroup
				for i := range 2 {
					wg.Go(func() {
						rctx := context.Context(t0)
						if i == tc.firstIdx {
							rctx = abandon
						}
						_, errs[i] = t0.RequireInput(rctx, tasks.InputRequest{Method: "elicitation/create", Params: json.RawMessage(fmt.Sprintf(`"q%d"`, i+1))})
						returned <- i
					})
				}
				wg.Wait()
				<-release
				return json.RawMessage(`{"content":[]}`), nil
			}, tasks.WithInput(a.input))
			if err != nil {
				t.Fatal(err)
			}
			a.waitFor(t, 2)
			waitStatus(t, e, rec.ID, tasks.StatusInputRequired)

			qs := []string{`"q1"`, `"q2"`}
			if tc.first == "answer" {
				a.answer(t, qs[tc.firstIdx])
			} else {
				stopFirst(errors.New("abandoned"))
			}
			if i := <-returned; i != tc.firstIdx {
				t.Fatalf("request %d returned first, want %d", i, tc.firstIdx)
			}
			a.waitFor(t, 1)
			got, err := e.Get(ctx, owner, rec.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != tasks.StatusInputRequired {
				t.Fatalf("with one request still outstanding the task is %q, want input_required", got.Status)
			}

			a.answer(t, qs[1-tc.firstIdx])
			<-returned
			waitStatus(t, e, rec.ID, tasks.StatusWorking)
			close(release)
			if r, err := e.Result(ctx, owner, rec.ID); err != nil || r.Status != tasks.StatusCompleted {
				t.Fatalf("result %v %v", r.Status, err)
			}
			if got := fmt.Sprint(errs[tc.firstIdx]); tc.wantFirst != "" && got != tc.wantFirst {
				t.Errorf("first request ended with %v, want %s", errs[tc.firstIdx], tc.wantFirst)
			}
			if err := errs[1-tc.firstIdx]; err != nil {
				t.Errorf("answered request: %v", err)
			}
			want := []tasks.Status{tasks.StatusWorking, tasks.StatusInputRequired, tasks.StatusWorking, tasks.StatusCompleted}
			if s := log.wait(rec.ID, len(want)); !slices.Equal(s, want) {
				t.Errorf("observed %v, want %v", s, want)
			}
		})
	}
}

// TestEngineConcurrentInputCancel cancels a task while two input requests
// are outstanding: both end, and the task stays cancelled (no move back
// to working after the cancel).
func TestEngineConcurrentInputCancel(t *testing.T) {
	a := newAskers()
	e, log := newEngine(t)
	ctx := ctxT(t)
	ended := make(chan error, 2)
	rec, err := e.Start(ctx, owner, tasks.CreateParams{Method: "tools/call"}, func(t0 tasks.TaskContext) (json.RawMessage, error) {
		var wg sync.WaitGroup
		for i := range 2 {
			wg.Go(func() {
				_, err := t0.RequireInput(t0, tasks.InputRequest{Method: "elicitation/create", Params: json.RawMessage(fmt.Sprintf(`"q%d"`, i))})
				ended <- err
			})
		}
		wg.Wait()
		return nil, t0.Err()
	}, tasks.WithInput(a.input))
	if err != nil {
		t.Fatal(err)
	}
	a.waitFor(t, 2)
	if _, err := e.Cancel(ctx, owner, rec.ID, ""); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		select {
		case err := <-ended:
			if err == nil {
				t.Error("an input request of a cancelled task returned no error")
			}
		case <-time.After(5 * time.Second):
			t.Fatal("an input request outlived the cancel")
		}
	}
	if r, err := e.Result(ctx, owner, rec.ID); err != nil || r.Status != tasks.StatusCancelled {
		t.Fatalf("result %v %v", r.Status, err)
	}
	want := []tasks.Status{tasks.StatusWorking, tasks.StatusInputRequired, tasks.StatusCancelled}
	time.Sleep(20 * time.Millisecond) // a late move back to working would show here
	if s := log.of(rec.ID); !slices.Equal(s, want) {
		t.Errorf("observed %v, want %v", s, want)
	}
}

// TestEngineConcurrentInputRace has several goroutines of one task ask
// for input over and over, answered after random short delays: whenever
// a request is outstanding the stored status is input_required, the
// observed statuses alternate (never input_required twice in a row, nor
// working), and the task ends up working once all are done.
func TestEngineConcurrentInputRace(t *testing.T) {
	const workers, rounds = 4, 25
	e, log := newEngine(t)
	ctx := ctxT(t)
	var bad sync.Map
	input := func(ctx context.Context, rec tasks.Record, _ tasks.InputRequest) (json.RawMessage, error) {
		cur, err := e.Get(ctx, owner, rec.ID)
		if err != nil {
			return nil, err
		}
		if cur.Status != tasks.StatusInputRequired {
			bad.Store(cur.Version, cur.Status)
		}
		time.Sleep(time.Duration(rand.IntN(300)) * time.Microsecond)
		return json.RawMessage(`{}`), nil
	}
	release := make(chan struct{})
	done := make(chan struct{})
	rec, err := e.Start(ctx, owner, tasks.CreateParams{Method: "tools/call"}, func(t0 tasks.TaskContext) (json.RawMessage, error) {
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for range rounds {
					if _, err := t0.RequireInput(t0, tasks.InputRequest{Method: "elicitation/create"}); err != nil {
						bad.Store("err", err)
						return
					}
					time.Sleep(time.Duration(rand.IntN(200)) * time.Microsecond)
				}
			})
		}
		wg.Wait()
		close(done)
		<-release
		return json.RawMessage(`{"content":[]}`), nil
	}, tasks.WithInput(input))
	if err != nil {
		t.Fatal(err)
	}
	<-done
	waitStatus(t, e, rec.ID, tasks.StatusWorking)
	close(release)
	if _, err := e.Result(ctx, owner, rec.ID); err != nil {
		t.Fatal(err)
	}
	bad.Range(func(k, v any) bool {
		t.Errorf("while input was outstanding: %v %v", k, v)
		return true
	})
	s := log.wait(rec.ID, 3)
	for i := 1; i < len(s); i++ {
		if s[i] == s[i-1] {
			t.Fatalf("status %q observed twice in a row: %v", s[i], s)
		}
	}
	if s[len(s)-1] != tasks.StatusCompleted || s[len(s)-2] != tasks.StatusWorking {
		t.Errorf("observed statuses end %v", s[max(len(s)-3, 0):])
	}
}
