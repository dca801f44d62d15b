package postgres

import (
	"context"
	"embed"
	"fmt"
	"slices"

	sqlsteps "github.com/mcptasks/mcptasks/stores/internal/migrations"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Advisory lock keys. PostgreSQL's two-int form keeps them apart from
// locks other software takes with the one-bigint form.
const (
	lockClass     = 0x6d637074 // "mcpt"
	lockMigration = 1
	lockOwner     = 0x6d637075 // per-owner creation lock class; objid = hashtext(owner)
)

// migrations lists the embedded schema steps in version order.
func migrations() ([]sqlsteps.Step, error) {
	return sqlsteps.Load(migrationFiles, "migrations")
}

// Migrate brings the database's schema up to date. It is safe to run any
// number of times and from several processes at once: a session advisory
// lock serialises runners and the mcptasks_schema_migrations table records
// what has been applied, each migration in its own transaction.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1, $2)", lockClass, lockMigration); err != nil {
		return fmt.Errorf("take the migration lock: %w", err)
	}
	defer func() {
		// A failed unlock (e.g. the connection broke) ends with the session.
		_, _ = conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1, $2)", lockClass, lockMigration)
	}()
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS mcptasks_schema_migrations (
		version    integer PRIMARY KEY,
		name       text NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return fmt.Errorf("create mcptasks_schema_migrations: %w", err)
	}
	rows, err := conn.Query(ctx, "SELECT version FROM mcptasks_schema_migrations")
	if err != nil {
		return err
	}
	applied, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return err
	}
	for _, m := range ms {
		if slices.Contains(applied, int32(m.Version)) {
			continue
		}
		err := pgx.BeginFunc(ctx, conn.Conn(), func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO mcptasks_schema_migrations (version, name) VALUES ($1, $2)", m.Version, m.Name)
			return err
		})
		if err != nil {
			return fmt.Errorf("apply migration %s: %w", m.Name, err)
		}
	}
	return nil
}
