package tasks

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestValidVariableName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"step", true},
		{"server.workflow.steps.fetch.output", true},
		{"client.steps.a_b-c.9", true},
		{"com.example/", true},
		{"com.example-2/name", true},
		{"io.modelcontextprotocol/related-task", true},
		{"x", true},
		{"", false},
		{"bad key!", false},
		{"/name", false},
		{"com..example/name", false},
		{"1com/name", false},
		{"com-/name", false},
		{"com.example/a/b", false},
		{"-leading", false},
		{"trailing.", false},
		{"client.ü", false},
		{"tab\tkey", false},
	} {
		err := ValidVariableName(tc.name)
		if (err == nil) != tc.ok {
			t.Errorf("ValidVariableName(%q) = %v, want ok %v", tc.name, err, tc.ok)
		}
		if err != nil && (!errors.Is(err, ErrInvalidVariableName) || !errors.Is(err, ErrInvalidParams)) {
			t.Errorf("ValidVariableName(%q): %v does not wrap ErrInvalidVariableName and ErrInvalidParams", tc.name, err)
		}
	}
}

func TestServerVariableConvention(t *testing.T) {
	v := json.RawMessage(`1`)
	if err := checkServerVariableNames(map[string]json.RawMessage{"server.a": v, "plain": v}); err != nil {
		t.Fatalf("server names refused: %v", err)
	}
	err := checkServerVariableNames(map[string]json.RawMessage{"client.answer": v})
	if !errors.Is(err, ErrInvalidVariableName) {
		t.Fatalf("client name written by server code: %v, want ErrInvalidVariableName", err)
	}
	if err := ValidVariableNames(map[string]int{"a b": 1, "c d": 2}); !errors.Is(err, ErrInvalidVariableName) {
		t.Fatalf("two bad names: %v", err)
	}
}
