package postgres

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migrateLockKey is the pg_advisory_lock key under which Open applies the
// migrations: nodes opening one database at once apply each migration once.
const migrateLockKey int64 = 0x6f72646f_6d696772 // "ordomigr"

type migration struct {
	version int
	name    string
	sql     string
}

// loadMigrations reads the embedded migrations in version order.
func loadMigrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, err
	}
	var ms []migration
	seen := map[int]string{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".sql") {
			continue
		}
		prefix, _, found := strings.Cut(name, "_")
		v, err := strconv.Atoi(prefix)
		if !found || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: want NNNN_name.sql", name)
		}
		if other, dup := seen[v]; dup {
			return nil, fmt.Errorf("migrations %s and %s share version %d", other, name, v)
		}
		seen[v] = name
		b, err := fs.ReadFile(migrationFS, "migrations/"+name)
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: name, sql: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	return ms, nil
}

// migrate applies, in version order, each embedded migration not yet in
// schema_migrations, each in its own transaction with its row, holding
// the session's advisory lock migrateLockKey throughout. conn is a
// connection of its own: closing it releases the lock whatever happened.
func migrate(ctx context.Context, conn *pgx.Conn, now func() time.Time) error {
	ms, err := loadMigrations()
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	return migrateTo(ctx, conn, now, ms)
}

// migrateTo is migrate with the migrations given (a prefix of them brings
// a database to an older binary's schema, in tests).
func migrateTo(ctx context.Context, conn *pgx.Conn, now func() time.Time, ms []migration) error {
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, migrateLockKey); err != nil {
		return fmt.Errorf("migrations: lock: %w", err)
	}
	defer func() { _, _ = conn.Exec(context.Background(), `SELECT pg_advisory_unlock($1)`, migrateLockKey) }()
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    BIGINT PRIMARY KEY,
		name       TEXT   NOT NULL,
		applied_at BIGINT NOT NULL
	)`); err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	var latest int
	if err := conn.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&latest); err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	if n := len(ms); n > 0 && latest > ms[n-1].version {
		return fmt.Errorf("migrations: database schema version %d is newer than this binary's %d", latest, ms[n-1].version)
	}
	for _, m := range ms {
		if m.version <= latest {
			continue
		}
		if err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			// The simple protocol runs a file of several statements.
			if _, err := tx.Exec(ctx, m.sql, pgx.QueryExecModeSimpleProtocol); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)`,
				m.version, m.name, now().UnixNano())
			return err
		}); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	return nil
}
