package gosdkflow

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestRelatedTask(t *testing.T) {
	for _, tc := range []struct {
		name  string
		meta  mcp.Meta
		id    string
		bound bool
		bad   bool
	}{
		{"absent", mcp.Meta{"progressToken": 1}, "", false, false},
		{"bound", mcp.Meta{"io.modelcontextprotocol/related-task": map[string]any{"taskId": "t1"}}, "t1", true, false},
		{"empty id", mcp.Meta{"io.modelcontextprotocol/related-task": map[string]any{"taskId": ""}}, "", false, true},
		{"not an object", mcp.Meta{"io.modelcontextprotocol/related-task": "t1"}, "", false, true},
		{"id not a string", mcp.Meta{"io.modelcontextprotocol/related-task": map[string]any{"taskId": 7}}, "", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, bound, err := relatedTask(tc.meta)
			if id != tc.id || bound != tc.bound || (err != nil) != tc.bad {
				t.Errorf("relatedTask = %q, %v, %v", id, bound, err)
			}
		})
	}
}

func TestOutcome(t *testing.T) {
	for _, tc := range []struct {
		name    string
		res     mcp.Result
		err     error
		output  string
		failure string
	}{
		{"structured", &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: map[string]any{"hotel": "Inn"}}, nil, `{"hotel":"Inn"}`, ""},
		{"text only", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hi"}}}, nil, `{"content":[{"type":"text","text":"hi"}]}`, ""},
		{"tool error", &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no such hotel"}}}, nil, "", "no such hotel"},
		{"rpc error", nil, errors.New("boom"), "", "boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, failure := outcome(tc.res, tc.err)
			if failure != tc.failure {
				t.Errorf("failure %q, want %q", failure, tc.failure)
			}
			if tc.output != "" {
				var a, b any
				_ = json.Unmarshal(out, &a)
				_ = json.Unmarshal([]byte(tc.output), &b)
				ab, _ := json.Marshal(a)
				bb, _ := json.Marshal(b)
				if string(ab) != string(bb) {
					t.Errorf("output %s, want %s", out, tc.output)
				}
			}
		})
	}
}
