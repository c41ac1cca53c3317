package storetest

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit"
)

// changesOf reads the feed with f until it holds want changes (a store may
// hand out a commit's changes a moment after it returns: PostgreSQL's
// waits for older transactions, of any database of its server, to end),
// and returns them.
func changesOf(t *testing.T, st store.Store, f store.ChangeFilter, want int) []store.TxChange {
	t.Helper()
	var got []store.TxChange
	testkit.WaitFor(t, 10*time.Second, 5*time.Millisecond, "the change feed holds its changes", func() bool {
		var err error
		if got, err = st.Changes(ctxT(t), f); err != nil {
			t.Fatalf("Changes(%+v): %v", f, err)
		}
		return len(got) >= want
	})
	if len(got) != want {
		t.Fatalf("Changes(%+v) = %d changes, want %d: %+v", f, len(got), want, got)
	}
	return got
}

// testChanges: the feed lists every history entry of every batch, in
// commit order, with its transaction's queue, under strictly increasing
// cursors; After resumes right after a cursor, Queue filters, Limit pages,
// a malformed cursor is refused with ErrBadCursor, and once retention
// pruned a record (and, by a store's rule, its changes or the changes as
// old as it), a cursor before what is kept reads from the oldest kept.
func (s *suite) testChanges(t *testing.T) {
	st := s.fresh(t)
	if got := changesOf(t, st, store.ChangeFilter{}, 0); len(got) != 0 {
		t.Fatalf("Changes of an empty store = %+v", got)
	}
	if tail, err := st.ChangesTail(ctxT(t)); err != nil || tail != "" {
		t.Fatalf("ChangesTail of an empty store = %q, %v; want \"\"", tail, err)
	}
	enqueue(t, st, ntx("a", "q1"), ntx("b", "q1"), ntx("c", "q2"))
	step := func(uid string, from, to store.TxState, ms int, note string) (store.TxUpdate, store.HistoryEntry) {
		u := store.TxUpdate{UID: uid, State: to, At: at(ms)}
		if to == store.Done {
			u.Result = json.RawMessage(`{"ok":true}`)
		}
		return u, store.HistoryEntry{UID: uid, At: at(ms), From: from, To: to, Note: note}
	}
	batch := func(steps ...func() (store.TxUpdate, store.HistoryEntry)) store.Batch {
		var b store.Batch
		for _, f := range steps {
			u, h := f()
			b.Txs, b.History = append(b.Txs, u), append(b.History, h)
		}
		return b
	}
	st1 := func(uid string, from, to store.TxState, ms int, note string) func() (store.TxUpdate, store.HistoryEntry) {
		return func() (store.TxUpdate, store.HistoryEntry) { return step(uid, from, to, ms, note) }
	}
	apply(t, st, batch(st1("a", store.Waiting, store.Revision, 1000, "dispatched"), st1("c", store.Waiting, store.Revision, 1001, "")))
	apply(t, st, batch(st1("a", store.Revision, store.Done, 2000, "included"), st1("b", store.Waiting, store.Revision, 2001, "")))

	all := changesOf(t, st, store.ChangeFilter{}, 4)
	want := []store.TxChange{
		{UID: "a", Queue: "q1", From: store.Waiting, To: store.Revision, At: at(1000).UTC(), Note: "dispatched"},
		{UID: "c", Queue: "q2", From: store.Waiting, To: store.Revision, At: at(1001).UTC()},
		{UID: "a", Queue: "q1", From: store.Revision, To: store.Done, At: at(2000).UTC(), Note: "included"},
		{UID: "b", Queue: "q1", From: store.Waiting, To: store.Revision, At: at(2001).UTC()},
	}
	for i, c := range all {
		if c.ID == "" || (i > 0 && c.ID <= all[i-1].ID) {
			t.Fatalf("change %d's ID %q does not follow %q: IDs must increase", i, c.ID, all[max(i-1, 0)].ID)
		}
		w := want[i]
		w.ID = c.ID
		if !c.At.Equal(w.At) {
			t.Fatalf("change %d at %v, want %v", i, c.At, w.At)
		}
		c.At, w.At = time.Time{}, time.Time{}
		if c != w {
			t.Fatalf("change %d = %+v, want %+v", i, c, w)
		}
	}
	ids := func(cs []store.TxChange) []string {
		out := make([]string, len(cs))
		for i, c := range cs {
			out[i] = c.ID
		}
		return out
	}
	for _, tc := range []struct {
		name string
		f    store.ChangeFilter
		want []store.TxChange
	}{
		{"after the second", store.ChangeFilter{After: all[1].ID}, all[2:]},
		{"after the last", store.ChangeFilter{After: all[3].ID}, nil},
		{"queue q1", store.ChangeFilter{Queue: "q1"}, []store.TxChange{all[0], all[2], all[3]}},
		{"queue q1 after its first", store.ChangeFilter{Queue: "q1", After: all[0].ID}, all[2:]},
		{"queue q2", store.ChangeFilter{Queue: "q2"}, all[1:2]},
		{"a queue without changes", store.ChangeFilter{Queue: "none"}, nil},
		{"limit 2", store.ChangeFilter{Limit: 2}, all[:2]},
		{"limit 2 after the first page", store.ChangeFilter{Limit: 2, After: all[1].ID}, all[2:]},
	} {
		got, err := st.Changes(ctxT(t), tc.f)
		if err != nil {
			t.Fatalf("%s: Changes: %v", tc.name, err)
		}
		if !slices.Equal(ids(got), ids(tc.want)) {
			t.Fatalf("%s: Changes(%+v) IDs = %v, want %v", tc.name, tc.f, ids(got), ids(tc.want))
		}
	}
	// The tail is the newest change's cursor: after it, only changes to
	// come (GET /v1/changes?after=now).
	tail, err := st.ChangesTail(ctxT(t))
	if err != nil || tail != all[3].ID {
		t.Fatalf("ChangesTail = %q, %v; want the newest change's %q", tail, err, all[3].ID)
	}
	defer func() {
		if t.Failed() {
			return
		}
		if got := changesOf(t, st, store.ChangeFilter{After: tail}, 2); got[0].UID != "b" || got[1].UID != "c" {
			t.Fatalf("Changes after the tail = %+v, want the two that followed it", got)
		}
	}()
	for _, bad := range []string{"x", "-1", all[0].ID + "0"} {
		if _, err := st.Changes(ctxT(t), store.ChangeFilter{After: bad}); !errors.Is(err, store.ErrBadCursor) {
			t.Fatalf("Changes after %q: %v, want ErrBadCursor", bad, err)
		}
	}

	// Retention: a, finished long ago, is pruned with its changes; a
	// cursor before them reads from the oldest kept.
	apply(t, st, batch(st1("b", store.Revision, store.Done, 90_000, ""), st1("c", store.Revision, store.Done, 90_001, "")))
	p, ok := any(st.Store).(store.Pruner)
	if !ok {
		return
	}
	changesOf(t, st, store.ChangeFilter{}, 6)
	if got, err := p.PruneFinished(ctxT(t), at(3000), 100); err != nil || got.Transactions != 1 {
		t.Fatalf("PruneFinished = %+v, %v; want a pruned", got, err)
	}
	kept, err := st.Changes(ctxT(t), store.ChangeFilter{After: all[0].ID})
	if err != nil {
		t.Fatalf("Changes after pruning: %v", err)
	}
	from, err := st.Changes(ctxT(t), store.ChangeFilter{})
	if err != nil {
		t.Fatalf("Changes after pruning: %v", err)
	}
	if !slices.Equal(ids(kept), ids(from)) || len(kept) < 2 {
		t.Fatalf("after pruning, Changes after a's first change = %v, from the oldest = %v; want the same, b's and c's last at least", ids(kept), ids(from))
	}
	for _, c := range kept {
		if c.UID == "a" {
			t.Fatalf("after pruning a, the feed still holds its change %+v", c)
		}
	}
	if last := kept[len(kept)-2:]; last[0].To != store.Done || last[1].To != store.Done || last[0].ID <= all[3].ID {
		t.Fatalf("after pruning, the feed ends %+v, want b's and c's DONE", last)
	}
}
