package protocol

import (
	"encoding/json"
	"testing"
)

// The fast path for {"taskId":"…"} agrees with the general decoder on
// every input it accepts, and leaves the others to it.
func TestTaskIDFastPathAgrees(t *testing.T) {
	tests := []struct {
		params string
		fast   bool
		want   string
		bad    bool
	}{
		{`{"taskId":"abc-123"}`, true, "abc-123", false},
		{`{"taskId":""}`, false, "", true},
		{`{"taskId":"a\"b"}`, false, `a"b`, false},
		{`{"taskId":"a\u0041"}`, false, "aA", false},
		{`{"taskId":"é"}`, false, "é", false},
		{`{"taskId":"a","_meta":{}}`, false, "a", false},
		{`{ "taskId":"a"}`, false, "a", false},
		{`{"taskId":"a"}x`, false, "", true},
		{`{"taskId":5}`, false, "", true},
		{`{"taskId":"a"} `, false, "a", false},
	}
	for _, tt := range tests {
		t.Run(tt.params, func(t *testing.T) {
			_, fast := plainTaskID(json.RawMessage(tt.params))
			if fast != tt.fast {
				t.Errorf("fast path taken: %v, want %v", fast, tt.fast)
			}
			id, err := taskID(json.RawMessage(tt.params))
			if (err != nil) != tt.bad || id != tt.want {
				t.Errorf("taskID = %q, %v; want %q, error %v", id, err, tt.want, tt.bad)
			}
		})
	}
}
