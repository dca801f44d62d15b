package tasks

import "testing"

func TestCanTransition(t *testing.T) {
	allowed := map[[2]Status]bool{
		{StatusWorking, StatusInputRequired}:   true,
		{StatusWorking, StatusCompleted}:       true,
		{StatusWorking, StatusFailed}:          true,
		{StatusWorking, StatusCancelled}:       true,
		{StatusInputRequired, StatusWorking}:   true,
		{StatusInputRequired, StatusCompleted}: true,
		{StatusInputRequired, StatusFailed}:    true,
		{StatusInputRequired, StatusCancelled}: true,
	}
	for _, from := range Statuses {
		for _, to := range Statuses {
			if got, want := CanTransition(from, to), allowed[[2]Status{from, to}]; got != want {
				t.Errorf("CanTransition(%s, %s) = %v, want %v", from, to, got, want)
			}
		}
	}
	if CanTransition("bogus", StatusWorking) || CanTransition(StatusWorking, "bogus") {
		t.Error("unknown statuses must never transition")
	}
}

func TestStatusPredicates(t *testing.T) {
	tests := []struct {
		s               Status
		valid, terminal bool
	}{
		{StatusWorking, true, false},
		{StatusInputRequired, true, false},
		{StatusCompleted, true, true},
		{StatusFailed, true, true},
		{StatusCancelled, true, true},
		{"", false, false},
		{"done", false, false},
	}
	for _, tt := range tests {
		if tt.s.Valid() != tt.valid || tt.s.Terminal() != tt.terminal {
			t.Errorf("%q: Valid=%v Terminal=%v, want %v %v", tt.s, tt.s.Valid(), tt.s.Terminal(), tt.valid, tt.terminal)
		}
	}
}
