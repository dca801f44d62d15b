package tasks

import (
	"errors"
	"testing"
	"time"
)

func TestCursorRoundTrip(t *testing.T) {
	c := Cursor{CreatedAt: time.Date(2026, 11, 22, 10, 0, 0, 5e6, time.UTC), ID: "3f1c6a1e-0000-4000-8000-000000000001"}
	got, err := DecodeCursor(c.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if !got.CreatedAt.Equal(c.CreatedAt) || got.ID != c.ID {
		t.Fatalf("round trip: got %+v, want %+v", got, c)
	}
}

func TestDecodeCursorRejectsForeignInput(t *testing.T) {
	good := Cursor{CreatedAt: time.UnixMilli(1), ID: "x"}.Encode()
	for _, s := range []string{"", "abc", "c1.", "c1.!!!", "c1.bm9waXBl", good[:len(good)-2] + "%%", "c2." + good[3:]} {
		if _, err := DecodeCursor(s); !errors.Is(err, ErrInvalidCursor) {
			t.Errorf("DecodeCursor(%q) err = %v, want ErrInvalidCursor", s, err)
		}
	}
}

func TestCursorAfter(t *testing.T) {
	t0 := time.UnixMilli(1000)
	c := Cursor{CreatedAt: t0, ID: "m"}
	tests := []struct {
		r    Record
		want bool
	}{
		{Record{CreatedAt: t0, ID: "n"}, true},
		{Record{CreatedAt: t0, ID: "m"}, false},
		{Record{CreatedAt: t0, ID: "a"}, false},
		{Record{CreatedAt: t0.Add(time.Millisecond), ID: "a"}, true},
		{Record{CreatedAt: t0.Add(-time.Millisecond), ID: "z"}, false},
	}
	for _, tt := range tests {
		if got := c.After(tt.r); got != tt.want {
			t.Errorf("After(%v,%s) = %v, want %v", tt.r.CreatedAt, tt.r.ID, got, tt.want)
		}
	}
}
