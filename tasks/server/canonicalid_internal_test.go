package server

import (
	"encoding/json"
	"testing"

	"github.com/mcptasks/mcptasks/schema"
)

// TestCanonicalIDFastPathAgrees checks that every id plainID lets through
// unchanged is exactly what decoding and encoding it gives, and that ids
// needing a rewrite are still rewritten.
func TestCanonicalIDFastPathAgrees(t *testing.T) {
	tests := []struct {
		raw   string
		plain bool
	}{
		{`1`, true},
		{`0`, true},
		{`-7`, true},
		{`123456789012345678`, true},
		{`"abc-DEF_0.9 ~!"`, true},
		{`""`, true},
		{`"a<b"`, false},
		{`"a&b"`, false},
		{`"a\u0041"`, false},
		{`"é"`, false},
		{`01`, false},
		{`1.5`, false},
		{`1e3`, false},
		{`-`, false},
		{`null`, false},
		{`{"a": 1}`, false},
		{`[1, 2]`, false},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			if got := plainID([]byte(tt.raw)); got != tt.plain {
				t.Fatalf("plainID(%s) = %v, want %v", tt.raw, got, tt.plain)
			}
			// Not JSON at all: kept as it is.
			want := []byte(tt.raw)
			var id schema.RequestID
			if json.Unmarshal([]byte(tt.raw), &id) == nil {
				var err error
				if want, err = json.Marshal(id); err != nil {
					t.Fatal(err)
				}
			}
			if got := canonicalID(json.RawMessage(tt.raw)); string(got) != string(want) {
				t.Fatalf("canonicalID(%s) = %s, want %s", tt.raw, got, want)
			}
			if tt.plain && string(want) != tt.raw {
				t.Fatalf("plain id %s is rewritten by encoding/json to %s", tt.raw, want)
			}
		})
	}
}
