package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/tasks/client"
	"github.com/mcptasks/mcptasks/tasks/server"
	"github.com/mcptasks/mcptasks/tasks/server/reference"
)

// elicitRecorder is a client request handler that records the
// elicitations it gets and answers each with answer (or with what before
// returns, when set).
type elicitRecorder struct {
	mu     sync.Mutex
	got    []*client.Message
	answer map[string]any
	before func(ctx context.Context, req *client.Message)
}

func (r *elicitRecorder) handle(ctx context.Context, req *client.Message) (any, error) {
	r.mu.Lock()
	r.got = append(r.got, req)
	before := r.before
	r.mu.Unlock()
	if before != nil {
		before(ctx, req)
	}
	return r.answer, nil
}

func (r *elicitRecorder) messages() []*client.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*client.Message(nil), r.got...)
}

// pollTerminal polls tasks/get (never tasks/result) until the task ends.
func pollTerminal(ctx context.Context, t *testing.T, c *client.Client, id string) *schema.GetTaskResult {
	t.Helper()
	for {
		g, err := c.GetTask(ctx, id)
		if err != nil {
			t.Fatalf("tasks/get: %v", err)
		}
		if g.Terminal() {
			return g
		}
		select {
		case <-ctx.Done():
			t.Fatalf("task %s still %s: %v", id, g.Status, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// answerRaw posts a JSON-RPC response to the server request id and
// returns the HTTP status.
func answerRaw(ctx context.Context, t *testing.T, c *client.Client, id json.RawMessage, result string) int {
	t.Helper()
	body := []byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + result + `}`)
	resp, err := c.PostRaw(ctx, body)
	var he *client.HTTPError
	if err != nil && !errors.As(err, &he) {
		t.Fatalf("posting an answer: %v", err)
	}
	return resp.StatusCode
}

// A client that only polls tasks/get, like the official TypeScript one,
// gets the task's elicitation on its GET stream, answers it there, and the
// task completes; the request goes out on that one stream only.
func TestPollOnlyClientAnswersOnGETStream(t *testing.T) {
	tests := []struct {
		name string
		// streamFirst opens the GET stream before the task is created;
		// otherwise after the task is already input_required.
		streamFirst bool
	}{
		{"stream open before the task asks", true},
		{"stream opened while the task waits", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inst := start(t, reference.Options{})
			ctx := testCtx(t)
			rec := &elicitRecorder{answer: map[string]any{"action": "accept", "content": map[string]any{"answer": "42"}}}
			c := connect(t, inst.URL, client.WithRequestHandler(rec.handle))
			if tt.streamFirst {
				if err := c.OpenStream(ctx); err != nil {
					t.Fatal(err)
				}
			}
			ct, err := c.CallToolAsTask(ctx, server.FixtureInputTool, map[string]any{"question": "meaning of life?"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			id := ct.Task.TaskID
			if !tt.streamFirst {
				for {
					g, err := c.GetTask(ctx, id)
					if err != nil {
						t.Fatal(err)
					}
					if g.Status == "input_required" {
						break
					}
					if g.Status != "working" {
						t.Fatalf("status %q before input", g.Status)
					}
					time.Sleep(10 * time.Millisecond)
				}
				if err := c.OpenStream(ctx); err != nil {
					t.Fatal(err)
				}
			}
			final := pollTerminal(ctx, t, c, id)
			if final.Status != "completed" {
				t.Fatalf("final status %q, want completed", final.Status)
			}
			got := rec.messages()
			if len(got) != 1 {
				t.Fatalf("%d elicitations reached the client, want exactly 1", len(got))
			}
			e := got[0]
			if e.Method != "elicitation/create" || e.Stream != client.StreamGET {
				t.Errorf("elicitation %s on stream %s, want elicitation/create on %s", e.Method, e.Stream, client.StreamGET)
			}
			if rid, ok := client.RelatedTaskID(e.Params()); !ok || rid != id {
				t.Errorf("elicitation lacks related-task %s: %s", id, e.Params())
			}
			payload, err := c.Result(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(payload, []byte(`"answer":"42"`)) {
				t.Errorf("payload %s lacks the answer", payload)
			}
			if n := len(rec.messages()); n != 1 {
				t.Errorf("tasks/result carried the answered elicitation again: %d in all", n)
			}
		})
	}
}

// Only the first answer to an input request counts: a second one, sent
// while the first is being used or after the task ended, is refused and
// changes nothing.
func TestInputRequestAcceptsOneAnswer(t *testing.T) {
	inst := start(t, reference.Options{})
	ctx := testCtx(t)
	rec := &elicitRecorder{answer: map[string]any{"action": "accept", "content": map[string]any{"answer": "42"}}}
	var (
		firstStatus atomic.Int64
		c           *client.Client
	)
	// Before the client's own answer (accept) goes out, another one
	// (decline) is posted for the same request: it is the first, so it
	// wins and the client's is refused.
	rec.before = func(hctx context.Context, req *client.Message) {
		firstStatus.Store(int64(answerRaw(hctx, t, c, req.ID, `{"action":"decline"}`)))
	}
	// The answer posted from inside the handler may make the transport
	// dial a connection it then keeps unused; the server's shutdown would
	// wait 5 s for such a new connection, so it is closed first.
	hc := &http.Client{Transport: &http.Transport{}}
	c = connect(t, inst.URL, client.WithRequestHandler(rec.handle), client.WithHTTPClient(hc))
	t.Cleanup(hc.CloseIdleConnections)
	if err := c.OpenStream(ctx); err != nil {
		t.Fatal(err)
	}
	ct, err := c.CallToolAsTask(ctx, server.FixtureInputTool, map[string]any{"question": "meaning of life?"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := ct.Task.TaskID
	final := pollTerminal(ctx, t, c, id)
	if final.Status != "completed" {
		t.Fatalf("final status %q, want completed", final.Status)
	}
	// The handler records the status once its POST returns, which may be
	// just after the task ended.
	for firstStatus.Load() == 0 && ctx.Err() == nil {
		time.Sleep(5 * time.Millisecond)
	}
	if st := firstStatus.Load(); st != http.StatusAccepted {
		t.Errorf("first answer: HTTP %d, want %d", st, http.StatusAccepted)
	}
	got := rec.messages()
	if len(got) != 1 {
		t.Fatalf("%d elicitations, want 1", len(got))
	}
	payload, err := c.Result(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(payload, []byte(`"action":"decline"`)) || bytes.Contains(payload, []byte(`"answer":"42"`)) {
		t.Errorf("payload %s: the first answer (decline) must be the one used", payload)
	}
	// A late answer is refused and the stored result stays as it was.
	if st := answerRaw(ctx, t, c, got[0].ID, `{"action":"accept","content":{"answer":"43"}}`); st != http.StatusBadRequest {
		t.Errorf("late answer: HTTP %d, want %d", st, http.StatusBadRequest)
	}
	again, err := c.Result(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, payload) {
		t.Errorf("result changed after a late answer: %s, was %s", again, payload)
	}
}

// An input request handed to a session's GET stream that ends unanswered
// (the session is deleted) is delivered again, here on the tasks/result
// stream of another session of the same requestor.
func TestInputRequestOutlivesItsSession(t *testing.T) {
	verifier := server.NewStaticTokens(map[string]string{"tok-a1": "alice", "tok-a2": "alice"})
	inst := start(t, reference.Options{ServerOptions: []server.Option{server.WithTokenVerifier(verifier)}})
	ctx := testCtx(t)
	got := make(chan struct{}, 1)
	release := make(chan struct{})
	defer close(release)
	silent := func(hctx context.Context, req *client.Message) (any, error) {
		got <- struct{}{}
		select { // never answers while the test runs
		case <-release:
		case <-hctx.Done():
		}
		return nil, errors.New("gone")
	}
	a1 := connect(t, inst.URL, client.WithHeader("Authorization", "Bearer tok-a1"), client.WithRequestHandler(silent))
	rec := &elicitRecorder{answer: map[string]any{"action": "accept", "content": map[string]any{"answer": "green"}}}
	a2 := connect(t, inst.URL, client.WithHeader("Authorization", "Bearer tok-a2"), client.WithRequestHandler(rec.handle))
	if err := a1.OpenStream(ctx); err != nil {
		t.Fatal(err)
	}
	ct, err := a1.CallToolAsTask(ctx, server.FixtureInputTool, map[string]any{"question": "colour?"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Like a poll-only client, a1 gets the request on its GET stream once
	// its tasks/get has shown the task input_required.
	polled := false
	for !polled {
		g, err := a1.GetTask(ctx, ct.Task.TaskID)
		if err != nil {
			t.Fatal(err)
		}
		polled = g.Status == "input_required"
		if !polled {
			time.Sleep(5 * time.Millisecond)
		}
	}
	select {
	case <-got:
	case <-ctx.Done():
		t.Fatal("the elicitation never reached the first session's GET stream")
	}
	if st, err := a1.DeleteSession(ctx); err != nil || st != http.StatusNoContent {
		t.Fatalf("DELETE: %d %v", st, err)
	}
	payload, err := a2.Result(ctx, ct.Task.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(payload, []byte(`"answer":"green"`)) {
		t.Errorf("payload %s", payload)
	}
	msgs := rec.messages()
	if len(msgs) != 1 || msgs[0].Stream != client.StreamPOST {
		t.Errorf("second session got %d elicitations, want 1 on its tasks/result stream", len(msgs))
	}
}

// In 2025-11-25 two input requests of one task outstanding together both
// reach the client, on the tasks/result stream or, for a client that only
// polls, on its GET stream; both answers are taken and the task
// completes with both. A tool whose Prepare asks for input first (a
// multi-round-trip tool in 2026-07-28) asks through its task here.
func TestConcurrentInputRequests2025(t *testing.T) {
	tests := []struct {
		name     string
		tool     string
		args     map[string]any
		viaGET   bool
		requests int
		want     []string
	}{
		{"two at once on tasks/result", server.FixtureInputMultiTool, map[string]any{"question": "colour?"}, false, 2, []string{"answers: 42, 42"}},
		{"two at once on the GET stream", server.FixtureInputMultiTool, map[string]any{"question": "colour?"}, true, 2, []string{"answers: 42, 42"}},
		{"prepare asks through the task", server.FixtureMRTRThenTaskTool, map[string]any{"question": "name?"}, false, 1, []string{"answer: 42"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inst := start(t, reference.Options{})
			ctx := testCtx(t)
			rec := &elicitRecorder{answer: map[string]any{"action": "accept", "content": map[string]any{"answer": "42"}}}
			c := connect(t, inst.URL, client.WithRequestHandler(rec.handle))
			if tt.viaGET {
				if err := c.OpenStream(ctx); err != nil {
					t.Fatal(err)
				}
			}
			ct, err := c.CallToolAsTask(ctx, tt.tool, tt.args, nil)
			if err != nil {
				t.Fatal(err)
			}
			id := ct.Task.TaskID
			if tt.viaGET {
				if final := pollTerminal(ctx, t, c, id); final.Status != "completed" {
					t.Fatalf("final status %q", final.Status)
				}
			}
			payload, err := c.Result(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !bytes.Contains(payload, []byte(w)) {
					t.Errorf("payload %s lacks %q", payload, w)
				}
			}
			msgs := rec.messages()
			if len(msgs) != tt.requests {
				t.Fatalf("%d elicitations reached the client, want %d", len(msgs), tt.requests)
			}
			wantStream := client.StreamPOST
			if tt.viaGET {
				wantStream = client.StreamGET
			}
			for _, m := range msgs {
				if m.Stream != wantStream {
					t.Errorf("elicitation on stream %s, want %s", m.Stream, wantStream)
				}
			}
		})
	}
}
