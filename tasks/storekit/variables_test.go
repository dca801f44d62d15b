package storekit

import (
	"encoding/json"
	"errors"
	"maps"
	"testing"

	"github.com/mcptasks/mcptasks/tasks"
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
		{"invalid JSON", map[string]json.RawMessage{"a": raw(`{`)}, 0, nil, tasks.ErrInvalidParams},
		{"empty value", map[string]json.RawMessage{"a": raw(``)}, 0, nil, tasks.ErrInvalidParams},
		{"empty key", map[string]json.RawMessage{"": raw(`1`)}, 0, nil, tasks.ErrInvalidParams},
		{"too large", map[string]json.RawMessage{"c": raw(`"0123456789"`)}, 20, nil, tasks.ErrVariablesTooLarge},
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

func TestEncodeVariablesKeepsBytesAndRoundTrips(t *testing.T) {
	vars := map[string]json.RawMessage{"b": raw(`{ "x" : 1 }`), "a": raw(`"é"`), "k\"q": raw(`[1, 2]`)}
	enc := EncodeVariables(vars)
	if want := `{"a":"é","b":{ "x" : 1 },"k\"q":[1, 2]}`; string(enc) != want {
		t.Fatalf("EncodeVariables = %s, want %s", enc, want)
	}
	got, err := DecodeVariables(enc)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.EqualFunc(got, vars, func(a, b json.RawMessage) bool { return string(a) == string(b) }) {
		t.Fatalf("round trip: got %s, want %s", got, vars)
	}
	for _, empty := range [][]byte{nil, []byte(`{}`)} {
		if m, err := DecodeVariables(empty); m != nil || err != nil {
			t.Errorf("DecodeVariables(%q) = %v, %v; want nil, nil", empty, m, err)
		}
	}
	if EncodeVariables(nil) != nil {
		t.Error("EncodeVariables(nil) must be nil")
	}
	if _, err := DecodeVariables([]byte(`[1]`)); err == nil {
		t.Error("DecodeVariables accepted a non-object")
	}
}
