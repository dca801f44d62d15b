package multiinstance_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/internal/testenv"
	"github.com/mcptasks/mcptasks/schema/exttasks"
	"github.com/mcptasks/mcptasks/tasks/client"
	"github.com/mcptasks/mcptasks/tasks/server"
)

func TestProfilesPostgres(t *testing.T) { runProfiles(t, postgresSpec(t)) }

func TestProfilesRedis(t *testing.T) { runProfiles(t, redisSpec(t)) }

func TestProfilesDynamoDB(t *testing.T) {
	ep := testenv.DynamoDB(t)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	runProfiles(t, "dynamodb://mcptasks_profiles_"+hex.EncodeToString(b)+"?endpoint="+ep+"&region=us-east-1&create=1")
}

func TestProfilesSQLite(t *testing.T) {
	runProfiles(t, "sqlite:"+filepath.Join(t.TempDir(), "tasks.db"))
}

// runProfiles runs two taskserver processes on one store, each serving
// both profiles: a 2026-07-28 task asks for input on one and is answered
// through the other, while a 2025-11-25 client of the same identity works
// beside it and neither profile sees the other's tasks.
func runProfiles(t *testing.T, spec string) {
	a := startInstance(t, "A", spec)
	b := startInstance(t, "B", spec)
	ctx := testCtx(t)
	alice := client.WithHeader("Authorization", "Bearer "+tokenAlice)
	modernA, modernB := client.NewModern(a.URL, alice), client.NewModern(b.URL, alice)
	bob := client.NewModern(b.URL, client.WithHeader("Authorization", "Bearer "+tokenBob))
	legacy := client.New(b.URL, alice)
	if _, err := legacy.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	defer legacy.Close(context.Background())

	res, err := modernA.CallTool(ctx, server.FixtureInputTool, map[string]any{"question": "colour?"})
	if err != nil || res.Task == nil {
		t.Fatalf("create: %v %+v", err, res)
	}
	lt, err := legacy.CallToolAsTask(ctx, server.FixtureSleepTool, map[string]any{"ms": 10}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := modernB.Poll(ctx, res.Task.TaskID, 20*time.Millisecond, func(context.Context, string, exttasks.InputRequest) (json.RawMessage, error) {
		return json.RawMessage(`{"action":"accept","content":{"answer":"teal"}}`), nil
	})
	if err != nil || got.Status != exttasks.TaskStatusCompleted || !strings.Contains(string(got.Result), "teal") {
		t.Fatalf("input across instances: %v %+v", err, got)
	}
	var rpc *client.RPCError
	if _, err := bob.GetTask(ctx, res.Task.TaskID); !errors.As(err, &rpc) || rpc.Code != -32602 {
		t.Errorf("bob reads alice's task: %v", err)
	}
	if _, err := modernA.GetTask(ctx, lt.Task.TaskID); !errors.As(err, &rpc) || rpc.Code != -32602 {
		t.Errorf("2025-11-25 task under 2026-07-28: %v", err)
	}
	if _, err := legacy.GetTask(ctx, res.Task.TaskID); !errors.As(err, &rpc) || rpc.Code != -32602 {
		t.Errorf("2026-07-28 task under 2025-11-25: %v", err)
	}
	if _, err := legacy.WaitTerminal(ctx, lt.Task.TaskID, 10*time.Millisecond, 100*time.Millisecond, nil); err != nil {
		t.Error(err)
	}
}
