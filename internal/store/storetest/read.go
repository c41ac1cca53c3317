package storetest

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/ordolabs/ordo/internal/store"
)

// listFixture makes 30 transactions over queues qa and qb in various states
// and returns them as the store should hold them, in Seq order.
func listFixture(t *testing.T, st store.Store) []store.Transaction {
	t.Helper()
	var news []store.NewTransaction
	for i := range 30 {
		q := "qa"
		if i%2 == 1 {
			q = "qb"
		}
		n := ntx(fmt.Sprintf("t%02d", i), q)
		n.At = at(i)
		news = append(news, n)
	}
	res := enqueue(t, st, news...)
	var txs []store.Transaction
	for _, r := range res {
		txs = append(txs, r.Transaction)
	}
	var b store.Batch
	for i := range txs {
		var state store.TxState
		var att *store.Attempt
		switch {
		case i%3 == 0:
			state = store.Done
		case i%5 == 0:
			state = store.Revision
			att = &store.Attempt{N: 1, Sender: "s", Nonce: uint64(i), At: at(100 + i), Outcome: "sent"}
		case i%7 == 0:
			state = store.Failed
		default:
			continue
		}
		b.Txs = append(b.Txs, update(txs[i].UID, state, att, 100+i))
		txs[i].State, txs[i].UpdatedAt = state, at(100+i)
		if att != nil {
			txs[i].Attempts = []store.Attempt{*att}
		}
	}
	apply(t, st, b)
	return txs
}

func filterTxs(txs []store.Transaction, keep func(store.Transaction) bool) []store.Transaction {
	var out []store.Transaction
	for _, tx := range txs {
		if keep(tx) {
			out = append(out, tx)
		}
	}
	return out
}

func (s *suite) testListFilters(t *testing.T) {
	st := s.fresh(t)
	txs := listFixture(t, st)
	mid := txs[10].Seq
	tests := []struct {
		name string
		f    store.Filter
		keep func(store.Transaction) bool
		max  int
	}{
		{"all", store.Filter{}, func(store.Transaction) bool { return true }, 0},
		{"queue", store.Filter{Queue: "qa"}, func(tx store.Transaction) bool { return tx.Queue == "qa" }, 0},
		{"state", store.Filter{State: store.Done}, func(tx store.Transaction) bool { return tx.State == store.Done }, 0},
		{"queue and state", store.Filter{Queue: "qb", State: store.Waiting},
			func(tx store.Transaction) bool { return tx.Queue == "qb" && tx.State == store.Waiting }, 0},
		{"state with attempts", store.Filter{State: store.Revision}, func(tx store.Transaction) bool { return tx.State == store.Revision }, 0},
		{"after", store.Filter{After: mid}, func(tx store.Transaction) bool { return tx.Seq > mid }, 0},
		{"queue after", store.Filter{Queue: "qa", After: mid}, func(tx store.Transaction) bool { return tx.Queue == "qa" && tx.Seq > mid }, 0},
		{"limit", store.Filter{Limit: 5}, func(store.Transaction) bool { return true }, 5},
		{"state limit", store.Filter{State: store.Waiting, Limit: 3}, func(tx store.Transaction) bool { return tx.State == store.Waiting }, 3},
		{"unknown queue", store.Filter{Queue: "nope"}, func(store.Transaction) bool { return false }, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := filterTxs(txs, tc.keep)
			if tc.max > 0 && len(want) > tc.max {
				want = want[:tc.max]
			}
			got, err := st.List(ctxT(t), tc.f)
			if err != nil {
				t.Fatalf("List(%+v): %v", tc.f, err)
			}
			checkTxs(t, fmt.Sprintf("List(%+v)", tc.f), got, want, false)
		})
	}
}

func (s *suite) testListPaging(t *testing.T) {
	st := s.fresh(t)
	txs := listFixture(t, st)
	for _, f := range []store.Filter{{Limit: 7}, {Queue: "qa", Limit: 4}, {State: store.Waiting, Limit: 1}} {
		want := filterTxs(txs, func(tx store.Transaction) bool {
			return (f.Queue == "" || tx.Queue == f.Queue) && (f.State == "" || tx.State == f.State)
		})
		var got []store.Transaction
		for page := 0; ; page++ {
			if page > len(txs) {
				t.Fatalf("paging %+v does not end", f)
			}
			p, err := st.List(ctxT(t), f)
			if err != nil {
				t.Fatalf("List(%+v): %v", f, err)
			}
			if len(p) > f.Limit {
				t.Fatalf("List(%+v): %d transactions", f, len(p))
			}
			if len(p) == 0 {
				break
			}
			got = append(got, p...)
			f.After = p[len(p)-1].Seq
		}
		checkTxs(t, fmt.Sprintf("paging %+v", f), got, want, false)
	}
}

func (s *suite) testListLimits(t *testing.T) {
	st := s.fresh(t)
	var news []store.NewTransaction
	for i := range 1100 {
		news = append(news, ntx(fmt.Sprintf("t%04d", i), "q"))
	}
	enqueue(t, st, news...)
	for _, tc := range []struct{ limit, want int }{{0, 100}, {-1, 100}, {1000, 1000}, {5000, 1000}} {
		got, err := st.List(ctxT(t), store.Filter{Limit: tc.limit})
		if err != nil {
			t.Fatalf("List(Limit %d): %v", tc.limit, err)
		}
		if len(got) != tc.want {
			t.Fatalf("List(Limit %d): %d transactions, want %d", tc.limit, len(got), tc.want)
		}
		w, err := st.Waiting(ctxT(t), "q", 0, tc.limit)
		if err != nil {
			t.Fatalf("Waiting(limit %d): %v", tc.limit, err)
		}
		if len(w) != tc.want {
			t.Fatalf("Waiting(limit %d): %d transactions, want %d", tc.limit, len(w), tc.want)
		}
	}
}

func (s *suite) testWaiting(t *testing.T) {
	st := s.fresh(t)
	var news []store.NewTransaction
	for i := range 10 {
		news = append(news, ntx(fmt.Sprintf("a%d", i), "qa"))
		if i < 3 {
			news = append(news, ntx(fmt.Sprintf("b%d", i), "qb"))
		}
	}
	var qa []store.Transaction
	for _, r := range enqueue(t, st, news...) {
		if r.Transaction.Queue == "qa" {
			qa = append(qa, r.Transaction)
		}
	}
	apply(t, st, store.Batch{Txs: []store.TxUpdate{
		update("a0", store.Revision, &store.Attempt{N: 1, Sender: "s"}, 1),
		update("a4", store.Done, nil, 1),
		update("a7", store.Retry, nil, 1),
	}})
	waiting := filterTxs(qa, func(tx store.Transaction) bool {
		return tx.UID != "a0" && tx.UID != "a4" && tx.UID != "a7"
	})
	tests := []struct {
		name  string
		queue string
		after int64
		limit int
		want  []store.Transaction
	}{
		{"all", "qa", 0, 100, waiting},
		{"after", "qa", qa[5].Seq, 100, filterTxs(waiting, func(tx store.Transaction) bool { return tx.Seq > qa[5].Seq })},
		{"limit", "qa", 0, 2, waiting[:2]},
		{"after last", "qa", qa[9].Seq, 100, nil},
		{"unknown queue", "nope", 0, 100, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := st.Waiting(ctxT(t), tc.queue, tc.after, tc.limit)
			if err != nil {
				t.Fatalf("Waiting: %v", err)
			}
			checkTxs(t, "Waiting", got, tc.want, true)
		})
	}
	// A WAITING transaction that was dispatched (a dispatch interrupted by
	// a stop) comes with its attempts.
	enqueue(t, st, ntx("c0", "qc"))
	apply(t, st, store.Batch{Txs: []store.TxUpdate{update("c0", store.Waiting, &store.Attempt{N: 1, Sender: "s", Nonce: 4, Hash: "h"}, 1)}})
	got, err := st.Waiting(ctxT(t), "qc", 0, 10)
	if err != nil || len(got) != 1 || len(got[0].Attempts) != 1 || got[0].Attempts[0].Hash != "h" {
		t.Fatalf("Waiting with an attempt = %+v, %v", got, err)
	}
}

func (s *suite) testActive(t *testing.T) {
	st := s.fresh(t)
	if got, err := st.Active(ctxT(t)); err != nil || len(got) != 0 {
		t.Fatalf("Active on an empty store = %v, %v", uids(got), err)
	}
	res := enqueue(t, st, ntx("w", "q0"), ntx("rev", "q1"), ntx("done", "q2"), ntx("retry", "q3"), ntx("failed", "q4"))
	att1 := store.Attempt{N: 1, Sender: "s1", At: at(1), Outcome: "error", Error: "nope"}
	att2 := store.Attempt{N: 2, Sender: "s1", At: at(2), Outcome: "sent"}
	apply(t, st, store.Batch{Txs: []store.TxUpdate{
		update("retry", store.Retry, &att1, 1),
		update("rev", store.Revision, &att2, 2),
		update("done", store.Done, nil, 2),
		update("failed", store.Failed, nil, 2),
	}})
	apply(t, st, store.Batch{Txs: []store.TxUpdate{update("rev", store.Revision, &att1, 3)}})
	rev, retry := res[1].Transaction, res[3].Transaction
	rev.State, rev.UpdatedAt, rev.Attempts = store.Revision, at(3), []store.Attempt{att1, att2}
	retry.State, retry.UpdatedAt, retry.Attempts = store.Retry, at(1), []store.Attempt{att1}
	got, err := st.Active(ctxT(t))
	if err != nil {
		t.Fatalf("Active: %v", err)
	}
	checkTxs(t, "Active", got, []store.Transaction{rev, retry}, false)
}

func (s *suite) testWaitingQueues(t *testing.T) {
	st := s.fresh(t)
	check := func(want ...string) {
		t.Helper()
		got, err := st.WaitingQueues(ctxT(t))
		if err != nil {
			t.Fatalf("WaitingQueues: %v", err)
		}
		if len(got) != 0 || len(want) != 0 {
			if !slices.Equal(got, want) {
				t.Fatalf("WaitingQueues = %v, want %v", got, want)
			}
		}
	}
	check()
	enqueue(t, st, ntx("c1", "c"), ntx("b1", "b"), ntx("a1", "a"), ntx("c2", "c"), ntx("a2", "a"))
	check("a", "b", "c")
	apply(t, st, store.Batch{
		Txs:    []store.TxUpdate{update("b1", store.Done, nil, 1), update("c1", store.Revision, nil, 1)},
		Queues: []store.Queue{{Name: "b", State: store.Free}, {Name: "z", State: store.Blocked}},
	})
	check("a", "c")
	apply(t, st, store.Batch{Txs: []store.TxUpdate{update("a1", store.Done, nil, 2), update("a2", store.Failed, nil, 2)}})
	check("c")
	apply(t, st, store.Batch{Txs: []store.TxUpdate{update("c2", store.Retry, nil, 3)}})
	check()
	// Back to WAITING (a retried transaction) counts again.
	apply(t, st, store.Batch{Txs: []store.TxUpdate{update("a1", store.Waiting, nil, 4)}})
	check("a")
}

func (s *suite) testQueuesAndStats(t *testing.T) {
	st := s.fresh(t)
	if qs, err := st.Queues(ctxT(t)); err != nil || len(qs) != 0 {
		t.Fatalf("Queues on an empty store = %+v, %v", qs, err)
	}
	if bs, err := st.Bindings(ctxT(t)); err != nil || len(bs) != 0 {
		t.Fatalf("Bindings on an empty store = %+v, %v", bs, err)
	}
	enqueue(t, st, ntx("a1", "q1"), ntx("a2", "q1"), ntx("a3", "q1"), ntx("b1", "q2"))
	q1 := store.Queue{Name: "q1", State: store.WaitingInclusion, Sender: "s1", TxUID: "a1",
		DelayUntil: at(50), Deadline: math.MaxUint64, UpdatedAt: at(10)}
	q3 := store.Queue{Name: "q3", State: store.Blocked, Sender: "s2", UpdatedAt: at(11)}
	apply(t, st, store.Batch{
		Txs:    []store.TxUpdate{update("a1", store.Revision, nil, 10), update("a3", store.Done, nil, 10)},
		Queues: []store.Queue{q1, q3},
	})
	qs, err := st.Queues(ctxT(t))
	if err != nil {
		t.Fatalf("Queues: %v", err)
	}
	checkQueues(t, qs, []store.Queue{q1, {Name: "q2", State: store.Free}, q3})
	// Bindings: only the queues with a binding row (q2 was never bound).
	bs, err := st.Bindings(ctxT(t))
	if err != nil {
		t.Fatalf("Bindings: %v", err)
	}
	checkQueues(t, bs, []store.Queue{q1, q3})

	// Upsert: the row is replaced whole.
	q1b := store.Queue{Name: "q1", State: store.Free, UpdatedAt: at(12)}
	apply(t, st, store.Batch{Queues: []store.Queue{q1b}})

	tests := []struct {
		name   string
		queue  store.Queue
		counts map[store.TxState]int
	}{
		{"q1", q1b, map[store.TxState]int{store.Waiting: 1, store.Revision: 1, store.Done: 1}},
		{"q2", store.Queue{Name: "q2", State: store.Free}, map[store.TxState]int{store.Waiting: 1}},
		{"q3", q3, map[store.TxState]int{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := st.QueueStats(ctxT(t), tc.name)
			if err != nil {
				t.Fatalf("QueueStats: %v", err)
			}
			if err := diffQueue(got.Queue, tc.queue); err != nil {
				t.Fatalf("QueueStats: %v", err)
			}
			for _, state := range []store.TxState{store.Waiting, store.Revision, store.Retry, store.Done, store.Failed} {
				if got.Counts[state] != tc.counts[state] {
					t.Fatalf("QueueStats counts %v, want %v", got.Counts, tc.counts)
				}
			}
		})
	}
	_, err = st.QueueStats(ctxT(t), "nope")
	wantNotFound(t, "QueueStats(nope)", err)
}

func (s *suite) testSenders(t *testing.T) {
	st := s.fresh(t)
	if got, err := st.Senders(ctxT(t)); err != nil || len(got) != 0 {
		t.Fatalf("Senders on an empty store = %+v, %v", got, err)
	}
	s2 := store.Sender{ID: "B62-two", Worker: "https://worker.example/2", UpdatedAt: at(1)}
	s1 := store.Sender{ID: "B62-one", NextNonce: 3, UpdatedAt: at(1)}
	apply(t, st, store.Batch{Senders: []store.Sender{s2, s1}})
	got, err := st.Senders(ctxT(t))
	if err != nil {
		t.Fatalf("Senders: %v", err)
	}
	checkSenders(t, got, []store.Sender{s1, s2})

	s1b := store.Sender{ID: "B62-one", Worker: "https://worker.example/1", Queue: "q", NextNonce: math.MaxUint64, UpdatedAt: at(2)}
	apply(t, st, store.Batch{Senders: []store.Sender{s1b}})
	s2b := store.Sender{ID: "B62-two"} // every field replaced, zero times stay zero
	apply(t, st, store.Batch{Senders: []store.Sender{s2b}})
	got, err = st.Senders(ctxT(t))
	if err != nil {
		t.Fatalf("Senders: %v", err)
	}
	checkSenders(t, got, []store.Sender{s1b, s2b})
}

func (s *suite) testNotFound(t *testing.T) {
	st := s.fresh(t)
	enqueue(t, st, ntx("a", "q"))
	ctx := ctxT(t)
	tests := []struct {
		name string
		call func() error
	}{
		{"Get", func() error { _, err := st.Get(ctx, "ghost"); return err }},
		{"History", func() error { _, err := st.History(ctx, "ghost"); return err }},
		{"QueueStats", func() error { _, err := st.QueueStats(ctx, "ghost"); return err }},
		{"Apply", func() error {
			return st.Apply(ctx, store.Batch{Txs: []store.TxUpdate{update("ghost", store.Done, nil, 1)}})
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wantNotFound(t, tc.name, tc.call())
		})
	}
}

// testPendingHooks: finished transactions without a result are listed in Seq
// order with their attempts; a result, or a state that is not final, leaves
// a transaction out.
func (s *suite) testPendingHooks(t *testing.T) {
	h := s.fresh(t)
	res := enqueue(t, h.Store, ntx("h1", "q"), ntx("h2", "q"), ntx("h3", "q"), ntx("h4", "q"))
	a := &store.Attempt{N: 1, Sender: "s", Nonce: 1, Fee: 10, Hash: "x", At: at(5), Outcome: "included", Height: 3}
	done := update(res[0].Transaction.UID, store.Done, a, 10)
	failed := update(res[1].Transaction.UID, store.Failed, nil, 10)
	hooked := update(res[2].Transaction.UID, store.Done, nil, 10)
	hooked.Result = []byte(`{"hash":"y"}`)
	apply(t, h.Store, store.Batch{Txs: []store.TxUpdate{done, failed, hooked}})
	got, err := h.PendingHooks(ctxT(t), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if u := uids(got); len(u) != 2 || u[0] != "h1" || u[1] != "h2" {
		t.Fatalf("pending hooks %v, want [h1 h2]", u)
	}
	if len(got[0].Attempts) != 1 || got[0].Attempts[0].Hash != "x" {
		t.Fatalf("attempts %+v", got[0].Attempts)
	}
	got, err = h.PendingHooks(ctxT(t), 0, 1)
	if err != nil || len(got) != 1 {
		t.Fatalf("limit 1: %d, %v", len(got), err)
	}
	got, err = h.PendingHooks(ctxT(t), got[0].Seq, 10)
	if u := uids(got); err != nil || len(u) != 1 || u[0] != "h2" {
		t.Fatalf("after h1: %v, %v", u, err)
	}
	counts, err := h.CountByState(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	want := map[store.TxState]int{store.Waiting: 1, store.Revision: 0, store.Retry: 0, store.Done: 2, store.Failed: 1}
	if !reflect.DeepEqual(counts, want) {
		t.Fatalf("CountByState %v, want %v", counts, want)
	}
}
