package tasks

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestNewRecord(t *testing.T) {
	clk := NewFakeClock(time.Date(2026, 11, 22, 12, 0, 0, 999999, time.UTC))
	cfg := Config{Clock: clk, PollInterval: 250 * time.Millisecond}.WithDefaults()
	ttl := 2 * time.Minute
	r, err := NewRecord(cfg, "sub:a", CreateParams{Method: "tools/call", TTL: &ttl, Variables: map[string]json.RawMessage{"server.k": json.RawMessage(`1`)}})
	if err != nil {
		t.Fatal(err)
	}
	u, err := uuid.Parse(r.ID)
	if err != nil || u.Version() != 4 {
		t.Fatalf("id %q is not a UUIDv4: %v", r.ID, err)
	}
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	if r.Status != StatusWorking || r.Version != 1 || !r.CreatedAt.Equal(now) || !r.LastUpdatedAt.Equal(now) ||
		*r.TTL != ttl || !r.ExpiresAt.Equal(now.Add(ttl)) || r.PollInterval != 250*time.Millisecond || string(r.Variables["server.k"]) != "1" {
		t.Fatalf("unexpected record %+v", r)
	}
	if _, err := NewRecord(cfg, "", CreateParams{}); !errors.Is(err, ErrInvalidParams) {
		t.Fatalf("empty owner: err = %v", err)
	}
}

func TestCheckComplete(t *testing.T) {
	ok := Outcome{Result: json.RawMessage(`{"content":[]}`)}
	working := Record{ID: "t", Status: StatusWorking}
	tests := []struct {
		name    string
		r       Record
		to      Status
		o       Outcome
		wantErr error
	}{
		{"completed", working, StatusCompleted, ok, nil},
		{"failed with error", working, StatusFailed, Outcome{Error: &RPCError{Code: -32603, Message: "x"}}, nil},
		{"cancel via complete", working, StatusCancelled, ok, ErrInvalidTransition},
		{"to working", working, StatusWorking, ok, ErrInvalidTransition},
		{"already terminal", Record{ID: "t", Status: StatusCancelled}, StatusCompleted, ok, ErrInvalidTransition},
		{"both set", working, StatusCompleted, Outcome{Result: ok.Result, Error: &RPCError{}}, ErrInvalidParams},
		{"neither set", working, StatusCompleted, Outcome{}, ErrInvalidParams},
		{"bad json", working, StatusCompleted, Outcome{Result: json.RawMessage(`{`)}, ErrInvalidParams},
	}
	for _, tt := range tests {
		if err := CheckComplete(tt.r, tt.to, tt.o); !errors.Is(err, tt.wantErr) {
			t.Errorf("%s: err = %v, want %v", tt.name, err, tt.wantErr)
		}
	}
}

func TestCheckTransitionRejectsTerminalTargets(t *testing.T) {
	r := Record{ID: "t", Status: StatusWorking}
	if err := CheckTransition(r, StatusInputRequired); err != nil {
		t.Fatal(err)
	}
	for _, to := range []Status{StatusCompleted, StatusFailed, StatusCancelled, StatusWorking} {
		if err := CheckTransition(r, to); !errors.Is(err, ErrInvalidTransition) {
			t.Errorf("working→%s: err = %v", to, err)
		}
	}
}
