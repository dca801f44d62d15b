package tasks

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"strings"
)

// MinCursorKeyBytes is the shortest Config.CursorKey worth using: 16
// random bytes. The engine accepts shorter keys but they are easier to
// guess.
const MinCursorKeyBytes = 16

// tokenPrefix marks a list cursor sealed by the engine (version 1).
const tokenPrefix = "t1."

// tokenMACBytes is the length of the authentication tag: HMAC-SHA256
// truncated to 128 bits, as common practice allows.
const tokenMACBytes = 16

// macLabel separates cursor tags from any other use of the same key.
const macLabel = "mcptasks/tasks-list-cursor/v1"

// cursorSealer turns a store's plain list cursor into an opaque token
// bound to one owner and authenticated with a secret key, and back. It
// lets stores keep simple position cursors while requestors can neither
// forge a position nor reuse another owner's cursor.
type cursorSealer struct {
	key []byte
}

// newCursorSealer returns a sealer keyed with key, or with 32 fresh random
// bytes when key is empty (random reports that case).
func newCursorSealer(key string) (s cursorSealer, random bool) {
	if key != "" {
		return cursorSealer{key: []byte(key)}, false
	}
	k := make([]byte, 32)
	_, _ = rand.Read(k) // crypto/rand.Read never returns an error (a broken source crashes the program)
	return cursorSealer{key: k}, true
}

// mac computes the tag of a store cursor issued to owner. Both parts are
// length-prefixed so no two (owner, cursor) pairs share an input.
func (s cursorSealer) mac(owner Owner, inner string) []byte {
	h := hmac.New(sha256.New, s.key)
	var n [8]byte
	h.Write([]byte(macLabel))
	binary.BigEndian.PutUint64(n[:], uint64(len(owner)))
	h.Write(n[:])
	h.Write([]byte(owner))
	binary.BigEndian.PutUint64(n[:], uint64(len(inner)))
	h.Write(n[:])
	h.Write([]byte(inner))
	return h.Sum(nil)[:tokenMACBytes]
}

// seal wraps the store cursor inner, issued to owner, into a token.
func (s cursorSealer) seal(owner Owner, inner string) string {
	tag := s.mac(owner, inner)
	return tokenPrefix + base64.RawURLEncoding.EncodeToString([]byte(inner)) +
		"." + base64.RawURLEncoding.EncodeToString(tag)
}

// open checks that token was sealed for owner with this sealer's key and
// returns the store cursor inside. Any other string is an
// ErrInvalidCursor whose detail says why in plain words.
func (s cursorSealer) open(owner Owner, token string) (string, error) {
	bad := func(why string) (string, error) {
		return "", &Error{Op: "list", Err: ErrInvalidCursor, Detail: why}
	}
	rest, ok := strings.CutPrefix(token, tokenPrefix)
	if !ok {
		return bad("the cursor was not issued by this server; pass the nextCursor of a previous tasks/list result, or no cursor for the first page")
	}
	body, tagText, ok := strings.Cut(rest, ".")
	if !ok {
		return bad("the cursor is truncated or damaged")
	}
	inner, err1 := base64.RawURLEncoding.Strict().DecodeString(body)
	tag, err2 := base64.RawURLEncoding.Strict().DecodeString(tagText)
	if err1 != nil || err2 != nil || len(tag) != tokenMACBytes || len(inner) == 0 {
		return bad("the cursor is truncated or damaged")
	}
	if !hmac.Equal(tag, s.mac(owner, string(inner))) {
		return bad("the cursor was not issued by this server to this requestor (or the server's cursor key changed since)")
	}
	return string(inner), nil
}

// listPage runs one List through the sealer: the requestor's token is
// opened into the store's cursor, and the store's next cursor is sealed
// for the same owner.
func (s cursorSealer) listPage(owner Owner, opts ListOptions, list func(ListOptions) (Page, error)) (Page, error) {
	if opts.Cursor != "" {
		inner, err := s.open(owner, opts.Cursor)
		if err != nil {
			return Page{}, err
		}
		opts.Cursor = inner
	}
	page, err := list(opts)
	if err != nil {
		return Page{}, err
	}
	if page.NextCursor != "" {
		page.NextCursor = s.seal(owner, page.NextCursor)
	}
	return page, nil
}
