package tasks_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/stores/memory"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/protocol"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

const owner tasks.Owner = "sub:alice"

var quiet = tasks.WithLogger(slog.New(slog.DiscardHandler))

type statusLog struct {
	mu   sync.Mutex
	seen map[string][]tasks.Status
}

func (l *statusLog) observe(r tasks.Record) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen == nil {
		l.seen = map[string][]tasks.Status{}
	}
	l.seen[r.ID] = append(l.seen[r.ID], r.Status)
}

func (l *statusLog) of(id string) []tasks.Status {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]tasks.Status(nil), l.seen[id]...)
}

// wait returns the statuses observed for id once there are n of them (or
// after a generous timeout): the observer runs just after the store
// change that Result sees.
func (l *statusLog) wait(id string, n int) []tasks.Status {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if s := l.of(id); len(s) >= n {
			return s
		}
	}
	return l.of(id)
}

func newEngine(t *testing.T, opts ...tasks.EngineOption) (*tasks.Engine, *statusLog) {
	t.Helper()
	cfg := tasks.Config{PollInterval: 50 * time.Millisecond}.WithDefaults()
	st := memory.New(cfg)
	log := &statusLog{}
	e := tasks.NewEngine(st, cfg, append([]tasks.EngineOption{tasks.WithObserver(log.observe), quiet}, opts...)...)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := e.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
		_ = st.Close()
	})
	return e, log
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestEngineOutcomes(t *testing.T) {
	rpcErr := &tasks.RPCError{Code: -32042, Message: "needs a URL", Data: json.RawMessage(`{"x":[1,2]}`)}
	cases := []struct {
		name        string
		method      string
		work        tasks.Work
		wantStatus  tasks.Status
		wantMessage string
		wantResult  string
		wantErr     *tasks.RPCError
	}{
		{name: "result", method: "tools/call", wantStatus: tasks.StatusCompleted, wantResult: `{"content":[]}`,
			work: func(tasks.TaskContext) (json.RawMessage, error) { return json.RawMessage(`{"content":[]}`), nil }},
		{name: "tool isError", method: "tools/call", wantStatus: tasks.StatusFailed, wantMessage: "boom",
			wantResult: `{"content":[{"type":"text","text":"boom"}],"isError":true}`,
			work: func(tasks.TaskContext) (json.RawMessage, error) {
				return json.RawMessage(`{"content":[{"type":"text","text":"boom"}],"isError":true}`), nil
			}},
		{name: "isError outside tools/call completes", method: "other/method", wantStatus: tasks.StatusCompleted,
			wantResult: `{"isError":true}`,
			work:       func(tasks.TaskContext) (json.RawMessage, error) { return json.RawMessage(`{"isError":true}`), nil }},
		{name: "rpc error kept exactly", method: "tools/call", wantStatus: tasks.StatusFailed, wantMessage: "needs a URL", wantErr: rpcErr,
			work: func(tasks.TaskContext) (json.RawMessage, error) { return nil, rpcErr }},
		{name: "plain error is internal", method: "tools/call", wantStatus: tasks.StatusFailed, wantMessage: "disk on fire",
			wantErr: &tasks.RPCError{Code: wire.CodeInternalError, Message: "disk on fire"},
			work:    func(tasks.TaskContext) (json.RawMessage, error) { return nil, errors.New("disk on fire") }},
		{name: "panic is internal", method: "tools/call", wantStatus: tasks.StatusFailed, wantMessage: "task work panicked: oops",
			wantErr: &tasks.RPCError{Code: wire.CodeInternalError, Message: "task work panicked: oops"},
			work:    func(tasks.TaskContext) (json.RawMessage, error) { panic("oops") }},
		{name: "explicit Complete wins over return", method: "tools/call", wantStatus: tasks.StatusCompleted, wantResult: `{"a":1}`,
			work: func(tc tasks.TaskContext) (json.RawMessage, error) {
				if err := tc.Complete(json.RawMessage(`{"a":1}`)); err != nil {
					return nil, err
				}
				return nil, errors.New("ignored")
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e, log := newEngine(t)
			ctx := ctxT(t)
			rec, err := e.Start(ctx, owner, tasks.CreateParams{Method: tc.method}, tc.work)
			if err != nil {
				t.Fatalf("Start: %v", err)
			}
			if rec.Status != tasks.StatusWorking {
				t.Errorf("created status = %q, want working", rec.Status)
			}
			got, err := e.Result(ctx, owner, rec.ID)
			if err != nil {
				t.Fatalf("Result: %v", err)
			}
			if got.Status != tc.wantStatus || got.StatusMessage != tc.wantMessage {
				t.Errorf("status = %q %q, want %q %q", got.Status, got.StatusMessage, tc.wantStatus, tc.wantMessage)
			}
			if got.Outcome == nil {
				t.Fatal("no outcome")
			}
			if tc.wantResult != "" && string(got.Outcome.Result) != tc.wantResult {
				t.Errorf("result = %s, want %s", got.Outcome.Result, tc.wantResult)
			}
			if tc.wantErr != nil {
				ge := got.Outcome.Error
				if ge == nil || ge.Code != tc.wantErr.Code || ge.Message != tc.wantErr.Message || string(ge.Data) != string(tc.wantErr.Data) {
					t.Errorf("error = %+v, want %+v", ge, tc.wantErr)
				}
			}
			want := []tasks.Status{tasks.StatusWorking, tc.wantStatus}
			if s := log.wait(rec.ID, 2); len(s) != 2 || s[0] != want[0] || s[1] != want[1] {
				t.Errorf("observed %v, want %v", s, want)
			}
		})
	}
}

func TestEngineCancel(t *testing.T) {
	e, log := newEngine(t)
	ctx := ctxT(t)
	stopped := make(chan error, 1)
	started := make(chan struct{})
	rec, err := e.Start(ctx, owner, tasks.CreateParams{Method: "tools/call"}, func(tc tasks.TaskContext) (json.RawMessage, error) {
		close(started)
		<-tc.Done()
		stopped <- tc.Err()
		return json.RawMessage(`{"late":true}`), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	got, err := e.Cancel(ctx, owner, rec.ID, "")
	if err != nil {
		t.Fatalf("Cancel: %v", err)
	}
	if got.Status != tasks.StatusCancelled {
		t.Fatalf("Cancel returned %q", got.Status)
	}
	if err := <-stopped; !errors.Is(err, context.Canceled) {
		t.Errorf("work context ended with %v", err)
	}
	res, err := e.Result(ctx, owner, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != tasks.StatusCancelled || res.Outcome.Error == nil || res.Outcome.Error.Code != wire.CodeRequestCancelled {
		t.Errorf("after cancel: %q %+v", res.Status, res.Outcome)
	}
	if _, err := e.Cancel(ctx, owner, rec.ID, ""); !errors.Is(err, tasks.ErrInvalidTransition) || protocol.RPCCode(err) != wire.CodeInvalidParams {
		t.Errorf("second cancel: %v", err)
	}
	if _, err := e.Cancel(ctx, "sub:mallory", rec.ID, ""); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("cancel by another owner: %v", err)
	}
	if s := log.wait(rec.ID, 2); len(s) != 2 || s[1] != tasks.StatusCancelled {
		t.Errorf("observed %v", s)
	}
}

func TestEngineResultWaitsAndCanBeAbandoned(t *testing.T) {
	e, _ := newEngine(t)
	ctx := ctxT(t)
	release := make(chan struct{})
	rec, err := e.Start(ctx, owner, tasks.CreateParams{Method: "tools/call"}, func(tc tasks.TaskContext) (json.RawMessage, error) {
		<-release
		return json.RawMessage(`{"content":[]}`), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
	defer cancel()
	if _, err := e.Result(short, owner, rec.ID); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("abandoned Result: %v", err)
	}
	if got, _ := e.Get(ctx, owner, rec.ID); got.Status != tasks.StatusWorking {
		t.Errorf("abandoning Result changed the task to %q", got.Status)
	}
	done := make(chan tasks.Record, 1)
	go func() {
		r, _ := e.Result(ctx, owner, rec.ID)
		done <- r
	}()
	close(release)
	if r := <-done; r.Status != tasks.StatusCompleted {
		t.Errorf("Result after release: %q", r.Status)
	}
}

func TestEngineRequireInput(t *testing.T) {
	var asked atomic.Value
	input := func(ctx context.Context, rec tasks.Record, req tasks.InputRequest) (json.RawMessage, error) {
		if rec.Status != tasks.StatusInputRequired {
			return nil, errors.New("task not input_required while asking")
		}
		asked.Store(req)
		return json.RawMessage(`{"action":"accept","content":{"answer":"42"}}`), nil
	}
	e, log := newEngine(t)
	ctx := ctxT(t)
	rec, err := e.Start(ctx, owner, tasks.CreateParams{Method: "tools/call"}, func(tc tasks.TaskContext) (json.RawMessage, error) {
		ans, err := tc.RequireInput(tc, tasks.InputRequest{Method: "elicitation/create", Params: json.RawMessage(`{"message":"q"}`)})
		if err != nil {
			return nil, err
		}
		return json.RawMessage(`{"content":[],"structuredContent":` + string(ans) + `}`), nil
	}, tasks.WithInput(input))
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.Result(ctx, owner, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != tasks.StatusCompleted {
		t.Fatalf("status %q %q", got.Status, got.StatusMessage)
	}
	if req, _ := asked.Load().(tasks.InputRequest); req.Method != "elicitation/create" {
		t.Errorf("input request %+v", req)
	}
	want := []tasks.Status{tasks.StatusWorking, tasks.StatusInputRequired, tasks.StatusWorking, tasks.StatusCompleted}
	s := log.wait(rec.ID, len(want))
	if len(s) != len(want) {
		t.Fatalf("observed %v, want %v", s, want)
	}
	for i := range want {
		if s[i] != want[i] {
			t.Fatalf("observed %v, want %v", s, want)
		}
	}
}

func TestEngineRequireInputWithoutChannel(t *testing.T) {
	e, _ := newEngine(t)
	ctx := ctxT(t)
	rec, err := e.Start(ctx, owner, tasks.CreateParams{Method: "tools/call"}, func(tc tasks.TaskContext) (json.RawMessage, error) {
		_, err := tc.RequireInput(tc, tasks.InputRequest{Method: "elicitation/create"})
		return nil, err
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.Result(ctx, owner, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != tasks.StatusFailed || got.StatusMessage != tasks.ErrNoInputChannel.Error() {
		t.Errorf("got %q %q", got.Status, got.StatusMessage)
	}
}

func TestEngineProgress(t *testing.T) {
	var mu sync.Mutex
	var seen []float64
	progress := func(_ tasks.Record, p tasks.Progress) {
		mu.Lock()
		seen = append(seen, p.Progress)
		mu.Unlock()
	}
	e, _ := newEngine(t)
	ctx := ctxT(t)
	errs := make(chan error, 4)
	var saved tasks.TaskContext
	rec, err := e.Start(ctx, owner, tasks.CreateParams{Method: "tools/call"}, func(tc tasks.TaskContext) (json.RawMessage, error) {
		saved = tc
		errs <- tc.Progress(tasks.Progress{Progress: 1})
		errs <- tc.Progress(tasks.Progress{Progress: 1}) // not growing
		errs <- tc.Progress(tasks.Progress{Progress: 2, Message: "two"})
		return json.RawMessage(`{"content":[]}`), nil
	}, tasks.WithProgress(progress))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Result(ctx, owner, rec.ID); err != nil {
		t.Fatal(err)
	}
	if err := <-errs; err != nil {
		t.Errorf("first progress: %v", err)
	}
	if err := <-errs; !errors.Is(err, tasks.ErrInvalidParams) {
		t.Errorf("repeated progress: %v", err)
	}
	if err := <-errs; err != nil {
		t.Errorf("third progress: %v", err)
	}
	if err := saved.Progress(tasks.Progress{Progress: 3}); !errors.Is(err, tasks.ErrTaskFinished) {
		t.Errorf("progress after end: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || seen[0] != 1 || seen[1] != 2 {
		t.Errorf("delivered %v", seen)
	}
}

func TestEngineVariables(t *testing.T) {
	e, _ := newEngine(t)
	ctx := ctxT(t)
	rec, err := e.Start(ctx, owner, tasks.CreateParams{Method: "tools/call"}, func(tc tasks.TaskContext) (json.RawMessage, error) {
		if err := tc.SetVariables(map[string]json.RawMessage{"server.step": json.RawMessage(`3`)}); err != nil {
			return nil, err
		}
		v, err := tc.Variables()
		if err != nil {
			return nil, err
		}
		return json.RawMessage(`{"content":[],"structuredContent":{"step":` + string(v["server.step"]) + `}}`), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.Result(ctx, owner, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Outcome.Result) != `{"content":[],"structuredContent":{"step":3}}` {
		t.Errorf("result %s (%s)", got.Outcome.Result, got.StatusMessage)
	}
}

func TestEngineCloseFailsRunningWork(t *testing.T) {
	cfg := tasks.Config{}.WithDefaults()
	st := memory.New(cfg)
	defer st.Close()
	e := tasks.NewEngine(st, cfg, quiet)
	ctx := ctxT(t)
	rec, err := e.Start(ctx, owner, tasks.CreateParams{Method: "tools/call"}, func(tc tasks.TaskContext) (json.RawMessage, error) {
		<-tc.Done()
		return nil, tc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := st.Get(ctx, owner, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != tasks.StatusFailed {
		t.Errorf("status after Close: %q", got.Status)
	}
	if _, err := e.Start(ctx, owner, tasks.CreateParams{}, nil); !errors.Is(err, tasks.ErrEngineClosed) {
		t.Errorf("Start after Close: %v", err)
	}
}

// leaseRecorder adds the LeaseStore methods to the memory store and counts
// the calls, to observe that the engine renews leases and reaps.
type leaseRecorder struct {
	*memory.Store
	renewals atomic.Int64
	reaps    atomic.Int64
}

func (l *leaseRecorder) RenewLease(ctx context.Context, o tasks.Owner, id string, until time.Time) error {
	if _, err := l.Get(ctx, o, id); err != nil {
		return err
	}
	l.renewals.Add(1)
	return nil
}

func (l *leaseRecorder) ReapExpiredLeases(context.Context) (int, error) {
	l.reaps.Add(1)
	return 0, nil
}

func TestEngineLeases(t *testing.T) {
	cfg := tasks.Config{PollInterval: 20 * time.Millisecond}.WithDefaults()
	st := &leaseRecorder{Store: memory.New(cfg)}
	defer st.Close()
	e := tasks.NewEngine(st, cfg, quiet, tasks.WithLeaseDuration(60*time.Millisecond), tasks.WithReapInterval(20*time.Millisecond))
	ctx := ctxT(t)
	defer e.Close(ctx)
	rec, err := e.Start(ctx, owner, tasks.CreateParams{Method: "tools/call"}, func(tc tasks.TaskContext) (json.RawMessage, error) {
		select {
		case <-time.After(300 * time.Millisecond):
		case <-tc.Done():
		}
		return json.RawMessage(`{"content":[]}`), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Result(ctx, owner, rec.ID); err != nil {
		t.Fatal(err)
	}
	if n := st.renewals.Load(); n < 2 {
		t.Errorf("lease renewed %d times during 300 ms with a 60 ms lease", n)
	}
	if n := st.reaps.Load(); n < 1 {
		t.Errorf("reaper ran %d times", n)
	}
	// A cancel made directly in the store (as another instance would)
	// stops the work here.
	stopped := make(chan struct{})
	rec, err = e.Start(ctx, owner, tasks.CreateParams{Method: "tools/call"}, func(tc tasks.TaskContext) (json.RawMessage, error) {
		<-tc.Done()
		close(stopped)
		return nil, tc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Cancel(ctx, owner, rec.ID, "elsewhere"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-stopped:
	case <-ctx.Done():
		t.Fatal("work not stopped after a cancel by another instance")
	}
}

func TestEngineVariableNamesChecked(t *testing.T) {
	e, _ := newEngine(t)
	ctx := ctxT(t)
	rec, err := e.Start(ctx, owner, tasks.CreateParams{Method: "tools/call"}, func(tc tasks.TaskContext) (json.RawMessage, error) {
		if err := tc.SetVariables(map[string]json.RawMessage{"server.ok": json.RawMessage(`1`)}); err != nil {
			return nil, err
		}
		for _, bad := range []string{"bad key!", "client.answer"} {
			err := tc.SetVariables(map[string]json.RawMessage{bad: json.RawMessage(`2`), "server.ok": json.RawMessage(`2`)})
			if !errors.Is(err, tasks.ErrInvalidVariableName) {
				return nil, fmt.Errorf("SetVariables(%q) = %v, want ErrInvalidVariableName", bad, err)
			}
		}
		v, err := tc.Variables()
		if err != nil {
			return nil, err
		}
		if len(v) != 1 || string(v["server.ok"]) != "1" {
			return nil, fmt.Errorf("a refused SetVariables changed the variables: %v", v)
		}
		return json.RawMessage(`{"content":[]}`), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.Result(ctx, owner, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != tasks.StatusCompleted {
		t.Errorf("status %s: %s", got.Status, got.StatusMessage)
	}
	if _, err := e.Store().SetVariables(ctx, owner, rec.ID, map[string]json.RawMessage{"a b": json.RawMessage(`1`)}); !errors.Is(err, tasks.ErrInvalidVariableName) {
		t.Errorf("store SetVariables with a bad name: %v", err)
	}
}

func TestEngineExtendTTL(t *testing.T) {
	e, _ := newEngine(t)
	ctx := ctxT(t)
	maxTTL := e.Config().MaxTTL
	ttl := time.Minute
	type step struct {
		ttl     time.Duration
		wantErr error
		want    time.Duration
	}
	steps := []step{
		{ttl: maxTTL + time.Second, wantErr: tasks.ErrInvalidParams, want: time.Minute},
		{ttl: 30 * time.Second, wantErr: tasks.ErrInvalidParams, want: time.Minute},
		{ttl: 2 * time.Hour, want: 2 * time.Hour},
		{ttl: maxTTL, want: maxTTL},
	}
	release := make(chan struct{})
	errc := make(chan error, 1)
	rec, err := e.Start(ctx, owner, tasks.CreateParams{Method: "tools/call", TTL: &ttl}, func(tc tasks.TaskContext) (json.RawMessage, error) {
		for _, s := range steps {
			got, err := tc.ExtendTTL(s.ttl)
			if s.wantErr != nil {
				if !errors.Is(err, s.wantErr) {
					errc <- fmt.Errorf("ExtendTTL(%v) = %v, want %v", s.ttl, err, s.wantErr)
					return nil, err
				}
			} else if err != nil || got.TTL == nil || *got.TTL != s.want {
				errc <- fmt.Errorf("ExtendTTL(%v) = %+v, %v", s.ttl, got, err)
				return nil, err
			}
			if _, err := tc.Variables(); err != nil { // the task is still readable
				errc <- err
				return nil, err
			}
		}
		errc <- nil
		<-release
		return json.RawMessage(`{"content":[]}`), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	got, err := e.Get(ctx, owner, rec.ID)
	if err != nil || got.TTL == nil || *got.TTL != maxTTL || !got.ExpiresAt.Equal(got.CreatedAt.Add(maxTTL)) {
		t.Errorf("after the extensions: %+v, %v", got, err)
	}
	close(release)
	if _, err := e.Result(ctx, owner, rec.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Store().(tasks.TTLExtender).ExtendTTL(ctx, owner, rec.ID, maxTTL); !errors.Is(err, tasks.ErrInvalidTransition) {
		t.Errorf("extending a finished task: %v", err)
	}
}

// TestEngineWatchesEachTaskOfAReusedWorker runs tasks one after another,
// so that the same idle worker takes them, alternating work that ends at
// once (its pending watch is called off) with work that waits until a
// cancel made directly in the store (as another instance would) stops
// it: every waiting task must be watched, whatever ran on its worker
// before.
func TestEngineWatchesEachTaskOfAReusedWorker(t *testing.T) {
	cfg := tasks.Config{PollInterval: 50 * time.Millisecond}.WithDefaults()
	st := memory.New(cfg)
	e := tasks.NewEngine(st, cfg, quiet)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := e.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
		_ = st.Close()
	})
	ctx := ctxT(t)
	for i := range 6 {
		quick, err := e.Start(ctx, owner, tasks.CreateParams{Method: "tools/call"}, func(tasks.TaskContext) (json.RawMessage, error) {
			return json.RawMessage(`{}`), nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Result(ctx, owner, quick.ID); err != nil {
			t.Fatal(err)
		}
		stopped := make(chan struct{})
		rec, err := e.Start(ctx, owner, tasks.CreateParams{Method: "tools/call"}, func(tc tasks.TaskContext) (json.RawMessage, error) {
			<-tc.Done()
			close(stopped)
			return nil, tc.Err()
		})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(30 * time.Millisecond) // past the watch delay
		if _, err := st.Cancel(ctx, owner, rec.ID, "elsewhere"); err != nil {
			t.Fatal(err)
		}
		select {
		case <-stopped:
		case <-ctx.Done():
			t.Fatalf("task %d: work not stopped after a cancel by another instance", i)
		}
	}
}
