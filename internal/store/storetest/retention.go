package storetest

import (
	"encoding/json"
	"testing"

	"github.com/ordolabs/ordo/internal/store"
)

// testPruneFinished: PruneFinished deletes the DONE and FAILED records
// updated before its time whose hook reported and that no binding names,
// oldest update first, at most limit a call, with their attempts; it keeps
// the young, those whose hook has not reported, a bound one and the
// unfinished; a pruned record's idempotency key takes a new record.
func (s *suite) testPruneFinished(t *testing.T) {
	st := s.fresh(t)
	p, ok := any(st.Store).(store.Pruner)
	if !ok {
		t.Fatalf("%T is not a store.Pruner", st.Store)
	}
	enqueue(t, st, keyed("old1", "q1", "k-old1"), ntx("old2", "q2"), ntx("old3", "q3"), ntx("old4", "q4"),
		ntx("young", "q5"), ntx("hook", "q6"), ntx("bound", "q7"), ntx("waiting", "q8"), ntx("revision", "q9"))
	result := json.RawMessage(`{"ok":true}`)
	end := func(uid string, state store.TxState, ms int, res json.RawMessage) store.TxUpdate {
		return store.TxUpdate{UID: uid, State: state, Result: res, At: at(ms)}
	}
	first := end("old1", store.Done, 3000, result)
	first.Attempt = &store.Attempt{N: 1, Sender: "s1", Nonce: 1, Fee: 10, Hash: "h1", At: at(2000), Outcome: store.OutcomeIncluded}
	apply(t, st, store.Batch{
		Txs: []store.TxUpdate{first, end("old2", store.Failed, 1000, result), end("old3", store.Done, 2000, result), end("old4", store.Done, 4000, result),
			end("young", store.Done, 90_000, result), end("hook", store.Done, 1000, nil), end("bound", store.Done, 1000, result),
			end("revision", store.Revision, 1000, nil)},
		Queues:  []store.Queue{{Name: "q7", State: store.Blocked, Sender: "s2", TxUID: "bound"}},
		History: []store.HistoryEntry{{UID: "old1", At: at(3000), From: store.Waiting, To: store.Done}},
	})
	before := at(50_000)

	got, err := p.PruneFinished(ctxT(t), before, 2) // the two oldest updates: old2 (1000), old3 (2000)
	if err != nil {
		t.Fatalf("PruneFinished: %v", err)
	}
	if got.Transactions != 2 || got.Attempts != 0 {
		t.Fatalf("first PruneFinished(limit 2) = %+v, want 2 transactions and no attempt", got)
	}
	for _, uid := range []string{"old2", "old3"} {
		_, err := st.Get(ctxT(t), uid)
		wantNotFound(t, "Get of pruned "+uid, err)
	}
	get(t, st, "old1")
	got, err = p.PruneFinished(ctxT(t), before, 100)
	if err != nil {
		t.Fatalf("PruneFinished: %v", err)
	}
	if got.Transactions != 2 || got.Attempts != 1 {
		t.Fatalf("second PruneFinished = %+v, want old1 and old4, and old1's attempt", got)
	}
	if got, err := p.PruneFinished(ctxT(t), before, 100); err != nil || got != (store.Pruned{}) {
		t.Fatalf("third PruneFinished = %+v, %v; want nothing left to prune", got, err)
	}
	for _, uid := range []string{"old1", "old4"} {
		_, err := st.Get(ctxT(t), uid)
		wantNotFound(t, "Get of pruned "+uid, err)
	}
	if h, err := st.History(ctxT(t), "old1"); err == nil && len(h) > 0 {
		t.Fatalf("History of pruned old1: %v", h)
	}
	for _, uid := range []string{"young", "hook", "bound", "waiting", "revision"} {
		get(t, st, uid)
	}
	if n := len(listAll(t, st, store.Filter{})); n != 5 {
		t.Fatalf("List after pruning: %d records, want 5", n)
	}
	// The pruned record's key is free: sent again, it is a new record.
	res := enqueue(t, st, keyed("again", "q1", "k-old1"))
	if !res[0].Created || res[0].Transaction.UID != "again" {
		t.Fatalf("Enqueue with a pruned record's key: created %v, uid %s; want a new record", res[0].Created, res[0].Transaction.UID)
	}
}
