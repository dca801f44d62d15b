package client_test

import (
	"encoding/json"
	"testing"

	"github.com/mcptasks/mcptasks/schema"
	"github.com/mcptasks/mcptasks/tasks/client"
)

func TestDecodeResultDropsOnlyAnUnreadableMeta(t *testing.T) {
	task := `"taskId":"t1","status":"working","createdAt":"2025-11-25T10:00:00.000Z","lastUpdatedAt":"2025-11-25T10:00:00.000Z","ttl":null`
	tests := []struct {
		name     string
		raw      string
		wantErr  bool
		wantMeta bool
	}{
		{"good _meta kept", `{` + task + `,"_meta":{"k":1}}`, false, true},
		{"string _meta dropped", `{` + task + `,"_meta":"oops"}`, false, false},
		{"array _meta dropped", `{` + task + `,"_meta":[1]}`, false, false},
		{"bad task still fails", `{"taskId":5,"_meta":"oops"}`, true, false},
		{"not an object", `[1]`, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got schema.GetTaskResult
			err := client.DecodeResult(json.RawMessage(tt.raw), &got)
			if (err != nil) != tt.wantErr {
				t.Fatalf("DecodeResult err = %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if got.TaskID != "t1" || got.Status != schema.TaskStatusWorking {
				t.Fatalf("task decoded as %+v", got.Task)
			}
			if (got.Meta != nil) != tt.wantMeta {
				t.Fatalf("_meta = %v, want kept %v", got.Meta, tt.wantMeta)
			}
		})
	}
}
