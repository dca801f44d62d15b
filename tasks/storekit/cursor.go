package storekit

import (
	"encoding/base64"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcptasks/mcptasks/tasks"
)

// Cursor is the position after the last task of a page in the (CreatedAt,
// ID) order every store lists in. Stores hand it out encoded and opaque.
type Cursor struct {
	CreatedAt time.Time
	ID        string
}

const cursorPrefix = "c1."

// Bounds of the creation time a cursor may hold, in Unix milliseconds:
// from the Unix epoch to 9999-12-31T23:59:59.999Z, which every store and
// RFC 3339 timestamps can represent.
const (
	minCursorMS int64 = 0
	maxCursorMS int64 = 253402300799999
)

// MaxCursorIDBytes bounds the task id inside a cursor; DynamoDB, the
// strictest backend, refuses longer sort keys.
const MaxCursorIDBytes = 1024

// Encode renders c as an opaque, URL-safe string.
func (c Cursor) Encode() string {
	raw := strconv.FormatInt(c.CreatedAt.UnixMilli(), 10) + "|" + c.ID
	return cursorPrefix + base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// DecodeCursor parses a string made by Cursor.Encode. Anything else is an
// ErrInvalidCursor: other prefixes, damaged base64, a time before
// 1970 or after year 9999, an empty or oversized id, an id with NUL
// bytes or invalid UTF-8, or a non-canonical spelling of a valid cursor.
// A store can therefore pass the result to its backend without further
// checks.
func DecodeCursor(s string) (Cursor, error) {
	bad := func(why string) (Cursor, error) {
		return Cursor{}, &tasks.Error{Op: "list", Err: tasks.ErrInvalidCursor, Detail: why}
	}
	rest, ok := strings.CutPrefix(s, cursorPrefix)
	if !ok {
		return bad("not a cursor issued by this server")
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(rest)
	if err != nil {
		return bad("cursor is corrupted")
	}
	ms, id, ok := strings.Cut(string(raw), "|")
	if !ok || id == "" {
		return bad("cursor is corrupted")
	}
	n, err := strconv.ParseInt(ms, 10, 64)
	if err != nil {
		return bad("cursor is corrupted: its time is not a number")
	}
	switch {
	case n < minCursorMS || n > maxCursorMS:
		return bad("cursor time is out of range")
	case len(id) > MaxCursorIDBytes:
		return bad("cursor task id is too long")
	case strings.IndexByte(id, 0) >= 0 || !utf8.ValidString(id):
		return bad("cursor task id is not valid text")
	}
	c := Cursor{CreatedAt: time.UnixMilli(n).UTC(), ID: id}
	if c.Encode() != s {
		return bad("cursor is not in canonical form")
	}
	return c, nil
}

// After reports whether r sorts after c in list order.
func (c Cursor) After(r tasks.Record) bool {
	if !r.CreatedAt.Equal(c.CreatedAt) {
		return r.CreatedAt.After(c.CreatedAt)
	}
	return r.ID > c.ID
}

// CursorOf returns the cursor that points just past r.
func CursorOf(r tasks.Record) Cursor { return Cursor{CreatedAt: r.CreatedAt, ID: r.ID} }
