package storetest

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/ordolabs/ordo/internal/store"
)

func (s *suite) testApplyUpdates(t *testing.T) {
	st := s.fresh(t)
	a := enqueue(t, st, ntx("a", "q"))[0].Transaction
	apply(t, st, store.Batch{Txs: []store.TxUpdate{{
		UID: "a", State: store.Retry, Retries: 2, Result: json.RawMessage(`{"hash":"h"}`), Error: "boom", At: at(7),
	}}})
	want := a
	want.State, want.Retries, want.Result, want.Error, want.UpdatedAt = store.Retry, 2, json.RawMessage(`{"hash":"h"}`), "boom", at(7)
	checkTx(t, "after RETRY", get(t, st, "a"), want)

	// Every field is written as given: an empty Result and Error clear them.
	apply(t, st, store.Batch{Txs: []store.TxUpdate{{UID: "a", State: store.Done, Retries: 2, At: at(8)}}})
	want.State, want.Result, want.Error, want.UpdatedAt = store.Done, nil, "", at(8)
	checkTx(t, "after DONE", get(t, st, "a"), want)
}

// An attempt-only update writes the attempt and leaves the transaction's
// own fields and UpdatedAt as they were, even when it carries others; in a
// batch with an own change of the same transaction, that change is
// written, whatever their order.
func (s *suite) testApplyAttemptOnly(t *testing.T) {
	st := s.fresh(t)
	enqueue(t, st, ntx("a", "q"), ntx("b", "q2"))
	a1 := store.Attempt{N: 1, Sender: "s1", Nonce: 4, Hash: "h1", At: at(1)}
	apply(t, st, store.Batch{Txs: []store.TxUpdate{update("a", store.Revision, &a1, 1)}})
	want := get(t, st, "a")

	a1.Outcome, a1.Height = "included", 9
	only := update("a", store.Done, &a1, 5) // fields the store must not take
	only.AttemptOnly, only.Retries, only.Error = true, 3, "not written"
	apply(t, st, store.Batch{Txs: []store.TxUpdate{only}})
	want.Attempts = []store.Attempt{a1}
	checkTx(t, "after an attempt-only update", get(t, st, "a"), want)

	b1 := store.Attempt{N: 1, Sender: "s2", Hash: "hb"}
	onlyB := update("b", store.Waiting, &b1, 6)
	onlyB.AttemptOnly = true
	own := update("b", store.Revision, nil, 7)
	apply(t, st, store.Batch{Txs: []store.TxUpdate{onlyB, own}})
	gotB := get(t, st, "b")
	if gotB.State != store.Revision || !gotB.UpdatedAt.Equal(at(7)) {
		t.Fatalf("b after attempt-only then own change: state %s updated %v, want REVISION at %v", gotB.State, gotB.UpdatedAt, at(7))
	}
	if err := diffAttempts(gotB.Attempts, []store.Attempt{b1}); err != nil {
		t.Fatalf("b's attempts: %v", err)
	}
}

func (s *suite) testApplyAtomic(t *testing.T) {
	good := func() store.Batch {
		return store.Batch{
			Txs: []store.TxUpdate{
				update("a", store.Revision, &store.Attempt{N: 1, Sender: "s1", At: at(1), Outcome: "sent"}, 1),
				update("b", store.Done, nil, 1),
			},
			Queues:  []store.Queue{{Name: "q", State: store.Inclusion, Sender: "s1", TxUID: "a", UpdatedAt: at(1)}},
			Senders: []store.Sender{{ID: "s1", Queue: "q", NextNonce: 1, UpdatedAt: at(1)}},
			History: []store.HistoryEntry{{UID: "a", At: at(1), From: store.Waiting, To: store.Revision}},
		}
	}
	tests := []struct {
		name     string
		batch    func() store.Batch
		notFound bool
	}{
		{"unknown uid last", func() store.Batch {
			b := good()
			b.Txs = append(b.Txs, update("ghost", store.Done, nil, 1))
			return b
		}, true},
		{"unknown uid first", func() store.Batch {
			b := good()
			b.Txs = append([]store.TxUpdate{update("ghost", store.Done, nil, 1)}, b.Txs...)
			return b
		}, true},
		{"unknown uid with an attempt", func() store.Batch {
			b := good()
			b.Txs = append(b.Txs, update("ghost", store.Revision, &store.Attempt{N: 1}, 1))
			return b
		}, true},
		{"unknown uid, attempt only", func() store.Batch {
			b := good()
			u := update("ghost", store.Revision, &store.Attempt{N: 1}, 1)
			u.AttemptOnly = true
			b.Txs = append(b.Txs, u)
			return b
		}, true},
		{"attempt-only update without an attempt", func() store.Batch {
			b := good()
			b.Txs = append(b.Txs, store.TxUpdate{UID: "b", State: store.Done, AttemptOnly: true})
			return b
		}, false},
		{"history of an unknown uid", func() store.Batch {
			b := good()
			b.History = append(b.History, store.HistoryEntry{UID: "ghost", At: at(1), To: store.Done})
			return b
		}, false},
		{"queue bound to an unknown transaction", func() store.Batch {
			b := good()
			b.Queues = append(b.Queues, store.Queue{Name: "q2", State: store.Inclusion, TxUID: "ghost"})
			return b
		}, false},
		{"invalid state", func() store.Batch {
			b := good()
			b.Txs = append(b.Txs, store.TxUpdate{UID: "b", State: "BOGUS", At: at(1)})
			return b
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st := s.fresh(t)
			res := enqueue(t, st, ntx("a", "q"), ntx("b", "q2"))
			err := st.Apply(ctxT(t), tc.batch())
			if err == nil {
				t.Fatal("Apply succeeded, want an error")
			}
			if tc.notFound {
				wantNotFound(t, "Apply", err)
			}
			checkTx(t, "a after the refused batch", get(t, st, "a"), res[0].Transaction)
			checkTx(t, "b after the refused batch", get(t, st, "b"), res[1].Transaction)
			qs, err := st.Queues(ctxT(t))
			if err != nil {
				t.Fatalf("Queues: %v", err)
			}
			checkQueues(t, qs, []store.Queue{{Name: "q", State: store.Free}, {Name: "q2", State: store.Free}})
			senders, err := st.Senders(ctxT(t))
			if err != nil || len(senders) != 0 {
				t.Fatalf("Senders = %+v, %v; want none", senders, err)
			}
			hs, err := st.History(ctxT(t), "a")
			if err != nil || len(hs) != 1 {
				t.Fatalf("History(a) = %+v, %v; want only the creation entry", hs, err)
			}
			// The good batch alone applies.
			apply(t, st, good())
			if tx := get(t, st, "a"); tx.State != store.Revision || len(tx.Attempts) != 1 {
				t.Fatalf("a after the good batch: %+v", tx)
			}
		})
	}
}

func (s *suite) testApplyEmpty(t *testing.T) {
	st := s.fresh(t)
	if err := st.Apply(ctxT(t), store.Batch{}); err != nil {
		t.Fatalf("Apply(empty): %v", err)
	}
}

func (s *suite) testAttemptsUpsert(t *testing.T) {
	st := s.fresh(t)
	enqueue(t, st, ntx("a", "q"), ntx("b", "q"))
	a2 := store.Attempt{N: 2, Sender: "s2", Nonce: 5, Fee: 20, Gas: 21000, At: at(2), Outcome: "sent"}
	a1 := store.Attempt{N: 1, Sender: "s1", Nonce: 4, Fee: 10, At: at(1), Outcome: "sent"}
	apply(t, st, store.Batch{Txs: []store.TxUpdate{update("a", store.Revision, &a2, 2)}})
	apply(t, st, store.Batch{Txs: []store.TxUpdate{
		update("a", store.Retry, &a1, 3),
		update("b", store.Revision, &store.Attempt{N: 1, Sender: "s3"}, 3),
	}})
	if err := diffAttempts(get(t, st, "a").Attempts, []store.Attempt{a1, a2}); err != nil {
		t.Fatalf("attempts by n: %v", err)
	}
	// Upsert n=2: every field replaced; the record still has two attempts.
	a2b := store.Attempt{N: 2, Sender: "s2", Nonce: math.MaxUint64, Fee: math.MaxUint64 - 1, Gas: math.MaxUint64 - 2, Cancel: store.CancelRequeue, Hash: "0xabc",
		At: at(4), Outcome: "failed", Error: "reverted", Height: math.MaxUint64}
	apply(t, st, store.Batch{Txs: []store.TxUpdate{update("a", store.Retry, &a2b, 4)}})
	if err := diffAttempts(get(t, st, "a").Attempts, []store.Attempt{a1, a2b}); err != nil {
		t.Fatalf("attempts after upsert: %v", err)
	}
	// An update without an attempt leaves the attempts alone.
	apply(t, st, store.Batch{Txs: []store.TxUpdate{update("a", store.Failed, nil, 5)}})
	if err := diffAttempts(get(t, st, "a").Attempts, []store.Attempt{a1, a2b}); err != nil {
		t.Fatalf("attempts after an update without attempt: %v", err)
	}
	if err := diffAttempts(get(t, st, "b").Attempts, []store.Attempt{{N: 1, Sender: "s3"}}); err != nil {
		t.Fatalf("attempts of b: %v", err)
	}
}

func (s *suite) testHistoryOrder(t *testing.T) {
	st := s.fresh(t)
	na, nb := ntx("a", "q"), ntx("b", "q")
	enqueue(t, st, na, nb)
	// Times deliberately out of order: history is in the order written.
	e1 := store.HistoryEntry{UID: "a", At: at(5), From: store.Waiting, To: store.Revision, Binding: store.Inclusion, Note: "dispatched"}
	e2 := store.HistoryEntry{UID: "a", At: at(3), From: store.Revision, To: store.Retry, Binding: store.RetryBinding}
	eb := store.HistoryEntry{UID: "b", At: at(4), From: store.Waiting, To: store.Failed}
	e3 := store.HistoryEntry{UID: "a", At: at(4), From: store.Retry, To: store.Revision, Binding: store.WaitingInclusion, Note: "again"}
	apply(t, st, store.Batch{History: []store.HistoryEntry{e1, eb, e2}})
	apply(t, st, store.Batch{History: []store.HistoryEntry{e3}})
	hs, err := st.History(ctxT(t), "a")
	if err != nil {
		t.Fatalf("History(a): %v", err)
	}
	checkHistory(t, hs, []store.HistoryEntry{withNote(enqueuedEntry(na), hs), e1, e2, e3})
	hb, err := st.History(ctxT(t), "b")
	if err != nil {
		t.Fatalf("History(b): %v", err)
	}
	checkHistory(t, hb, []store.HistoryEntry{withNote(enqueuedEntry(nb), hb), eb})
}
