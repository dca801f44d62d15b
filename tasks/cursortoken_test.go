package tasks

import (
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"testing"
)

func TestCursorSealerRoundTrip(t *testing.T) {
	s, random := newCursorSealer("0123456789abcdef0123456789abcdef")
	if random {
		t.Fatal("a configured key was reported as random")
	}
	inner := storeCursor(1_700_000_000_123, "3f1c6a1e-0000-4000-8000-000000000001")
	tok := s.seal("alice", inner)
	if strings.Contains(tok, inner) {
		t.Errorf("token %q shows the store cursor %q verbatim", tok, inner)
	}
	got, err := s.open("alice", tok)
	if err != nil {
		t.Fatalf("open(own token) = %v", err)
	}
	if got != inner {
		t.Fatalf("open gave %q, want %q", got, inner)
	}
	// The same key in another sealer (another instance) accepts it.
	other, _ := newCursorSealer("0123456789abcdef0123456789abcdef")
	if got, err := other.open("alice", tok); err != nil || got != inner {
		t.Fatalf("second instance with the same key: open = %q, %v", got, err)
	}
}

func TestCursorSealerRejects(t *testing.T) {
	key := "0123456789abcdef0123456789abcdef"
	s, _ := newCursorSealer(key)
	inner := storeCursor(1_700_000_000_000, "t-1")
	tok := s.seal("alice", inner)
	otherKey, _ := newCursorSealer(key + "x")
	random, isRandom := newCursorSealer("")
	if !isRandom {
		t.Fatal("an empty key did not give a random key")
	}
	body, tag, _ := strings.Cut(strings.TrimPrefix(tok, tokenPrefix), ".")
	forgedInner := storeCursor(1_800_000_000_000, "t-1")
	b64 := base64.RawURLEncoding.EncodeToString
	tests := []struct {
		name, owner, token string
	}{
		{"another owner", "bob", tok},
		{"owner that is a prefix", "alic", tok},
		{"another key", "alice", otherKey.seal("alice", inner)},
		{"random key of another engine", "alice", random.seal("alice", inner)},
		{"plain store cursor", "alice", inner},
		{"base64 of foo", "alice", b64([]byte("foo"))},
		{"prefix only", "alice", tokenPrefix},
		{"no tag", "alice", tokenPrefix + body},
		{"empty tag", "alice", tokenPrefix + body + "."},
		{"short tag", "alice", tokenPrefix + body + "." + tag[:10]},
		{"tag of another position", "alice", tokenPrefix + b64([]byte(forgedInner)) + "." + tag},
		{"flipped tag bit", "alice", tokenPrefix + body + "." + b64(flip(mustB64(t, tag)))},
		{"empty body", "alice", tokenPrefix + "." + tag},
		{"bad base64", "alice", tokenPrefix + "!!!." + tag},
		{"NUL inside", "alice", tok[:5] + "\x00" + tok[5:]},
		{"all zero tag", "alice", tokenPrefix + body + "." + b64(make([]byte, tokenMACBytes))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.open(Owner(tt.owner), tt.token)
			if !errors.Is(err, ErrInvalidCursor) {
				t.Fatalf("open(%q, %q) = %q, %v; want ErrInvalidCursor", tt.owner, tt.token, got, err)
			}
			var te *Error
			if !errors.As(err, &te) || te.Detail == "" {
				t.Errorf("error %v carries no explanation", err)
			}
		})
	}
}

func TestCursorSealerListPage(t *testing.T) {
	s, _ := newCursorSealer("0123456789abcdef")
	inner := storeCursor(5, "a")
	var seen []string
	list := func(o ListOptions) (Page, error) {
		seen = append(seen, o.Cursor)
		return Page{NextCursor: inner}, nil
	}
	p1, err := s.listPage("alice", ListOptions{}, list)
	if err != nil {
		t.Fatal(err)
	}
	if p1.NextCursor == inner || p1.NextCursor == "" {
		t.Fatalf("next cursor %q was not sealed", p1.NextCursor)
	}
	if _, err := s.listPage("alice", ListOptions{Cursor: p1.NextCursor}, list); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 || seen[0] != "" || seen[1] != inner {
		t.Fatalf("the store saw cursors %q, want [\"\" %q]", seen, inner)
	}
	if _, err := s.listPage("bob", ListOptions{Cursor: p1.NextCursor}, list); !errors.Is(err, ErrInvalidCursor) {
		t.Fatalf("bob used alice's cursor: err = %v", err)
	}
	if len(seen) != 2 {
		t.Fatal("a rejected cursor reached the store")
	}
	last, err := s.listPage("alice", ListOptions{}, func(ListOptions) (Page, error) { return Page{}, nil })
	if err != nil || last.NextCursor != "" {
		t.Fatalf("last page: next cursor %q, err %v; want none", last.NextCursor, err)
	}
}

func mustB64(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func flip(b []byte) []byte {
	b[0] ^= 1
	return b
}

func BenchmarkCursorSealer(b *testing.B) {
	s, _ := newCursorSealer("0123456789abcdef0123456789abcdef")
	inner := storeCursor(1_700_000_000_000, "3f1c6a1e-0000-4000-8000-000000000001")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.open("alice", s.seal("alice", inner)); err != nil {
			b.Fatal(err)
		}
	}
}

// storeCursor makes a position cursor of the kind a store issues (the
// sealer treats it as opaque text).
func storeCursor(ms int64, id string) string {
	return "c1." + base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(ms, 10)+"|"+id))
}
