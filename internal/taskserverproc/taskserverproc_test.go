package taskserverproc_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/internal/taskserverproc"
	"github.com/mcptasks/mcptasks/tasks/client"
)

func TestMain(m *testing.M) { os.Exit(taskserverproc.Main(m)) }

// A started server answers at the URL it announced with the token given,
// its log is kept, SIGTERM ends it, and a killed one is gone at once.
func TestStartConnectStopAndKill(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tokens := taskserverproc.TokenFile(t, "tok-a alice", "tok-b bob")
	args := append(taskserverproc.Flags("memory", tokens, 2*time.Second, 250*time.Millisecond), "--log-level", "debug")

	p := taskserverproc.Start(t, "gentle", args...)
	if !strings.HasPrefix(p.URL, "http://127.0.0.1:") {
		t.Fatalf("URL %q", p.URL)
	}
	c := p.Connect(ctx, t, "tok-b")
	ct, err := c.CallToolAsTask(ctx, "fixture_sleep", map[string]any{"ms": 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Result(ctx, ct.Task.TaskID); err != nil {
		t.Fatal(err)
	}
	if n := p.CountLog("task created", "owner=sub:bob"); n != 1 {
		t.Errorf("%d log lines of bob's task creation, want 1:\n%s", n, p.Log())
	}
	p.Stop(t)
	if !strings.Contains(p.Log(), "shutting down") {
		t.Errorf("no shutdown line after SIGTERM:\n%s", p.Log())
	}

	k := taskserverproc.Start(t, "crashed", args...)
	k.Kill(t)
	if strings.Contains(k.Log(), "shutting down") {
		t.Errorf("a killed server logged a shutdown:\n%s", k.Log())
	}
	c2 := client.New(k.URL, client.WithHeader("Authorization", "Bearer tok-a"))
	if _, err := c2.Connect(ctx); err == nil {
		t.Errorf("a killed server at %s still answers", k.URL)
	}
}
