package storekit

import (
	"encoding/json"
	"errors"
	"regexp"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/mcptasks/mcptasks/tasks"
)

func TestNewRecord(t *testing.T) {
	clk := tasks.NewFakeClock(time.Date(2026, 11, 22, 12, 0, 0, 999999, time.UTC))
	cfg := tasks.Config{Clock: clk, PollInterval: 250 * time.Millisecond}.WithDefaults()
	ttl := 2 * time.Minute
	r, err := NewRecord(cfg, "sub:a", tasks.CreateParams{Method: "tools/call", TTL: &ttl, Variables: map[string]json.RawMessage{"server.k": json.RawMessage(`1`)}})
	if err != nil {
		t.Fatal(err)
	}
	u, err := uuid.Parse(r.ID)
	if err != nil || u.Version() != 4 {
		t.Fatalf("id %q is not a UUIDv4: %v", r.ID, err)
	}
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	if r.Status != tasks.StatusWorking || r.Version != 1 || !r.CreatedAt.Equal(now) || !r.LastUpdatedAt.Equal(now) ||
		*r.TTL != ttl || !r.ExpiresAt.Equal(now.Add(ttl)) || r.PollInterval != 250*time.Millisecond || string(r.Variables["server.k"]) != "1" {
		t.Fatalf("unexpected record %+v", r)
	}
	if _, err := NewRecord(cfg, "", tasks.CreateParams{}); !errors.Is(err, tasks.ErrInvalidParams) {
		t.Fatalf("empty owner: err = %v", err)
	}
}

func TestCheckComplete(t *testing.T) {
	ok := tasks.Outcome{Result: json.RawMessage(`{"content":[]}`)}
	working := tasks.Record{ID: "t", Status: tasks.StatusWorking}
	tests := []struct {
		name    string
		r       tasks.Record
		to      tasks.Status
		o       tasks.Outcome
		wantErr error
	}{
		{"completed", working, tasks.StatusCompleted, ok, nil},
		{"failed with error", working, tasks.StatusFailed, tasks.Outcome{Error: &tasks.RPCError{Code: -32603, Message: "x"}}, nil},
		{"cancel via complete", working, tasks.StatusCancelled, ok, tasks.ErrInvalidTransition},
		{"to working", working, tasks.StatusWorking, ok, tasks.ErrInvalidTransition},
		{"already terminal", tasks.Record{ID: "t", Status: tasks.StatusCancelled}, tasks.StatusCompleted, ok, tasks.ErrInvalidTransition},
		{"both set", working, tasks.StatusCompleted, tasks.Outcome{Result: ok.Result, Error: &tasks.RPCError{}}, tasks.ErrInvalidParams},
		{"neither set", working, tasks.StatusCompleted, tasks.Outcome{}, tasks.ErrInvalidParams},
		{"bad json", working, tasks.StatusCompleted, tasks.Outcome{Result: json.RawMessage(`{`)}, tasks.ErrInvalidParams},
	}
	for _, tt := range tests {
		if err := CheckComplete(tt.r, tt.to, tt.o); !errors.Is(err, tt.wantErr) {
			t.Errorf("%s: err = %v, want %v", tt.name, err, tt.wantErr)
		}
	}
}

func TestCheckTransitionRejectsTerminalTargets(t *testing.T) {
	r := tasks.Record{ID: "t", Status: tasks.StatusWorking}
	if err := CheckTransition(r, tasks.StatusInputRequired); err != nil {
		t.Fatal(err)
	}
	for _, to := range []tasks.Status{tasks.StatusCompleted, tasks.StatusFailed, tasks.StatusCancelled, tasks.StatusWorking} {
		if err := CheckTransition(r, to); !errors.Is(err, tasks.ErrInvalidTransition) {
			t.Errorf("working→%s: err = %v", to, err)
		}
	}
}

// TestNewIDIsAVersion4UUID checks NewID's ids against the uuid package:
// canonical lowercase form, version 4, RFC 9562 variant, all distinct.
func TestNewIDIsAVersion4UUID(t *testing.T) {
	canonical := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for range 2000 {
		id := NewID()
		if !canonical.MatchString(id) {
			t.Fatalf("id %q is not a canonical version 4 UUID", id)
		}
		u, err := uuid.Parse(id)
		if err != nil || u.Version() != 4 || u.Variant() != uuid.RFC4122 || u.String() != id {
			t.Fatalf("id %q: parsed %v (version %v, variant %v), err %v", id, u, u.Version(), u.Variant(), err)
		}
		if seen[id] {
			t.Fatalf("id %q issued twice", id)
		}
		seen[id] = true
	}
}
