package testenv

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func pgQueryInt(t *testing.T, dsn, sql string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect %s: %v", dsn, err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(ctx, sql).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

func TestPostgresFreshDatabasePerCall(t *testing.T) {
	a, b := Postgres(t), Postgres(t)
	if a == b {
		t.Fatalf("two calls returned the same DSN %s", a)
	}
	for _, dsn := range []string{a, b} {
		if n := pgQueryInt(t, dsn, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"); n != 0 {
			t.Errorf("%s: fresh database has %d tables", dsn, n)
		}
	}
	conn, err := pgx.Connect(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), "CREATE TABLE only_in_a (x int)"); err != nil {
		t.Fatal(err)
	}
	if n := pgQueryInt(t, b, "SELECT count(*) FROM pg_tables WHERE tablename = 'only_in_a'"); n != 0 {
		t.Errorf("a table created in one database is visible in the other")
	}
}

func TestPostgresDatabaseDroppedAtCleanup(t *testing.T) {
	var name string
	t.Run("user", func(t *testing.T) {
		dsn := Postgres(t)
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRow(ctx, "SELECT current_database()").Scan(&name); err != nil {
			t.Fatal(err)
		}
		// Left open on purpose: cleanup must force it out.
	})
	c := PostgresCluster(t, PostgresOptions{})
	n := pgQueryInt(t, c.AdminDSN(), "SELECT count(*) FROM pg_database WHERE datname = '"+name+"'")
	if name == "" || n != 0 {
		t.Fatalf("database %q still exists after its test ended (count %d)", name, n)
	}
}

func TestPostgresCrashAndRestartKeepsCommittedData(t *testing.T) {
	c := PostgresCluster(t, PostgresOptions{Fsync: true, Private: true})
	dsn := c.NewDatabase(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE kept (x int); INSERT INTO kept SELECT generate_series(1, 100)"); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	c.Crash(t)
	if _, err := pgx.Connect(ctx, dsn); err == nil {
		t.Fatal("connected to a crashed cluster")
	}
	c.Start(t)
	if n := pgQueryInt(t, dsn, "SELECT count(*) FROM kept"); n != 100 {
		t.Fatalf("after crash and restart: %d rows, want 100", n)
	}
	c.Stop(t)
	c.Start(t)
	if n := pgQueryInt(t, dsn, "SELECT count(*) FROM kept"); n != 100 {
		t.Fatalf("after clean restart: %d rows, want 100", n)
	}
}

func TestWithDatabase(t *testing.T) {
	tests := []struct{ in, want string }{
		{"postgres://u@h:5/postgres?sslmode=disable", "postgres://u@h:5/t_x?sslmode=disable"},
		{"postgresql://u:p@h/db", "postgresql://u:p@h/t_x"},
		{"host=h user=u", "host=h user=u dbname=t_x"},
	}
	for _, tt := range tests {
		got, err := withDatabase(tt.in, "t_x")
		if err != nil || got != tt.want {
			t.Errorf("withDatabase(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestPostgresStaleClusterIsSwept(t *testing.T) {
	c := PostgresCluster(t, PostgresOptions{Private: true})
	// Pretend its owner died: a pid that has just exited.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.dir, pgOwnerFile), []byte(strconv.Itoa(dead.Process.Pid)), 0o644); err != nil {
		t.Fatal(err)
	}
	// A live cluster of ours must survive the sweep.
	live := PostgresCluster(t, PostgresOptions{})
	sweepStalePGClusters(c.bin)
	if _, err := os.Stat(c.dir); !os.IsNotExist(err) {
		t.Errorf("stale cluster dir %s still exists (%v)", c.dir, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if conn, err := pgx.Connect(ctx, c.AdminDSN()); err == nil {
		conn.Close(ctx)
		t.Errorf("the stale cluster still accepts connections")
	}
	if live.dir != "" {
		if _, err := os.Stat(live.dir); err != nil {
			t.Errorf("our own live cluster was swept: %v", err)
		}
	}
	c.mu.Lock()
	c.running = false // already stopped by the sweep
	c.mu.Unlock()
}
