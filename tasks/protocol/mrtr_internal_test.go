package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/tasks"
)

// A requestState opens only for the requestor, tool and arguments it was
// sealed for, before it expires, under the key of the core that sealed
// it, and unchanged.
func TestRequestStateVerification(t *testing.T) {
	c := newTestCore(t)
	other := newTestCore(t)
	args := json.RawMessage(`{"a":1,"b":"x"}`)
	seal := func(c *Core, expires time.Time) string {
		t.Helper()
		s, err := c.sealState(sealedState{Owner: "ext:alice", Tool: "tool", Args: argsDigest(args), Expires: expires.UnixMilli(), Keys: []string{"k"}, State: []byte("st")})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	later := time.Now().Add(time.Minute)
	good := seal(c, later)
	flip := func(s string, i int) string {
		b := []byte(s)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		return string(b)
	}
	cases := []struct {
		name  string
		state string
		owner string
		tool  string
		args  string
		want  string // "" means it opens
	}{
		{"sealed state", good, "ext:alice", "tool", string(args), ""},
		{"arguments reordered and spaced", good, "ext:alice", "tool", `{ "b":"x", "a":1 }`, ""},
		{"payload changed", flip(good, 3), "ext:alice", "tool", string(args), "integrity"},
		{"MAC changed", flip(good, len(good)-3), "ext:alice", "tool", string(args), "integrity"},
		{"no MAC", strings.Split(good, ".")[0], "ext:alice", "tool", string(args), "malformed"},
		{"another core's key", seal(other, later), "ext:alice", "tool", string(args), "integrity"},
		{"another requestor", good, "ext:bob", "tool", string(args), "another requestor"},
		{"another tool", good, "ext:alice", "tool2", string(args), "another tool"},
		{"other arguments", good, "ext:alice", "tool", `{"a":2,"b":"x"}`, "other arguments"},
		{"expired", seal(c, time.Now().Add(-time.Second)), "ext:alice", "tool", string(args), "expired"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := c.openState(tc.state, "ext:alice", tc.tool, json.RawMessage(tc.args))
			if tc.owner != "ext:alice" {
				s, err = c.openState(tc.state, "ext:bob", tc.tool, json.RawMessage(tc.args))
			}
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want == "" && (string(s.State) != "st" || len(s.Keys) != 1):
				t.Fatalf("opened %+v", s)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want one about %q", err, tc.want)
			}
		})
	}
}

// Answers count only under the keys the verified state names; without a
// state none count.
func TestReadRetryKeepsAskedKeysOnly(t *testing.T) {
	c := newTestCore(t)
	args := json.RawMessage(`{}`)
	state, err := c.sealState(sealedState{Owner: "o", Tool: "t", Args: argsDigest(args), Expires: time.Now().Add(time.Minute).UnixMilli(), Keys: []string{"asked"}})
	if err != nil {
		t.Fatal(err)
	}
	answers := json.RawMessage(`{"asked":{"action":"accept"},"unasked":{"action":"accept"}}`)
	tc := &ToolCall{Name: "t", Arguments: args}
	if err := c.readRetry("o", tc, answers, &state); err != nil {
		t.Fatal(err)
	}
	if len(tc.InputResponses) != 1 || tc.InputResponses["asked"] == nil {
		t.Errorf("responses %v, want only the asked key", tc.InputResponses)
	}
	tc = &ToolCall{Name: "t", Arguments: args}
	if err := c.readRetry("o", tc, answers, nil); err != nil || tc.InputResponses != nil {
		t.Errorf("without a state: %v %v", err, tc.InputResponses)
	}
	if err := c.readRetry("o", &ToolCall{Name: "t", Arguments: args}, json.RawMessage(`{"asked":1}`), &state); err == nil {
		t.Error("a non-object answer was taken")
	}
}

// Inside a task, a round whose one request fails gives up on the others
// instead of waiting for them forever; a round fully answered runs
// Prepare again with the answers.
func TestPrepareInTask(t *testing.T) {
	cases := []struct {
		name    string
		wantErr string
	}{
		{"one request fails", "no roots here"},
		{"both answered", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestCore(t)
			input := func(ctx context.Context, _ tasks.Record, req tasks.InputRequest) (json.RawMessage, error) {
				if req.Method == "roots/list" {
					if tc.wantErr != "" {
						return nil, errors.New(tc.wantErr)
					}
					return json.RawMessage(`{"roots":[]}`), nil
				}
				if tc.wantErr != "" {
					<-ctx.Done() // never answered
					return nil, context.Cause(ctx)
				}
				return json.RawMessage(`{"action":"accept"}`), nil
			}
			rounds := 0
			prepare := func(_ context.Context, call *ToolCall) error {
				rounds++
				if len(call.InputResponses) == 2 {
					return nil
				}
				return &InputRequired{Requests: map[string]tasks.InputRequest{
					"a": {Method: "elicitation/create", Params: json.RawMessage(`{}`)},
					"b": {Method: "roots/list"},
				}}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			done := make(chan error, 1)
			_, err := c.engine.Start(ctx, "alice", tasks.CreateParams{Method: "tools/call"}, func(tt tasks.TaskContext) (json.RawMessage, error) {
				err := prepareInTask(tt, prepare, &ToolCall{Name: "t", Arguments: json.RawMessage(`{}`)})
				done <- err
				return json.RawMessage(`{"content":[]}`), nil
			}, tasks.WithInput(input))
			if err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				switch {
				case tc.wantErr == "" && (err != nil || rounds != 2):
					t.Errorf("err %v after %d rounds, want none after 2", err, rounds)
				case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
					t.Errorf("err %v, want %q", err, tc.wantErr)
				}
			case <-ctx.Done():
				t.Fatal("prepareInTask still waits")
			}
		})
	}
}

// A 2026-07-28 task that asks many questions, two at a time, gives each a
// key of its own: no key is used twice over the task's life, and every
// asked key stays stored (answered) so it can never come back.
func TestModernInputKeysNeverReused(t *testing.T) {
	const rounds = 10
	c := newTestCore(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	owner := ModernOwner("alice")
	rec, err := c.engine.Start(ctx, owner, tasks.CreateParams{Method: "tools/call"}, func(tt tasks.TaskContext) (json.RawMessage, error) {
		for range rounds {
			errs := make(chan error, 2)
			for range 2 {
				go func() {
					_, err := tt.RequireInput(tt, tasks.InputRequest{Method: "elicitation/create", Params: json.RawMessage(`{"message":"q"}`)})
					errs <- err
				}()
			}
			if err := errors.Join(<-errs, <-errs); err != nil {
				return nil, err
			}
		}
		return json.RawMessage(`{"content":[]}`), nil
	}, tasks.WithInput(c.modernInput(true)))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for {
		cur, err := c.engine.Get(ctx, owner, rec.ID)
		if err != nil {
			t.Fatal(err)
		}
		if cur.Status.Terminal() {
			if cur.Status != tasks.StatusCompleted {
				t.Fatalf("task ended %s: %s", cur.Status, cur.StatusMessage)
			}
			break
		}
		// Answer whatever is outstanding, as tasks/update does.
		patch := map[string]json.RawMessage{}
		for k := range outstandingInput(cur.Variables) {
			if seen[k] {
				t.Fatalf("key %q asked again", k)
			}
			seen[k] = true
			patch[inputResponseVar+k] = json.RawMessage(`{"result":{"action":"accept"}}`)
		}
		if len(patch) > 0 {
			if _, err := c.engine.Store().SetVariables(ctx, owner, rec.ID, patch); err != nil {
				t.Fatal(err)
			}
			c.modernWake().signal()
		}
		time.Sleep(2 * time.Millisecond)
	}
	final, err := c.engine.Get(ctx, owner, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	stored := 0
	for k := range final.Variables {
		if key, ok := strings.CutPrefix(k, inputRequestVar); ok {
			stored++
			if !seen[key] {
				t.Errorf("stored key %q was never shown", key)
			}
		}
	}
	if len(seen) != 2*rounds || stored != 2*rounds {
		t.Errorf("%d keys shown and %d stored, want %d distinct", len(seen), stored, 2*rounds)
	}
}
