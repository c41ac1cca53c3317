package storetest

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/ordolabs/ordo/internal/store"
)

func (s *suite) testEnqueue(t *testing.T) {
	st := s.fresh(t)
	a := []store.NewTransaction{ntx("a1", "q1"), ntx("a2", "q2"), keyed("a3", "q1", "k-a3")}
	a[1].At = at(1)
	a[1].Data = nil
	b := ntx("b1", "q1")
	b.At = at(2)
	res := append(enqueue(t, st, a...), enqueue(t, st, b)...)
	all := append(a, b)
	var last int64
	for i, r := range res {
		if !r.Created {
			t.Fatalf("result %d: Created = false", i)
		}
		if r.Transaction.Seq <= last {
			t.Fatalf("result %d: Seq %d not greater than the previous %d", i, r.Transaction.Seq, last)
		}
		last = r.Transaction.Seq
		checkTx(t, "Enqueue result", r.Transaction, created(all[i], r.Transaction.Seq))
		checkTx(t, "Get", get(t, st, all[i].UID), r.Transaction)
		hs, err := st.History(ctxT(t), all[i].UID)
		if err != nil {
			t.Fatalf("History: %v", err)
		}
		checkHistory(t, hs, []store.HistoryEntry{withNote(enqueuedEntry(all[i]), hs)})
	}
}

func (s *suite) testEnqueueEmpty(t *testing.T) {
	st := s.fresh(t)
	res, err := st.Enqueue(ctxT(t), nil)
	if err != nil || len(res) != 0 {
		t.Fatalf("Enqueue(nil) = %v, %v; want no results, no error", res, err)
	}
	if got := listAll(t, st, store.Filter{}); len(got) != 0 {
		t.Fatalf("List after empty Enqueue: %v", uids(got))
	}
}

func (s *suite) testEnqueueRejects(t *testing.T) {
	noUID := ntx("", "q")
	noQueue := ntx("x2", "")
	tests := []struct {
		name string
		txs  []store.NewTransaction
	}{
		{"empty uid", []store.NewTransaction{ntx("ok", "q"), noUID}},
		{"empty queue", []store.NewTransaction{ntx("ok", "q"), noQueue}},
		{"uid twice in one call", []store.NewTransaction{ntx("ok", "q"), ntx("dup", "q"), ntx("dup", "q")}},
		{"uid already stored", []store.NewTransaction{ntx("ok", "q"), ntx("old", "q2")}},
		{"uid already stored with another key", []store.NewTransaction{ntx("ok", "q"), keyed("old", "q", "fresh-key")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st := s.fresh(t)
			old := enqueue(t, st, ntx("old", "q"))[0].Transaction
			if _, err := st.Enqueue(ctxT(t), tc.txs); err == nil {
				t.Fatal("Enqueue succeeded, want an error")
			}
			_, err := st.Get(ctxT(t), "ok")
			wantNotFound(t, "Get of a transaction from the refused call", err)
			checkTxs(t, "List", listAll(t, st, store.Filter{}), []store.Transaction{old}, false)
			// The store still works.
			enqueue(t, st, ntx("after", "q"))
		})
	}
}

func (s *suite) testIdempotencyAcrossCalls(t *testing.T) {
	st := s.fresh(t)
	first := enqueue(t, st, keyed("a", "q", "k"))[0]
	second := enqueue(t, st, keyed("b", "other", "k"))[0]
	if second.Created {
		t.Fatal("second Enqueue with the same key: Created = true")
	}
	checkTx(t, "second result", second.Transaction, first.Transaction)
	_, err := st.Get(ctxT(t), "b")
	wantNotFound(t, "Get of the duplicate's uid", err)
	hs, err := st.History(ctxT(t), "a")
	if err != nil || len(hs) != 1 {
		t.Fatalf("History(a) = %+v, %v; want the one creation entry", hs, err)
	}

	// The duplicate gets the record as it is now, attempts included.
	att := &store.Attempt{N: 1, Sender: "s1", Nonce: 7, Fee: 10, At: at(5), Outcome: "sent"}
	apply(t, st, store.Batch{Txs: []store.TxUpdate{update("a", store.Revision, att, 5)}})
	third := enqueue(t, st, keyed("c", "q", "k"))[0]
	if third.Created {
		t.Fatal("third Enqueue with the same key: Created = true")
	}
	checkTx(t, "third result", third.Transaction, get(t, st, "a"))
	if third.Transaction.State != store.Revision || len(third.Transaction.Attempts) != 1 {
		t.Fatalf("third result: %+v, want the REVISION record with its attempt", third.Transaction)
	}
	if got := listAll(t, st, store.Filter{}); len(got) != 1 {
		t.Fatalf("List: %v, want only a", uids(got))
	}
}

// testIdempotencyPerPrincipal: a key is scoped per principal. The same
// key under two principals makes two records, across calls and within
// one; under the same principal it answers the first record; a principal
// never gets another's record, and the empty principal is one more scope.
func (s *suite) testIdempotencyPerPrincipal(t *testing.T) {
	st := s.fresh(t)
	alice := enqueue(t, st, keyedBy("alice", "a1", "qa", "k"))[0]
	bob := enqueue(t, st, keyedBy("bob", "b1", "qb", "k"))[0]
	if !alice.Created || !bob.Created {
		t.Fatalf("the same key under alice and bob: Created %v and %v, want two records", alice.Created, bob.Created)
	}
	if bob.Transaction.UID != "b1" || bob.Transaction.Queue != "qb" {
		t.Fatalf("bob's result: %+v, want his own record b1 on qb", bob.Transaction)
	}
	again := enqueue(t, st, keyedBy("alice", "a2", "qa", "k"), keyedBy("bob", "b2", "qb", "k"), keyedBy("", "n1", "qn", "k"), keyedBy("", "n2", "qn", "k"))
	for i, want := range []struct {
		created bool
		uid     string
	}{{false, "a1"}, {false, "b1"}, {true, "n1"}, {false, "n1"}} {
		if again[i].Created != want.created || again[i].Transaction.UID != want.uid {
			t.Fatalf("result %d: Created %v, uid %s; want %v, %s", i, again[i].Created, again[i].Transaction.UID, want.created, want.uid)
		}
	}
	checkTx(t, "alice's key again", again[0].Transaction, alice.Transaction)
	checkTx(t, "bob's key again", again[1].Transaction, get(t, st, "b1"))
	if got := listAll(t, st, store.Filter{}); !slices.Equal(uids(got), []string{"a1", "b1", "n1"}) {
		t.Fatalf("List: %v, want [a1 b1 n1]", uids(got))
	}
}

func (s *suite) testIdempotencyWithinCall(t *testing.T) {
	st := s.fresh(t)
	res := enqueue(t, st, keyed("u1", "q", "k"), keyed("u2", "q", "k"), keyed("u3", "q", "k2"), ntx("u4", "q"))
	wantCreated := []bool{true, false, true, true}
	for i, r := range res {
		if r.Created != wantCreated[i] {
			t.Fatalf("result %d: Created = %v, want %v", i, r.Created, wantCreated[i])
		}
	}
	checkTx(t, "duplicate within the call", res[1].Transaction, res[0].Transaction)
	if got := listAll(t, st, store.Filter{}); !slices.Equal(uids(got), []string{"u1", "u3", "u4"}) {
		t.Fatalf("List: %v, want [u1 u3 u4]", uids(got))
	}
}

// testIdempotencyUIDTwice: a uid given twice in one call, once with a key
// another record holds and once without a key, is created by the item
// without one, and the keyed item answers the key's record; a uid given
// twice with one new key is created by the first and answered by the
// second.
func (s *suite) testIdempotencyUIDTwice(t *testing.T) {
	st := s.fresh(t)
	y := enqueue(t, st, keyed("y", "q", "k"))[0].Transaction
	res := enqueue(t, st, keyed("x", "q", "k"), ntx("x", "q"), keyed("z", "q", "k2"), keyed("z", "q", "k2"))
	for i, want := range []bool{false, true, true, false} {
		if res[i].Created != want {
			t.Fatalf("result %d: Created = %v, want %v", i, res[i].Created, want)
		}
	}
	checkTx(t, "the known key's item", res[0].Transaction, y)
	checkTx(t, "the item without a key", res[1].Transaction, get(t, st, "x"))
	if res[1].Transaction.IdempotencyKey != "" {
		t.Fatalf("x created with key %q, want none", res[1].Transaction.IdempotencyKey)
	}
	checkTx(t, "the repeated item", res[3].Transaction, res[2].Transaction)
	if got := listAll(t, st, store.Filter{}); !slices.Equal(uids(got), []string{"y", "x", "z"}) {
		t.Fatalf("List: %v, want [y x z]", uids(got))
	}
}

func (s *suite) testIdempotencyConcurrent(t *testing.T) {
	const (
		goroutines = 50
		keys       = 10
		rounds     = 4
	)
	st := s.fresh(t)
	type out struct {
		key string
		res store.EnqueueResult
	}
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		results []out
		errs    []error
		start   = make(chan struct{})
	)
	for g := range goroutines {
		wg.Go(func() {
			<-start
			for r := range rounds {
				key := fmt.Sprintf("key-%d", (g+r)%keys)
				uid := fmt.Sprintf("g%d-r%d", g, r)
				res, err := st.Enqueue(ctxT(t), []store.NewTransaction{keyed(uid, "q", key)})
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				} else {
					results = append(results, out{key, res[0]})
				}
				mu.Unlock()
			}
		})
	}
	close(start)
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("%d Enqueue calls failed, first: %v", len(errs), errs[0])
	}
	all := listAll(t, st, store.Filter{})
	if len(all) != keys {
		t.Fatalf("%d records, want %d: %v", len(all), keys, uids(all))
	}
	byKey := map[string]store.Transaction{}
	for _, tx := range all {
		if _, dup := byKey[tx.IdempotencyKey]; dup {
			t.Fatalf("two records with key %q", tx.IdempotencyKey)
		}
		byKey[tx.IdempotencyKey] = tx
	}
	createdPerKey := map[string]int{}
	for _, o := range results {
		rec, ok := byKey[o.key]
		if !ok {
			t.Fatalf("no record with key %q", o.key)
		}
		if o.res.Transaction.UID != rec.UID || o.res.Transaction.Seq != rec.Seq {
			t.Fatalf("key %s: result uid %s seq %d, record uid %s seq %d",
				o.key, o.res.Transaction.UID, o.res.Transaction.Seq, rec.UID, rec.Seq)
		}
		if o.res.Created {
			createdPerKey[o.key]++
		}
	}
	for k := range byKey {
		if createdPerKey[k] != 1 {
			t.Fatalf("key %s: %d results with Created = true, want 1", k, createdPerKey[k])
		}
	}
}

func (s *suite) testConcurrent(t *testing.T) {
	const (
		goroutines = 16
		calls      = 12
	)
	st := s.fresh(t)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		got   = map[string]store.Transaction{}
		first error
		start = make(chan struct{})
	)
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
		}
		mu.Unlock()
	}
	for g := range goroutines {
		wg.Go(func() {
			<-start
			ctx := ctxT(t)
			for c := range calls {
				// Calls of 1, 2 or 3 transactions, on a few queues.
				var txs []store.NewTransaction
				for i := range 1 + (g+c)%3 {
					txs = append(txs, ntx(fmt.Sprintf("g%d-c%d-%d", g, c, i), fmt.Sprintf("q%d", g%4)))
				}
				res, err := st.Enqueue(ctx, txs)
				if err != nil {
					fail(fmt.Errorf("enqueue: %w", err))
					return
				}
				for i := 1; i < len(res); i++ {
					if res[i].Transaction.Seq <= res[i-1].Transaction.Seq {
						fail(fmt.Errorf("call %v: seqs not increasing", uids([]store.Transaction{res[i-1].Transaction, res[i].Transaction})))
					}
				}
				// Every other call, finish the first transaction of the call.
				tx := res[0].Transaction
				if c%2 == 0 {
					err := st.Apply(ctx, store.Batch{
						Txs:     []store.TxUpdate{update(tx.UID, store.Done, nil, 10)},
						History: []store.HistoryEntry{{UID: tx.UID, At: at(10), From: store.Waiting, To: store.Done}},
					})
					if err != nil {
						fail(fmt.Errorf("apply: %w", err))
						return
					}
					tx.State, tx.UpdatedAt = store.Done, at(10)
				}
				mu.Lock()
				for _, r := range res[1:] {
					got[r.Transaction.UID] = r.Transaction
				}
				got[tx.UID] = tx
				mu.Unlock()
			}
		})
	}
	close(start)
	wg.Wait()
	if first != nil {
		t.Fatal(first)
	}
	all := listAll(t, st, store.Filter{})
	if len(all) != len(got) {
		t.Fatalf("List: %d records, want %d", len(all), len(got))
	}
	for i, tx := range all {
		if i > 0 && tx.Seq <= all[i-1].Seq {
			t.Fatalf("List not in Seq order at %d", i)
		}
		checkTx(t, "List vs Enqueue and Apply", tx, got[tx.UID])
	}
}

func (s *suite) testReopen(t *testing.T) {
	dir := t.TempDir()
	st := s.openAt(t, dir)
	res := enqueue(t, st, keyed("a", "q1", "ka"), ntx("b", "q2"))
	att := &store.Attempt{N: 1, Sender: "s1", Nonce: math.MaxUint64, Fee: 3, Hash: "h1", At: at(3), Outcome: "sent", Height: 9}
	apply(t, st, store.Batch{
		Txs:     []store.TxUpdate{update("a", store.Revision, att, 3)},
		Queues:  []store.Queue{{Name: "q1", State: store.Inclusion, Sender: "s1", TxUID: "a", Deadline: 12, UpdatedAt: at(3)}},
		Senders: []store.Sender{{ID: "s1", Queue: "q1", NextNonce: 8, UpdatedAt: at(3)}},
		History: []store.HistoryEntry{{UID: "a", At: at(3), From: store.Waiting, To: store.Revision, Binding: store.Inclusion}},
	})
	type snapshot struct {
		txs     []store.Transaction
		hist    []store.HistoryEntry
		queues  []store.Queue
		senders []store.Sender
		stats   store.QueueStats
	}
	snap := func(st store.Store) snapshot {
		t.Helper()
		var sn snapshot
		var err error
		sn.txs = listAll(t, st, store.Filter{})
		if sn.hist, err = st.History(ctxT(t), "a"); err != nil {
			t.Fatalf("History: %v", err)
		}
		if sn.queues, err = st.Queues(ctxT(t)); err != nil {
			t.Fatalf("Queues: %v", err)
		}
		if sn.senders, err = st.Senders(ctxT(t)); err != nil {
			t.Fatalf("Senders: %v", err)
		}
		if sn.stats, err = st.QueueStats(ctxT(t), "q1"); err != nil {
			t.Fatalf("QueueStats: %v", err)
		}
		return sn
	}
	check := func(got, want snapshot) {
		t.Helper()
		checkTxs(t, "transactions after reopen", got.txs, want.txs, false)
		checkHistory(t, got.hist, want.hist)
		checkQueues(t, got.queues, want.queues)
		checkSenders(t, got.senders, want.senders)
		if err := diffQueue(got.stats.Queue, want.stats.Queue); err != nil {
			t.Fatalf("QueueStats after reopen: %v", err)
		}
		for _, state := range []store.TxState{store.Waiting, store.Revision, store.Retry, store.Done, store.Failed} {
			if got.stats.Counts[state] != want.stats.Counts[state] {
				t.Fatalf("QueueStats after reopen: %s = %d, want %d", state, got.stats.Counts[state], want.stats.Counts[state])
			}
		}
	}
	before := snap(st)
	if len(before.txs) != 2 || len(before.txs[0].Attempts) != 1 {
		t.Fatalf("before reopen: %+v", before.txs)
	}
	if err := st.close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	st2 := s.openAt(t, dir)
	check(snap(st2), before)
	dup := enqueue(t, st2, keyed("a2", "q1", "ka"))[0]
	if dup.Created || dup.Transaction.UID != "a" {
		t.Fatalf("idempotency key after reopen: Created %v uid %s, want the existing a", dup.Created, dup.Transaction.UID)
	}
	c := enqueue(t, st2, ntx("c", "q1"))[0].Transaction
	if c.Seq <= res[1].Transaction.Seq {
		t.Fatalf("Seq after reopen %d, not greater than %d from before", c.Seq, res[1].Transaction.Seq)
	}
	before = snap(st2)
	if err := st2.close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	// A third open of an up-to-date store changes nothing.
	st3 := s.openAt(t, dir)
	check(snap(st3), before)
}
