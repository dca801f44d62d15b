package protocol

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/stores/memory"
	"github.com/mcptasks/mcptasks/tasks"
)

// listener is a session whose standalone stream is open; it records what
// the core hands to it.
type listener struct {
	mu   sync.Mutex
	got  [][]byte
	wake chan struct{}
}

func newListener() *listener { return &listener{wake: make(chan struct{}, 16)} }

func (l *listener) SessionID() string  { return "s1" }
func (l *listener) Owner() tasks.Owner { return "alice" }
func (l *listener) Listening() bool    { return true }
func (l *listener) ElicitForm() bool   { return true }
func (l *listener) Send([]byte) error  { return nil }
func (l *listener) Notify(msg []byte) {
	l.mu.Lock()
	l.got = append(l.got, msg)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// requests returns the server-to-client requests the session got (status
// notifications are left out).
func (l *listener) requests() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, m := range l.got {
		if strings.Contains(string(m), `"method":"elicitation/create"`) {
			out = append(out, string(m))
		}
	}
	return out
}

func newTestCore(t *testing.T) *Core {
	t.Helper()
	cfg := tasks.Config{}.WithDefaults()
	st := memory.New(cfg)
	eng := tasks.NewEngine(st, cfg)
	t.Cleanup(func() {
		_ = eng.Close(context.Background())
		_ = st.Close()
	})
	c, err := New(eng)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// startAsking starts a task of sess's owner that asks for input; the
// request is queued only once queue is closed, so the test controls the
// gap between the stored input_required status and the queued request.
func startAsking(ctx context.Context, t *testing.T, c *Core, sess *listener, queue <-chan struct{}) string {
	t.Helper()
	ask := c.inputFor(sess)
	input := func(ctx context.Context, rec tasks.Record, req tasks.InputRequest) (json.RawMessage, error) {
		<-queue
		return ask(ctx, rec, req)
	}
	rec, err := c.engine.Start(ctx, sess.Owner(), tasks.CreateParams{Method: "tools/call"},
		func(tc tasks.TaskContext) (json.RawMessage, error) {
			ans, err := tc.RequireInput(tc, tasks.InputRequest{Method: "elicitation/create", Params: json.RawMessage(`{"message":"q","requestedSchema":{"type":"object"}}`)})
			if err != nil {
				return nil, err
			}
			return json.RawMessage(`{"content":[],"structuredContent":` + string(ans) + `}`), nil
		}, tasks.WithInput(input))
	if err != nil {
		t.Fatal(err)
	}
	return rec.ID
}

// pollUntilInputRequired polls tasks/get through the core until the task
// is input_required.
func pollUntilInputRequired(ctx context.Context, t *testing.T, c *Core, sess *listener, id string) {
	t.Helper()
	for {
		res, err := c.Handle(ctx, sess, "tasks/get", json.RawMessage(`{"taskId":"`+id+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(res), `"status":"input_required"`) {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("task %s never became input_required", id)
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// pendingOf reports whether task id has a queued input request.
func pendingOf(c *Core, id string) bool {
	c.pmu.Lock()
	defer c.pmu.Unlock()
	b := c.inboxes[id]
	return b != nil && len(b.items) > 0
}

func waitRequest(ctx context.Context, t *testing.T, l *listener) string {
	t.Helper()
	for {
		if r := l.requests(); len(r) > 0 {
			return r[0]
		}
		select {
		case <-l.wake:
		case <-ctx.Done():
			t.Fatal("the input request never reached the standalone stream")
		}
	}
}

// An input request waits for the owner's tasks/get to show the task
// input_required before it goes out on the standalone stream: sent
// earlier, it could overtake the CreateTaskResult.
func TestInputWaitsForAPollShowingInputRequired(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	c := newTestCore(t)
	sess := newListener()
	c.AddSession(sess)
	defer c.RemoveSession(sess)
	queue := make(chan struct{})
	close(queue)
	id := startAsking(ctx, t, c, sess, queue)
	for !pendingOf(c, id) {
		select {
		case <-ctx.Done():
			t.Fatal("the request was never queued")
		case <-time.After(time.Millisecond):
		}
	}
	if r := sess.requests(); len(r) != 0 {
		t.Fatalf("the request went out before any tasks/get showed input_required: %s", r[0])
	}
	pollUntilInputRequired(ctx, t, c, sess, id)
	msg := waitRequest(ctx, t, sess)
	if !strings.Contains(msg, id) {
		t.Errorf("request lacks the related task %s: %s", id, msg)
	}
	// A second poll does not send it again.
	pollUntilInputRequired(ctx, t, c, sess, id)
	if n := len(sess.requests()); n != 1 {
		t.Errorf("%d requests on the stream, want 1", n)
	}
}

// A poll that lands after the input_required status is stored but before
// the request is queued still gets the request to the standalone stream,
// without a further poll.
func TestInputSeenBeforeTheRequestIsQueued(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	c := newTestCore(t)
	sess := newListener()
	c.AddSession(sess)
	defer c.RemoveSession(sess)
	queue := make(chan struct{})
	id := startAsking(ctx, t, c, sess, queue)
	pollUntilInputRequired(ctx, t, c, sess, id)
	if pendingOf(c, id) {
		t.Fatal("the request was queued before the test let it")
	}
	close(queue)
	msg := waitRequest(ctx, t, sess)
	if !strings.Contains(msg, id) {
		t.Errorf("request lacks the related task %s: %s", id, msg)
	}
}

// The mark of a poll counts only for the owner who polled, only for a
// while, and the marks kept at once are capped.
func TestShownMarks(t *testing.T) {
	now := time.Unix(1000, 0)
	tests := []struct {
		name  string
		owner tasks.Owner
		after time.Duration
		want  bool
	}{
		{"same owner at once", "alice", 0, true},
		{"another owner", "bob", 0, false},
		{"expired", "alice", shownMarkTTL + time.Millisecond, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m shownMarks
			m.put("t1", "alice", now)
			if got := m.take("t1", tt.owner, now.Add(tt.after)); got != tt.want {
				t.Errorf("take = %v, want %v", got, tt.want)
			}
			if m.take("t1", "alice", now) {
				t.Error("a mark counted twice")
			}
		})
	}
	var m shownMarks
	for i := range maxShownMarks + 10 {
		m.put(string(rune('a'+i%26))+strings.Repeat("x", i/26), "alice", now)
	}
	if len(m) != maxShownMarks {
		t.Errorf("%d marks kept, want the cap %d", len(m), maxShownMarks)
	}
	// Expired marks make room for new ones.
	m.put("late", "alice", now.Add(shownMarkTTL+time.Second))
	if len(m) != 1 || !m.take("late", "alice", now.Add(shownMarkTTL+time.Second)) {
		t.Errorf("expired marks were not dropped for a new one: %d kept", len(m))
	}
}
