package storeurl_test

import (
	"context"
	"testing"

	"github.com/mcptasks/mcptasks/internal/testenv"
	"github.com/mcptasks/mcptasks/stores/storeurl"
	"github.com/mcptasks/mcptasks/tasks"
)

func TestOpenRedis(t *testing.T) {
	ctx := context.Background()
	srv := testenv.StartRedis(t, testenv.RedisOptions{}) // stopped by t.Cleanup
	a, err := storeurl.Open(ctx, srv.URL+"?prefix=a:", tasks.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := storeurl.Open(ctx, srv.URL+"?prefix=b:", tasks.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	r, err := a.Create(ctx, "owner", tasks.CreateParams{Method: "tools/call"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Get(ctx, "owner", r.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Get(ctx, "owner", r.ID); err == nil {
		t.Error("a store with another prefix sees the task")
	}
	if _, err := storeurl.Open(ctx, "redis://%zz", tasks.Config{}); err == nil {
		t.Error("a malformed URL was accepted")
	}
}
