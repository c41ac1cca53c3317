package postgres

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/storetest"
	"github.com/ordolabs/ordo/internal/testkit/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// openIn opens the store of dir: the database pgtest keeps for it.
func openIn(t testing.TB, dir string, opts Options) *Store {
	t.Helper()
	if opts.MaxConns == 0 {
		opts.MaxConns = 4
	}
	s, err := Open(context.Background(), pgtest.URLFor(t, dir), opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s
}

// block holds, from a session of its own, the lock an insert into
// transactions needs, until release is called.
func block(t testing.TB, dir string) (release func()) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgtest.URLFor(t, dir))
	if err != nil {
		t.Fatalf("blocker: %v", err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatalf("blocker: %v", err)
	}
	if _, err := tx.Exec(ctx, `LOCK TABLE transactions IN EXCLUSIVE MODE`); err != nil {
		t.Fatalf("blocker: %v", err)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			if err := tx.Rollback(ctx); err != nil {
				t.Errorf("blocker: rollback: %v", err)
			}
			_ = conn.Close(ctx)
		})
	}
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T, dir string) store.Store {
		return openIn(t, dir, Options{})
	}, storetest.WithBlocker(func(t *testing.T, dir string) func() { return block(t, dir) }))
}
