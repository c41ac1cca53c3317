package postgres

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ordolabs/ordo/internal/testkit/pgtest"
)

// TestMigrations: several stores opening one empty database at once apply
// each migration once; reopening applies nothing; a database whose schema
// is newer than the binary is refused.
func TestMigrations(t *testing.T) {
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) == 0 || ms[0].version != 1 {
		t.Fatalf("migrations: %+v", ms)
	}
	for i := 1; i < len(ms); i++ {
		if ms[i].version != ms[i-1].version+1 {
			t.Fatalf("migration %s follows %s: a gap", ms[i].name, ms[i-1].name)
		}
	}
	url := pgtest.URL(t)
	ctx := context.Background()
	const nodes = 5
	var wg sync.WaitGroup
	errs := make([]error, nodes)
	for i := range nodes {
		wg.Go(func() {
			s, err := Open(ctx, url, Options{MaxConns: 2})
			if err == nil {
				err = s.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Open %d: %v", i, err)
		}
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, tc := range []struct {
		name, sql string
		want      int
	}{
		{"rows", `SELECT count(*) FROM schema_migrations`, len(ms)},
		{"versions", `SELECT count(DISTINCT version) FROM schema_migrations`, len(ms)},
		{"tables", `SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename IN
			('transactions', 'attempts', 'queues', 'senders', 'history', 'jobs', 'processors', 'leader_events', 'distseq_intents')`, 9},
	} {
		var n int
		if err := conn.QueryRow(ctx, tc.sql).Scan(&n); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if n != tc.want {
			t.Fatalf("%s: %d, want %d", tc.name, n, tc.want)
		}
	}

	s, err := Open(ctx, url, Options{})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	_ = s.Close()

	if _, err := conn.Exec(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, 'future', 0)`); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, url, Options{}); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("Open of a newer schema: err = %v, want refused", err)
	}
}
