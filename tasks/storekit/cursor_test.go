package storekit

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/tasks"
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
		if _, err := DecodeCursor(s); !errors.Is(err, tasks.ErrInvalidCursor) {
			t.Errorf("DecodeCursor(%q) err = %v, want ErrInvalidCursor", s, err)
		}
	}
}

func TestDecodeCursorRejectsUnsafePositions(t *testing.T) {
	enc := func(raw string) string { return cursorPrefix + base64.RawURLEncoding.EncodeToString([]byte(raw)) }
	tests := []struct{ name, cursor string }{
		{"NUL in id", enc("1700000000000|abc\x00def")},
		{"invalid UTF-8 id", enc("1700000000000|abc\xff")},
		{"id too long", enc("1700000000000|" + strings.Repeat("a", MaxCursorIDBytes+1))},
		{"max int64 time", enc("9223372036854775807|abc")},
		{"min int64 time", enc("-9223372036854775808|abc")},
		{"before 1970", enc("-1|abc")},
		{"after year 9999", enc("253402300800000|abc")},
		{"time overflow", enc("92233720368547758070|abc")},
		{"leading zero", enc("01700000000000|abc")},
		{"plus sign", enc("+1700000000000|abc")},
		{"empty time", enc("|abc")},
		{"empty id", enc("1700000000000|")},
		{"no separator", enc("1700000000000")},
		{"base64 of foo", enc("foo")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := DecodeCursor(tt.cursor)
			if !errors.Is(err, tasks.ErrInvalidCursor) {
				t.Fatalf("DecodeCursor = %+v, %v; want ErrInvalidCursor", c, err)
			}
		})
	}
}

func TestDecodeCursorBounds(t *testing.T) {
	for _, at := range []time.Time{time.UnixMilli(0), time.Date(9999, 12, 31, 23, 59, 59, 999e6, time.UTC)} {
		c := Cursor{CreatedAt: at, ID: strings.Repeat("é", MaxCursorIDBytes/2)}
		got, err := DecodeCursor(c.Encode())
		if err != nil {
			t.Fatalf("DecodeCursor(cursor at %v) = %v", at, err)
		}
		if !got.CreatedAt.Equal(at) || got.ID != c.ID {
			t.Fatalf("round trip at %v gave %+v", at, got)
		}
	}
}

func TestCursorAfter(t *testing.T) {
	t0 := time.UnixMilli(1000)
	c := Cursor{CreatedAt: t0, ID: "m"}
	tests := []struct {
		r    tasks.Record
		want bool
	}{
		{tasks.Record{CreatedAt: t0, ID: "n"}, true},
		{tasks.Record{CreatedAt: t0, ID: "m"}, false},
		{tasks.Record{CreatedAt: t0, ID: "a"}, false},
		{tasks.Record{CreatedAt: t0.Add(time.Millisecond), ID: "a"}, true},
		{tasks.Record{CreatedAt: t0.Add(-time.Millisecond), ID: "z"}, false},
	}
	for _, tt := range tests {
		if got := c.After(tt.r); got != tt.want {
			t.Errorf("After(%v,%s) = %v, want %v", tt.r.CreatedAt, tt.r.ID, got, tt.want)
		}
	}
}
