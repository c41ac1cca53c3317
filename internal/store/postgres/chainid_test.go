package postgres

import (
	"context"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/storetest"
	"github.com/ordolabs/ordo/internal/testkit/pgtest"
)

func TestChainConformance(t *testing.T) {
	storetest.RunChain(t, func(t *testing.T, dir string) storetest.ChainStored {
		return openIn(t, dir, Options{})
	})
}

// TestStorageFull: the server's disk_full (SQLSTATE 53100), raised here by
// a trigger on transactions as the server raises it when a write finds no
// room, is store.ErrStorageFull, and the store carries on once it stops.
func TestStorageFull(t *testing.T) {
	storetest.RunStorageFull(t, func(t *testing.T, dir string) store.Store {
		return openIn(t, dir, Options{})
	}, func(t *testing.T, dir string, _ store.Store) func() {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, pgtest.URLFor(t, dir))
		if err != nil {
			t.Fatalf("fill: %v", err)
		}
		if _, err := conn.Exec(ctx, `
			CREATE FUNCTION test_disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN
				RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = 'disk_full';
			END $$;
			CREATE TRIGGER test_disk_full BEFORE INSERT OR UPDATE ON transactions
				FOR EACH ROW EXECUTE FUNCTION test_disk_full()`); err != nil {
			t.Fatalf("fill: %v", err)
		}
		var once sync.Once
		return func() {
			once.Do(func() {
				if _, err := conn.Exec(ctx, `DROP TRIGGER test_disk_full ON transactions; DROP FUNCTION test_disk_full()`); err != nil {
					t.Errorf("free: %v", err)
				}
				_ = conn.Close(ctx)
			})
		}
	})
}
