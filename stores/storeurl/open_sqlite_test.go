package storeurl_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mcptasks/mcptasks/stores/storeurl"
	"github.com/mcptasks/mcptasks/tasks"
)

func TestOpenSQLite(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "tasks.db")
	for _, spec := range []string{"sqlite:" + path, "sqlite://" + path} {
		s, err := storeurl.Open(ctx, spec, tasks.Config{})
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		r, err := s.Create(ctx, "owner", tasks.CreateParams{Method: "tools/call"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Get(ctx, "owner", r.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := storeurl.Open(ctx, "sqlite:", tasks.Config{}); err == nil {
		t.Error("sqlite: without a path was accepted")
	}
}
