package tasks

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Cursor is the position after the last task of a page in the (CreatedAt,
// ID) order every store lists in. Stores hand it out encoded and opaque.
type Cursor struct {
	CreatedAt time.Time
	ID        string
}

const cursorPrefix = "c1."

// Encode renders c as an opaque, URL-safe string.
func (c Cursor) Encode() string {
	raw := strconv.FormatInt(c.CreatedAt.UnixMilli(), 10) + "|" + c.ID
	return cursorPrefix + base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// DecodeCursor parses a string made by Cursor.Encode; anything else is an
// ErrInvalidCursor.
func DecodeCursor(s string) (Cursor, error) {
	bad := func(why string) (Cursor, error) {
		return Cursor{}, &Error{Op: "list", Err: ErrInvalidCursor, Detail: why}
	}
	rest, ok := strings.CutPrefix(s, cursorPrefix)
	if !ok {
		return bad("not a cursor issued by this server")
	}
	raw, err := base64.RawURLEncoding.DecodeString(rest)
	if err != nil {
		return bad("cursor is corrupted")
	}
	ms, id, ok := strings.Cut(string(raw), "|")
	if !ok || id == "" {
		return bad("cursor is corrupted")
	}
	n, err := strconv.ParseInt(ms, 10, 64)
	if err != nil {
		return bad(fmt.Sprintf("cursor is corrupted: %v", err))
	}
	return Cursor{CreatedAt: time.UnixMilli(n).UTC(), ID: id}, nil
}

// After reports whether r sorts after c in list order.
func (c Cursor) After(r Record) bool {
	if !r.CreatedAt.Equal(c.CreatedAt) {
		return r.CreatedAt.After(c.CreatedAt)
	}
	return r.ID > c.ID
}

// CursorOf returns the cursor that points just past r.
func CursorOf(r Record) Cursor { return Cursor{CreatedAt: r.CreatedAt, ID: r.ID} }
