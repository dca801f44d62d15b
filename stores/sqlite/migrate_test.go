package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
)

func TestMigrationsRerunSafely(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite", DSN(filepath.Join(t.TempDir(), "m.db")))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	steps, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{len(steps), 0, 0} {
		n, err := migrate(ctx, db)
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if n != want {
			t.Fatalf("run %d applied %d steps, want %d", i, n, want)
		}
	}
	var count int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations`).Scan(&count); err != nil {
		t.Fatal(err)
	}
	if count != len(steps) {
		t.Fatalf("schema_migrations has %d rows, want %d", count, len(steps))
	}
}
