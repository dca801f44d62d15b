package tasks

import (
	"encoding/json"
	"errors"
	"maps"
	"testing"
)

func raw(s string) json.RawMessage { return json.RawMessage(s) }

func TestMergeVariables(t *testing.T) {
	base := map[string]json.RawMessage{"a": raw(`1`), "b": raw(`"x"`)}
	tests := []struct {
		name    string
		patch   map[string]json.RawMessage
		limit   int
		want    map[string]json.RawMessage
		wantErr error
	}{
		{"add", map[string]json.RawMessage{"c": raw(`true`)}, 0, map[string]json.RawMessage{"a": raw(`1`), "b": raw(`"x"`), "c": raw(`true`)}, nil},
		{"replace", map[string]json.RawMessage{"a": raw(` {"k":2} `)}, 0, map[string]json.RawMessage{"a": raw(`{"k":2}`), "b": raw(`"x"`)}, nil},
		{"null deletes", map[string]json.RawMessage{"a": raw(`null`)}, 0, map[string]json.RawMessage{"b": raw(`"x"`)}, nil},
		{"delete all is nil", map[string]json.RawMessage{"a": raw(`null`), "b": raw(`null`)}, 0, nil, nil},
		{"invalid JSON", map[string]json.RawMessage{"a": raw(`{`)}, 0, nil, ErrInvalidParams},
		{"empty value", map[string]json.RawMessage{"a": raw(``)}, 0, nil, ErrInvalidParams},
		{"empty key", map[string]json.RawMessage{"": raw(`1`)}, 0, nil, ErrInvalidParams},
		{"too large", map[string]json.RawMessage{"c": raw(`"0123456789"`)}, 20, nil, ErrVariablesTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := maps.Clone(base)
			got, err := MergeVariables(base, tt.patch, tt.limit)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if !maps.EqualFunc(base, before, func(a, b json.RawMessage) bool { return string(a) == string(b) }) {
				t.Fatal("MergeVariables modified its input")
			}
			if !maps.EqualFunc(got, tt.want, func(a, b json.RawMessage) bool { return string(a) == string(b) }) {
				t.Fatalf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestVariablesSizeMatchesEncoding(t *testing.T) {
	for _, vars := range []map[string]json.RawMessage{
		nil,
		{"a": raw(`1`)},
		{"server.step": raw(`{"n":3}`), "client.note": raw(`"héllo \"q\""`), "k\n": raw(`[1,2]`)},
	} {
		enc, err := json.Marshal(vars)
		if err != nil {
			t.Fatal(err)
		}
		if vars == nil {
			enc = []byte("{}")
		}
		if got := VariablesSize(vars); got != len(enc) {
			t.Errorf("VariablesSize(%s) = %d, encoded length %d", enc, got, len(enc))
		}
	}
}
