package protocol

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
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
