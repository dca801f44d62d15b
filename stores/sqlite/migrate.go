package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"

	sqlsteps "github.com/mcptasks/mcptasks/stores/internal/migrations"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrations lists the embedded schema steps in version order.
func migrations() ([]sqlsteps.Step, error) {
	return sqlsteps.Load(migrationFiles, "migrations")
}

// migrate applies every step not yet recorded in schema_migrations, all in
// one immediate transaction, so concurrent openers of the same file apply
// each step exactly once. Running it again changes nothing.
func migrate(ctx context.Context, db *sql.DB) (applied int, err error) {
	steps, err := migrations()
	if err != nil {
		return 0, err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	if _, err = tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER NOT NULL PRIMARY KEY,
		name    TEXT    NOT NULL
	)`); err != nil {
		return 0, err
	}
	for _, m := range steps {
		var one int
		err = tx.QueryRowContext(ctx, `SELECT 1 FROM schema_migrations WHERE version = ?`, m.Version).Scan(&one)
		if err == nil {
			continue
		}
		if err != sql.ErrNoRows {
			return 0, err
		}
		if _, err = tx.ExecContext(ctx, m.SQL); err != nil {
			return 0, fmt.Errorf("migration %s: %w", m.Name, err)
		}
		if _, err = tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name) VALUES (?, ?)`, m.Version, m.Name); err != nil {
			return 0, err
		}
		applied++
	}
	return applied, tx.Commit()
}
