package redis_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/internal/testenv"
	"github.com/mcptasks/mcptasks/schema/exttasks"
	"github.com/mcptasks/mcptasks/stores/redis"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/client"
	"github.com/mcptasks/mcptasks/tasks/server"
	"github.com/mcptasks/mcptasks/tasks/server/reference"
)

// Two reference-server instances on one Redis store, each serving both
// profiles, with a 2025-11-25 client and a 2026-07-28 client at once.
func TestTwoProfilesTwoInstancesOneRedis(t *testing.T) {
	url, prefix := testenv.Redis(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tokens := server.NewStaticTokens(map[string]string{"ta": "alice", "tb": "bob"})
	var urls []string
	for range 2 {
		cfg := tasks.Config{PollInterval: 50 * time.Millisecond}.WithDefaults()
		st, err := redis.Open(ctx, url, cfg, redis.WithPrefix(prefix))
		if err != nil {
			t.Fatal(err)
		}
		inst, err := reference.Start(ctx, reference.Options{Config: cfg, Store: st, ServerOptions: []server.Option{server.WithTokenVerifier(tokens)}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cctx, cc := context.WithTimeout(context.Background(), 10*time.Second)
			defer cc()
			_ = inst.Close(cctx)
			_ = st.Close()
		})
		urls = append(urls, inst.URL)
	}
	alice := client.WithHeader("Authorization", "Bearer ta")
	modernA, modernB := client.NewModern(urls[0], alice), client.NewModern(urls[1], alice)
	bob := client.NewModern(urls[1], client.WithHeader("Authorization", "Bearer tb"))
	legacy := client.New(urls[0], alice)
	if _, err := legacy.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	defer legacy.Close(context.Background())

	// Input asked on instance A, shown and answered through instance B.
	res, err := modernA.CallTool(ctx, server.FixtureInputTool, map[string]any{"question": "colour?"})
	if err != nil || res.Task == nil {
		t.Fatalf("create: %v %+v", err, res)
	}
	id := res.Task.TaskID
	listened := make(chan exttasks.TaskStatusNotificationParams, 16)
	lctx, stopListen := context.WithCancel(ctx)
	defer stopListen()
	go func() {
		_ = modernB.Listen(lctx, []string{id}, nil, func(p exttasks.TaskStatusNotificationParams) { listened <- p })
	}()
	got, err := modernB.Poll(ctx, id, 20*time.Millisecond, func(context.Context, string, exttasks.InputRequest) (json.RawMessage, error) {
		return json.RawMessage(`{"action":"accept","content":{"answer":"teal"}}`), nil
	})
	if err != nil || got.Status != exttasks.TaskStatusCompleted || !strings.Contains(string(got.Result), "teal") {
		t.Fatalf("across instances: %v %+v", err, got)
	}
	if a, err := modernA.GetTask(ctx, id); err != nil || a.Status != exttasks.TaskStatusCompleted {
		t.Errorf("instance A: %v %+v", err, a)
	}
	deadline := time.After(10 * time.Second)
	for done := false; !done; {
		select {
		case p := <-listened:
			done = p.Status == exttasks.TaskStatusCompleted
		case <-deadline:
			t.Fatal("the listen stream on instance B never reported the completion on instance A")
		}
	}
	stopListen()

	// Ownership holds in the modern profile across instances.
	if _, err := bob.GetTask(ctx, id); err == nil {
		t.Error("bob reads alice's task")
	}

	// The two profiles keep their tasks apart, for the same identity.
	lt, err := legacy.CallToolAsTask(ctx, server.FixtureSleepTool, map[string]any{"ms": 10}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var rpc *client.RPCError
	if _, err := modernB.GetTask(ctx, lt.Task.TaskID); !errors.As(err, &rpc) || rpc.Code != -32602 {
		t.Errorf("legacy task under 2026-07-28: %v", err)
	}
	if _, err := legacy.GetTask(ctx, id); !errors.As(err, &rpc) || rpc.Code != -32602 {
		t.Errorf("modern task under 2025-11-25: %v", err)
	}
	// Each client sees only its own wire.
	raw, err := legacy.Call(ctx, "tasks/get", map[string]any{"taskId": lt.Task.TaskID})
	if err != nil || !strings.Contains(string(raw), `"ttl"`) || strings.Contains(string(raw), "ttlMs") || strings.Contains(string(raw), "resultType") {
		t.Errorf("legacy wire: %v %s", err, raw)
	}
	raw, err = modernB.Call(ctx, "tasks/get", map[string]any{"taskId": id})
	if err != nil || !strings.Contains(string(raw), `"ttlMs"`) || strings.Contains(string(raw), `"ttl"`) || !strings.Contains(string(raw), `"resultType":"complete"`) {
		t.Errorf("modern wire: %v %s", err, raw)
	}
}
