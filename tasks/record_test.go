package tasks

import (
	"encoding/json"
	"testing"
	"time"
)

func TestRecordCloneSharesNothing(t *testing.T) {
	ttl := time.Minute
	orig := func() Record {
		return Record{
			ID:        "t",
			TTL:       &ttl,
			Variables: map[string]json.RawMessage{"k": json.RawMessage(`"abc"`)},
			Outcome: &Outcome{
				Result: json.RawMessage(`{"n":1}`),
				Error:  &RPCError{Code: 1, Message: "m", Data: json.RawMessage(`[1]`)},
			},
		}
	}
	tests := []struct {
		name   string
		mutate func(c *Record)
		check  func(r Record) bool
	}{
		{"ttl", func(c *Record) { *c.TTL = time.Hour }, func(r Record) bool { return *r.TTL == time.Minute }},
		{"variables map", func(c *Record) { c.Variables["x"] = json.RawMessage(`1`) }, func(r Record) bool { return len(r.Variables) == 1 }},
		{"variable bytes", func(c *Record) { c.Variables["k"][1] = 'X' }, func(r Record) bool { return string(r.Variables["k"]) == `"abc"` }},
		{"result bytes", func(c *Record) { c.Outcome.Result[2] = 'X' }, func(r Record) bool { return string(r.Outcome.Result) == `{"n":1}` }},
		{"outcome struct", func(c *Record) { c.Outcome.Result = nil }, func(r Record) bool { return r.Outcome.Result != nil }},
		{"error struct", func(c *Record) { c.Outcome.Error.Message = "x" }, func(r Record) bool { return r.Outcome.Error.Message == "m" }},
		{"error data bytes", func(c *Record) { c.Outcome.Error.Data[1] = '9' }, func(r Record) bool { return string(r.Outcome.Error.Data) == `[1]` }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := orig()
			c := r.Clone()
			tt.mutate(&c)
			if !tt.check(r) {
				t.Fatalf("changing the clone's %s changed the original", tt.name)
			}
		})
	}
}

func TestRecordCloneKeepsNilAndEmpty(t *testing.T) {
	r := Record{Outcome: &Outcome{Result: json.RawMessage{}, Error: &RPCError{}}}
	c := r.Clone()
	if c.Variables != nil || c.TTL != nil {
		t.Fatalf("nil fields became non-nil: %+v", c)
	}
	if c.Outcome.Result == nil || len(c.Outcome.Result) != 0 {
		t.Fatalf("an empty result became %v", c.Outcome.Result)
	}
	if c.Outcome.Error.Data != nil {
		t.Fatalf("nil error data became %v", c.Outcome.Error.Data)
	}
}
