package postgres

import (
	"context"
	"slices"
	"strings"
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
		if _, err := tx.Exec(ctx, `INSERT INTO changes (at, uids, queues, froms, tos, ats, notes)
			VALUES (1, ARRAY[$1], '{q}', '{WAITING}', '{DONE}', '{1}', '{""}')`, uid); err != nil {
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

// TestChangesOneRowPerApply: an Apply writes one feed row whatever its
// number of entries, and a cursor names an entry inside a row: a read
// after it returns the rest of that row then the rows after it, Limit
// entries at most, with the queue filter applied to each entry. A cursor
// of migration 0020 (xid, id) resumes after its whole row.
func TestChangesOneRowPerApply(t *testing.T) {
	t.Parallel()
	s := openIn(t, t.TempDir(), Options{})
	t.Cleanup(func() { _ = s.Close() })
	ctx := context.Background()
	if _, err := s.Enqueue(ctx, []store.NewTransaction{{UID: "a", Queue: "q1"}, {UID: "b", Queue: "q1"}, {UID: "c", Queue: "q2"}}); err != nil {
		t.Fatalf("Enqueue: %v", err)
	}
	step := func(b *store.Batch, uid string, from, to store.TxState) {
		b.Txs = append(b.Txs, store.TxUpdate{UID: uid, State: to})
		b.History = append(b.History, store.HistoryEntry{UID: uid, From: from, To: to})
	}
	var first, second store.Batch
	step(&first, "a", store.Waiting, store.Revision)
	step(&first, "c", store.Waiting, store.Revision)
	step(&first, "b", store.Waiting, store.Revision)
	step(&second, "a", store.Revision, store.Done)
	step(&second, "c", store.Revision, store.Done)
	for _, b := range []store.Batch{first, second} {
		if err := s.Apply(ctx, b); err != nil {
			t.Fatalf("Apply: %v", err)
		}
	}
	var rows int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM changes`).Scan(&rows); err != nil || rows != 2 {
		t.Fatalf("feed rows = %d, %v; want 2, one per Apply", rows, err)
	}
	var all []store.TxChange
	testkit.WaitFor(t, 10*time.Second, 5*time.Millisecond, "the five changes read", func() bool {
		var err error
		if all, err = s.Changes(ctx, store.ChangeFilter{}); err != nil {
			t.Fatalf("Changes: %v", err)
		}
		return len(all) == 5
	})
	for i, c := range all {
		if i > 0 && (c.ID <= all[i-1].ID || len(c.ID) != len(all[0].ID)) {
			t.Fatalf("change %d's ID %q does not follow %q at the same width", i, c.ID, all[i-1].ID)
		}
	}
	if got := [5]string{all[0].UID, all[1].UID, all[2].UID, all[3].UID, all[4].UID}; got != [5]string{"a", "c", "b", "a", "c"} {
		t.Fatalf("Changes UIDs = %v, want the batches' order", got)
	}
	ids := func(cs []store.TxChange) []string {
		out := make([]string, len(cs))
		for i, c := range cs {
			out[i] = c.ID
		}
		return out
	}
	legacy := all[0].ID[:strings.LastIndexByte(all[0].ID, '.')] // 0020's (xid, id) of the first row
	for _, tc := range []struct {
		name string
		f    store.ChangeFilter
		want []store.TxChange
	}{
		{"mid-row, across rows", store.ChangeFilter{After: all[0].ID, Limit: 3}, all[1:4]},
		{"mid-row, within the row", store.ChangeFilter{After: all[0].ID, Limit: 1}, all[1:2]},
		{"end of a row", store.ChangeFilter{After: all[2].ID, Limit: 1}, all[3:4]},
		{"mid-row, queue q1", store.ChangeFilter{After: all[0].ID, Queue: "q1"}, []store.TxChange{all[2], all[3]}},
		{"mid-row, queue q2", store.ChangeFilter{After: all[1].ID, Queue: "q2"}, all[4:]},
		{"a cursor of 0020", store.ChangeFilter{After: legacy}, all[3:]},
	} {
		got, err := s.Changes(ctx, tc.f)
		if err != nil {
			t.Fatalf("%s: Changes: %v", tc.name, err)
		}
		if !slices.Equal(ids(got), ids(tc.want)) {
			t.Fatalf("%s: Changes(%+v) = %v, want %v", tc.name, tc.f, ids(got), ids(tc.want))
		}
	}
	if tail, err := s.ChangesTail(ctx); err != nil || tail != all[4].ID {
		t.Fatalf("ChangesTail = %q, %v; want the last entry's %q", tail, err, all[4].ID)
	}
}

// TestChangesXidOrderNumeric: the feed is read in the xids' numeric order
// (9 before 10), not in the order of their decimal text, which an ORDER BY
// naming the text output column would sort by; so is the tail.
func TestChangesXidOrderNumeric(t *testing.T) {
	t.Parallel()
	s := openIn(t, t.TempDir(), Options{})
	t.Cleanup(func() { _ = s.Close() })
	ctx := context.Background()
	for _, x := range []string{"10", "9"} { // ids 1 and 2: the id order is the reverse too
		if _, err := s.pool.Exec(ctx, `INSERT INTO changes (xid, at, uids, queues, froms, tos, ats, notes)
			VALUES ($1::text::xid8, 1, ARRAY['x' || $1], '{q}', '{WAITING}', '{DONE}', '{1}', '{""}')`, x); err != nil {
			t.Fatalf("insert xid %s: %v", x, err)
		}
	}
	var got []store.TxChange
	testkit.WaitFor(t, 10*time.Second, 5*time.Millisecond, "both changes read", func() bool {
		var err error
		if got, err = s.Changes(ctx, store.ChangeFilter{}); err != nil {
			t.Fatalf("Changes: %v", err)
		}
		return len(got) == 2
	})
	if got[0].UID != "x9" || got[1].UID != "x10" || got[0].ID >= got[1].ID {
		t.Fatalf("Changes = %+v, want xid 9's then 10's, IDs increasing", got)
	}
	if first, err := s.Changes(ctx, store.ChangeFilter{Limit: 1}); err != nil || len(first) != 1 || first[0].ID != got[0].ID {
		t.Fatalf("Changes(Limit 1) = %+v, %v; want xid 9's", first, err)
	}
	if tail, err := s.ChangesTail(ctx); err != nil || tail != got[1].ID {
		t.Fatalf("ChangesTail = %q, %v; want xid 10's %q", tail, err, got[1].ID)
	}
}
