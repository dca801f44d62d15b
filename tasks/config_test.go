package tasks

import (
	"errors"
	"testing"
	"time"
)

func dur(d time.Duration) *time.Duration { return &d }

func TestEffectiveTTL(t *testing.T) {
	def := Config{}.WithDefaults()
	unlimited := Config{DefaultTTL: Unlimited, MaxTTL: Unlimited}.WithDefaults()
	tests := []struct {
		name    string
		cfg     Config
		req     *time.Duration
		want    *time.Duration
		wantErr error
	}{
		{"default applied", def, nil, dur(time.Hour), nil},
		{"requested honoured", def, dur(90 * time.Second), dur(90 * time.Second), nil},
		{"clamped to max", def, dur(48 * time.Hour), dur(24 * time.Hour), nil},
		{"zero raised to min", def, dur(0), dur(time.Second), nil},
		{"sub-millisecond truncated", def, dur(1500*time.Millisecond + 300*time.Microsecond), dur(1500 * time.Millisecond), nil},
		{"negative rejected", def, dur(-time.Millisecond), nil, ErrInvalidParams},
		{"unlimited default", unlimited, nil, nil, nil},
		{"no max", unlimited, dur(1000 * time.Hour), dur(1000 * time.Hour), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.cfg.EffectiveTTL(tt.req)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			switch {
			case (got == nil) != (tt.want == nil):
				t.Fatalf("got %v, want %v", got, tt.want)
			case got != nil && *got != *tt.want:
				t.Fatalf("got %v, want %v", *got, *tt.want)
			}
		})
	}
}

func TestPageLimit(t *testing.T) {
	c := Config{}.WithDefaults()
	for _, tt := range []struct{ in, want int }{{0, DefaultPageSize}, {-3, DefaultPageSize}, {7, 7}, {MaxPageSize + 1, MaxPageSize}} {
		if got := c.PageLimit(tt.in); got != tt.want {
			t.Errorf("PageLimit(%d) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestNowIsUTCMilliseconds(t *testing.T) {
	loc := time.FixedZone("X", 3600)
	clk := NewFakeClock(time.Date(2026, 1, 2, 3, 4, 5, 123456789, loc))
	got := Config{Clock: clk}.Now()
	want := time.Date(2026, 1, 2, 2, 4, 5, 123000000, time.UTC)
	if !got.Equal(want) || got.Location() != time.UTC {
		t.Fatalf("Now() = %v, want %v", got, want)
	}
}
