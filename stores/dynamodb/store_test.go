package dynamodb_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/mcptasks/mcptasks/stores/dynamodb"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
)

func TestLifecycle(t *testing.T) {
	clk := fakeClock()
	s := newStore(t, tasks.Config{Clock: clk})
	ctx := ctxT(t)
	const owner tasks.Owner = "alice"

	r, err := s.Create(ctx, owner, tasks.CreateParams{Method: "tools/call", StatusMessage: "hi",
		Variables: map[string]json.RawMessage{"k": json.RawMessage(`{"a": 1}`)}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != tasks.StatusWorking || r.Version != 1 || r.TTL == nil || *r.TTL != time.Hour {
		t.Fatalf("created %+v", r)
	}
	got, err := s.Get(ctx, owner, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !got.CreatedAt.Equal(r.CreatedAt) || !got.ExpiresAt.Equal(r.ExpiresAt) || got.Method != "tools/call" ||
		got.StatusMessage != "hi" || string(got.Variables["k"]) != `{"a": 1}` || got.PollInterval != r.PollInterval {
		t.Fatalf("get = %+v, want %+v", got, r)
	}
	if _, err := s.Get(ctx, "bob", r.ID); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("other owner: %v", err)
	}
	if _, err := s.Result(ctx, owner, r.ID); !errors.Is(err, tasks.ErrNotReady) {
		t.Fatalf("result of working task: %v", err)
	}
	clk.Advance(time.Second)
	tr, err := s.Transition(ctx, owner, r.ID, tasks.StatusInputRequired, "need input")
	if err != nil {
		t.Fatal(err)
	}
	if tr.Status != tasks.StatusInputRequired || tr.Version != 2 || !tr.LastUpdatedAt.Equal(clk.Now()) {
		t.Fatalf("transition = %+v", tr)
	}
	if _, err := s.Transition(ctx, owner, r.ID, tasks.StatusInputRequired, ""); !errors.Is(err, tasks.ErrInvalidTransition) {
		t.Fatalf("self transition: %v", err)
	}
	if _, err := s.Transition(ctx, owner, r.ID, tasks.StatusCompleted, ""); !errors.Is(err, tasks.ErrInvalidTransition) {
		t.Fatalf("terminal through Transition: %v", err)
	}
	res := json.RawMessage(`{"content": [ ]}`)
	done, err := s.Complete(ctx, owner, r.ID, tasks.StatusCompleted, "", tasks.Outcome{Result: res})
	if err != nil {
		t.Fatal(err)
	}
	if done.Status != tasks.StatusCompleted || done.StatusMessage != "" || done.Outcome != nil {
		t.Fatalf("complete = %+v", done)
	}
	out, err := s.Result(ctx, owner, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if out.Outcome == nil || string(out.Outcome.Result) != string(res) {
		t.Fatalf("result outcome = %+v", out.Outcome)
	}
	_, err = s.Cancel(ctx, owner, r.ID, "")
	var te *tasks.Error
	if !errors.As(err, &te) || !errors.Is(err, tasks.ErrInvalidTransition) || te.Status != tasks.StatusCompleted {
		t.Fatalf("cancel of completed: %v", err)
	}
	_, err = s.Complete(ctx, owner, r.ID, tasks.StatusFailed, "", tasks.Outcome{Result: res})
	if !errors.Is(err, tasks.ErrInvalidTransition) {
		t.Fatalf("complete twice: %v", err)
	}
}

func TestErrorOutcomesAndCancel(t *testing.T) {
	s := newStore(t, tasks.Config{Clock: fakeClock()})
	ctx := ctxT(t)
	a, _ := s.Create(ctx, "o", tasks.CreateParams{})
	b, _ := s.Create(ctx, "o", tasks.CreateParams{})
	rpc := &tasks.RPCError{Code: -32000, Message: "boom", Data: json.RawMessage(`{"x": [1, 2]}`)}
	if _, err := s.Complete(ctx, "o", a.ID, tasks.StatusFailed, "bad", tasks.Outcome{Error: rpc}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Result(ctx, "o", a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if e := got.Outcome.Error; e == nil || e.Code != rpc.Code || e.Message != rpc.Message || string(e.Data) != string(rpc.Data) || got.StatusMessage != "bad" {
		t.Fatalf("error outcome = %+v", got)
	}
	if _, err := s.Cancel(ctx, "o", b.ID, ""); err != nil {
		t.Fatal(err)
	}
	got, _ = s.Result(ctx, "o", b.ID)
	want := storekit.CancelledOutcome("")
	if got.Status != tasks.StatusCancelled || got.Outcome.Error.Code != want.Error.Code || got.Outcome.Error.Message != want.Error.Message {
		t.Fatalf("cancelled = %+v", got)
	}
	// Invalid arguments on a missing task report the missing task first.
	cases := []struct {
		name string
		call func() error
		want error
	}{
		{"complete missing", func() error {
			_, err := s.Complete(ctx, "o", "nope", tasks.StatusCompleted, "", tasks.Outcome{Result: json.RawMessage(`1`)})
			return err
		}, tasks.ErrNotFound},
		{"complete bad outcome", func() error {
			c, _ := s.Create(ctx, "o", tasks.CreateParams{})
			_, err := s.Complete(ctx, "o", c.ID, tasks.StatusCompleted, "", tasks.Outcome{})
			return err
		}, tasks.ErrInvalidParams},
		{"complete as cancelled", func() error {
			c, _ := s.Create(ctx, "o", tasks.CreateParams{})
			_, err := s.Complete(ctx, "o", c.ID, tasks.StatusCancelled, "", tasks.Outcome{Result: json.RawMessage(`1`)})
			return err
		}, tasks.ErrInvalidTransition},
		{"transition missing", func() error {
			_, err := s.Transition(ctx, "o", "nope", tasks.StatusCompleted, "")
			return err
		}, tasks.ErrNotFound},
		{"cancel other owner", func() error {
			_, err := s.Cancel(ctx, "p", b.ID, "")
			return err
		}, tasks.ErrNotFound},
		{"huge id", func() error {
			_, err := s.Cancel(ctx, "o", strings.Repeat("x", 5000), "")
			return err
		}, tasks.ErrNotFound},
		{"id naming a counter item", func() error {
			_, err := s.Get(ctx, "o", "../owner#o")
			return err
		}, tasks.ErrNotFound},
	}
	for _, c := range cases {
		if err := c.call(); !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
	}
}

func TestVariables(t *testing.T) {
	s := newStore(t, tasks.Config{Clock: fakeClock(), MaxVariablesBytes: 100})
	ctx := ctxT(t)
	r, _ := s.Create(ctx, "o", tasks.CreateParams{})
	got, err := s.SetVariables(ctx, "o", r.ID, map[string]json.RawMessage{"a": json.RawMessage(`1`), "b": json.RawMessage(`"x"`)})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Variables) != 2 || got.Version != 2 {
		t.Fatalf("after set: %+v", got)
	}
	got, err = s.SetVariables(ctx, "o", r.ID, map[string]json.RawMessage{"a": json.RawMessage(`null`)})
	if err != nil || len(got.Variables) != 1 || string(got.Variables["b"]) != `"x"` {
		t.Fatalf("after delete: %+v %v", got, err)
	}
	_, err = s.SetVariables(ctx, "o", r.ID, map[string]json.RawMessage{"big": json.RawMessage(`"` + strings.Repeat("x", 200) + `"`)})
	if !errors.Is(err, tasks.ErrVariablesTooLarge) {
		t.Fatalf("oversized: %v", err)
	}
	got, _ = s.Get(ctx, "o", r.ID)
	if len(got.Variables) != 1 || got.Version != 3 {
		t.Fatalf("oversized patch changed the task: %+v", got)
	}
	got, err = s.SetVariables(ctx, "o", r.ID, map[string]json.RawMessage{"b": json.RawMessage(`null`)})
	if err != nil || got.Variables != nil {
		t.Fatalf("after deleting all: %+v %v", got, err)
	}
	if _, err := dynamodb.Open(ctx, nil, "t", tasks.Config{}); err == nil {
		t.Fatal("Open with a nil client succeeded")
	}
	c, _ := client(t)
	if _, err := dynamodb.Open(ctx, c, "t", tasks.Config{MaxVariablesBytes: 1 << 20}); err == nil {
		t.Fatal("Open with variables bigger than an item succeeded")
	}
}

func TestExpiry(t *testing.T) {
	clk := fakeClock()
	s := newStore(t, tasks.Config{Clock: clk})
	ctx := ctxT(t)
	short := 2 * time.Second
	a, _ := s.Create(ctx, "o", tasks.CreateParams{TTL: &short})
	b, _ := s.Create(ctx, "o", tasks.CreateParams{})
	clk.Advance(short)
	if _, err := s.Get(ctx, "o", a.ID); !errors.Is(err, tasks.ErrExpired) {
		t.Fatalf("get expired: %v", err)
	}
	if _, err := s.Cancel(ctx, "o", a.ID, ""); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("cancel expired: %v", err)
	}
	if err := s.RenewLease(ctx, "o", a.ID, clk.Now().Add(time.Minute)); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("renew expired: %v", err)
	}
	p, err := s.List(ctx, "o", tasks.ListOptions{})
	if err != nil || len(p.Tasks) != 1 || p.Tasks[0].ID != b.ID {
		t.Fatalf("list = %+v, %v", p, err)
	}
	n, err := s.DeleteExpired(ctx)
	if err != nil || n != 1 {
		t.Fatalf("delete expired = %d, %v", n, err)
	}
	if n, _ := s.DeleteExpired(ctx); n != 0 {
		t.Fatalf("second delete expired = %d", n)
	}
	if _, err := s.Get(ctx, "o", b.ID); err != nil {
		t.Fatal(err)
	}
}

func TestLimit(t *testing.T) {
	clk := fakeClock()
	s := newStore(t, tasks.Config{Clock: clk, MaxTasksPerOwner: 3})
	ctx := ctxT(t)
	short := time.Minute
	var ids []string
	for range 3 {
		r, err := s.Create(ctx, "o", tasks.CreateParams{TTL: &short})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
	}
	if _, err := s.Create(ctx, "o", tasks.CreateParams{}); !errors.Is(err, tasks.ErrLimit) {
		t.Fatalf("fourth create: %v", err)
	}
	if _, err := s.Create(ctx, "other", tasks.CreateParams{}); err != nil {
		t.Fatalf("another owner is not limited: %v", err)
	}
	if _, err := s.Cancel(ctx, "o", ids[0], ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(ctx, "o", tasks.CreateParams{}); err != nil {
		t.Fatalf("create after a slot was freed: %v", err)
	}
	if _, err := s.Create(ctx, "o", tasks.CreateParams{}); !errors.Is(err, tasks.ErrLimit) {
		t.Fatalf("create over the limit again: %v", err)
	}
	// The two short-lived tasks still open expire: reconciliation frees
	// their slots although nothing decremented the counter.
	clk.Advance(short)
	for range 2 {
		if _, err := s.Create(ctx, "o", tasks.CreateParams{}); err != nil {
			t.Fatalf("create after expiry: %v", err)
		}
	}
	if _, err := s.Create(ctx, "o", tasks.CreateParams{}); !errors.Is(err, tasks.ErrLimit) {
		t.Fatalf("limit after reconciliation: %v", err)
	}
}

func TestWait(t *testing.T) {
	s := newStore(t, tasks.Config{Clock: fakeClock(), PollInterval: 10 * time.Millisecond})
	ctx := ctxT(t)
	r, _ := s.Create(ctx, "o", tasks.CreateParams{})
	got, err := s.Wait(ctx, "o", r.ID, 0)
	if err != nil || got.Version != 1 {
		t.Fatalf("wait for an old version: %+v %v", got, err)
	}
	done := make(chan tasks.Record, 1)
	errc := make(chan error, 1)
	go func() {
		got, err := s.Wait(ctx, "o", r.ID, r.Version)
		errc <- err
		done <- got
	}()
	time.Sleep(30 * time.Millisecond)
	if _, err := s.Complete(ctx, "o", r.ID, tasks.StatusCompleted, "", tasks.Outcome{Result: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if got := <-done; got.Status != tasks.StatusCompleted {
		t.Fatalf("woke with %+v", got)
	}
	if _, err := s.Wait(ctx, "x", r.ID, 0); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("wait on other owner's task: %v", err)
	}
}

func TestLeases(t *testing.T) {
	clk := fakeClock()
	s := newStore(t, tasks.Config{Clock: clk, MaxTasksPerOwner: 2})
	ctx := ctxT(t)
	leased, _ := s.Create(ctx, "o", tasks.CreateParams{})
	free, _ := s.Create(ctx, "o", tasks.CreateParams{})
	if err := s.RenewLease(ctx, "o", leased.ID, clk.Now().Add(tasks.DefaultLeaseDuration)); err != nil {
		t.Fatal(err)
	}
	if n := indexCount(t, s, dynamodb.LeaseIndex); n != 1 {
		t.Fatalf("the lease index holds %d entries, want the leased task only", n)
	}
	if err := s.RenewLease(ctx, "o", "missing", clk.Now()); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("renew missing: %v", err)
	}
	if err := s.RenewLease(ctx, "p", leased.ID, clk.Now()); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("renew other owner's: %v", err)
	}
	if n, err := s.ReapExpiredLeases(ctx); err != nil || n != 0 {
		t.Fatalf("reap before lapse = %d, %v", n, err)
	}
	clk.Advance(tasks.DefaultLeaseDuration)
	if n, err := s.ReapExpiredLeases(ctx); err != nil || n != 1 {
		t.Fatalf("reap after lapse = %d, %v", n, err)
	}
	got, err := s.Result(ctx, "o", leased.ID)
	if err != nil {
		t.Fatal(err)
	}
	lost := storekit.LostWorkerOutcome()
	if got.Status != tasks.StatusFailed || got.StatusMessage == "" || got.Outcome.Error == nil || got.Outcome.Error.Code != lost.Error.Code {
		t.Fatalf("reaped = %+v", got)
	}
	if err := s.RenewLease(ctx, "o", leased.ID, clk.Now().Add(time.Minute)); err != nil {
		t.Fatalf("renew of a terminal task must be a no-op: %v", err)
	}
	if n, _ := s.ReapExpiredLeases(ctx); n != 0 {
		t.Fatalf("reaped twice: %d", n)
	}
	if n := indexCount(t, s, dynamodb.LeaseIndex); n != 0 {
		t.Fatalf("the lease index still holds %d entries; ended tasks must leave it", n)
	}
	if g, _ := s.Get(ctx, "o", free.ID); g.Status != tasks.StatusWorking {
		t.Fatalf("task without lease was touched: %+v", g)
	}
	// The reaped task freed its slot.
	if _, err := s.Create(ctx, "o", tasks.CreateParams{}); err != nil {
		t.Fatalf("create after reap: %v", err)
	}
}

// indexCount counts the items of one of the store's indexes.
func indexCount(t *testing.T, s *dynamodb.Store, index string) int {
	t.Helper()
	c, _ := client(t)
	out, err := c.Scan(t.Context(), &ddb.ScanInput{TableName: aws.String(s.Table()), IndexName: aws.String(index), Select: types.SelectCount})
	if err != nil {
		t.Fatal(err)
	}
	return int(out.Count)
}

func TestClosed(t *testing.T) {
	s := newStore(t, tasks.Config{Clock: fakeClock()})
	ctx := ctxT(t)
	_ = s.Close()
	if _, err := s.Create(ctx, "o", tasks.CreateParams{}); !errors.Is(err, dynamodb.ErrClosed) {
		t.Fatalf("create after close: %v", err)
	}
}

// TestLimitReconciliation: slots held by tasks that vanished, or by a
// creator that died mid-create, are freed when the cap is reached, and a
// half-created task stays invisible.
func TestLimitReconciliation(t *testing.T) {
	clk := fakeClock()
	s := newStore(t, tasks.Config{Clock: clk, MaxTasksPerOwner: 2})
	ctx := ctxT(t)
	c, _ := client(t)
	gone, err := s.Create(ctx, "o", tasks.CreateParams{})
	if err != nil {
		t.Fatal(err)
	}
	ghost, err := s.CrashedCreate(ctx, "o")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "o", ghost); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("half-created task is visible: %v", err)
	}
	if p, _ := s.List(ctx, "o", tasks.ListOptions{}); len(p.Tasks) != 1 {
		t.Fatalf("list shows %d tasks, want 1 (the half-created one is hidden)", len(p.Tasks))
	}
	if _, err := s.Create(ctx, "o", tasks.CreateParams{}); !errors.Is(err, tasks.ErrLimit) {
		t.Fatalf("cap with a young half-created task: %v", err)
	}
	// A task deleted behind the store's back (as DynamoDB's TTL does)
	// frees its slot.
	if _, err := c.DeleteItem(ctx, &ddb.DeleteItemInput{TableName: aws.String(s.Table()),
		Key: map[string]types.AttributeValue{dynamodb.AttrPK: &types.AttributeValueMemberS{Value: "task#" + gone.ID}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(ctx, "o", tasks.CreateParams{}); err != nil {
		t.Fatalf("create after a task vanished: %v", err)
	}
	if _, err := s.Create(ctx, "o", tasks.CreateParams{}); !errors.Is(err, tasks.ErrLimit) {
		t.Fatalf("cap not restored: %v", err)
	}
	// The dead creator's slot is freed once its task is a minute old.
	clk.Advance(2 * time.Minute)
	if _, err := s.Create(ctx, "o", tasks.CreateParams{}); err != nil {
		t.Fatalf("create after the half-created task went stale: %v", err)
	}
}
