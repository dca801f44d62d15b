package storeurl_test

import (
	"context"
	"testing"

	"github.com/mcptasks/mcptasks/stores/storeurl"
	"github.com/mcptasks/mcptasks/tasks"
)

func TestOpenMemory(t *testing.T) {
	ctx := context.Background()
	s, err := storeurl.Open(ctx, "memory", tasks.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r, err := s.Create(ctx, "owner", tasks.CreateParams{Method: "tools/call"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "owner", r.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := storeurl.Open(ctx, "memory:size=10", tasks.Config{}); err == nil {
		t.Error("options to the memory store were accepted")
	}
}
