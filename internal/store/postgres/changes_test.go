package postgres

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit"
	"github.com/ordolabs/ordo/internal/testkit/pgtest"
)

// TestChangesInterleavedWriters: two writers (two nodes' transactions)
// whose ids and commits interleave: A takes its xid first, B then inserts
// (id 1) and commits while A is open, A inserts (id 2) and commits. A reader
// reading between the commits must not hand out B's change, or its cursor
// would pass A's; after A commits it reads A's then B's, and nothing is
// skipped though B's id is the lower.
func TestChangesInterleavedWriters(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := openIn(t, dir, Options{})
	t.Cleanup(func() { _ = s.Close() })
	ctx := context.Background()
	begin := func(name string) pgx.Tx {
		conn, err := pgx.Connect(ctx, pgtest.URLFor(t, dir))
		if err != nil {
			t.Fatalf("writer %s: %v", name, err)
		}
		t.Cleanup(func() { _ = conn.Close(ctx) })
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatalf("writer %s: %v", name, err)
		}
		return tx
	}
	insert := func(tx pgx.Tx, uid string) {
		t.Helper()
		if _, err := tx.Exec(ctx, `INSERT INTO changes (uid, queue, from_state, to_state, at) VALUES ($1, 'q', 'WAITING', 'DONE', 1)`, uid); err != nil {
			t.Fatalf("insert %s: %v", uid, err)
		}
	}
	a, b := begin("A"), begin("B")
	if _, err := a.Exec(ctx, `SELECT pg_current_xact_id()`); err != nil { // A's xid comes first
		t.Fatalf("A: %v", err)
	}
	insert(b, "b")
	insert(a, "a")
	if err := b.Commit(ctx); err != nil {
		t.Fatalf("B: commit: %v", err)
	}
	// A plain read by id sees B's change alone: a cursor past it would
	// skip A's.
	var ids []int64
	rows, err := s.pool.Query(ctx, `SELECT id FROM changes ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	if ids, err = pgx.CollectRows(rows, pgx.RowTo[int64]); err != nil {
		t.Fatal(err)
	}
	if len(ids) != 1 {
		t.Fatalf("rows committed = %v, want B's alone", ids)
	}
	got, err := s.Changes(ctx, store.ChangeFilter{})
	if err != nil {
		t.Fatalf("Changes: %v", err)
	}
	if len(got) != 0 {
		t.Fatalf("Changes while A is open = %+v, want none (B's would pass A's)", got)
	}
	if err := a.Commit(ctx); err != nil {
		t.Fatalf("A: commit: %v", err)
	}
	testkit.WaitFor(t, 10*time.Second, 5*time.Millisecond, "both changes read", func() bool {
		if got, err = s.Changes(ctx, store.ChangeFilter{}); err != nil {
			t.Fatalf("Changes: %v", err)
		}
		return len(got) == 2
	})
	if uids := []string{got[0].UID, got[1].UID}; !slices.Equal(uids, []string{"a", "b"}) || got[0].ID >= got[1].ID {
		t.Fatalf("Changes after both commits = %+v, want a's then b's, IDs increasing", got)
	}
}
