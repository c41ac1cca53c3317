// Package storetest is the conformance suite of store.Store: every
// implementation (SQLite, PostgreSQL) runs Run from its own tests and must
// pass all of it.
//
// Beyond the interface's comments, the suite pins down these behaviours:
//   - times round-trip to the nanosecond and come back in UTC; a zero time
//     given for an optional field (Attempt.At, Queue.DelayUntil, …) comes
//     back zero;
//   - uint64 fields round-trip over their whole range;
//   - Data and Result round-trip as equal JSON; an empty one comes back empty;
//   - Enqueue writes one history entry per created transaction ("" →
//     WAITING, at the transaction's At); a duplicate idempotency key writes
//     none;
//   - Enqueue refuses an empty UID or Queue, and a UID already in the store
//     (without a matching idempotency key): the whole call fails, nothing of
//     it is written;
//   - Apply refuses a TxUpdate of an unknown uid with an error wrapping
//     store.ErrNotFound, and any other invalid part (bad state, history of an
//     unknown uid, a queue bound to an unknown transaction) with an error;
//     either way nothing of the batch is written;
//   - Attempts come ordered by N; Waiting, List and Active in Seq order;
//     WaitingQueues, Queues and Senders in ascending order of name/id;
//   - List and Waiting: a Limit of 0 or less means 100, more than 1000 means
//     1000;
//   - QueueStats of a name with neither a transaction nor a binding is
//     store.ErrNotFound; of a queue with only a binding, all counts zero;
//   - an Enqueue whose ctx is already done returns ctx.Err() and writes
//     nothing; one whose ctx ends while it waits for the store returns
//     ctx.Err() promptly (WithBlocker);
//   - calls after Close return an error, they do not hang.
package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/store"
)

// OpenFunc opens the store kept in dir (an empty directory the first time).
// The suite calls it again with the same dir to check that records survive a
// close and a reopen. The suite closes every store it opens.
type OpenFunc func(t *testing.T, dir string) store.Store

// Option configures Run.
type Option func(*config)

type config struct {
	blocker func(t *testing.T, dir string) (release func())
}

// WithBlocker gives the suite a way to make the store's writes wait: block
// takes, from outside the store, the lock its writes need (for SQLite, a
// second connection holding BEGIN IMMEDIATE; for PostgreSQL, a session
// holding LOCK TABLE transactions IN EXCLUSIVE MODE) and returns a function
// that releases it. The store must wait for the lock, without failing, for
// longer than a few seconds. With it the suite checks that an Enqueue stuck
// behind the lock returns promptly with ctx.Err() when its ctx ends.
func WithBlocker(block func(t *testing.T, dir string) (release func())) Option {
	return func(c *config) { c.blocker = block }
}

type suite struct {
	open OpenFunc
	cfg  config
}

// Run runs the conformance suite against the stores that open returns.
// Subtests run in parallel, each with its own directory.
func Run(t *testing.T, open OpenFunc, opts ...Option) {
	s := &suite{open: open}
	for _, o := range opts {
		o(&s.cfg)
	}
	tests := []struct {
		name string
		f    func(t *testing.T)
	}{
		{"EnqueueAssignsSeqAndWaiting", s.testEnqueue},
		{"EnqueueEmpty", s.testEnqueueEmpty},
		{"EnqueueRejects", s.testEnqueueRejects},
		{"IdempotencyAcrossCalls", s.testIdempotencyAcrossCalls},
		{"IdempotencyWithinCall", s.testIdempotencyWithinCall},
		{"IdempotencyConcurrent", s.testIdempotencyConcurrent},
		{"ConcurrentEnqueueAndApply", s.testConcurrent},
		{"Reopen", s.testReopen},
		{"ApplyUpdates", s.testApplyUpdates},
		{"ApplyAtomic", s.testApplyAtomic},
		{"ApplyEmpty", s.testApplyEmpty},
		{"AttemptsUpsert", s.testAttemptsUpsert},
		{"HistoryOrder", s.testHistoryOrder},
		{"ListFilters", s.testListFilters},
		{"ListPaging", s.testListPaging},
		{"ListLimits", s.testListLimits},
		{"Waiting", s.testWaiting},
		{"Active", s.testActive},
		{"WaitingQueues", s.testWaitingQueues},
		{"QueuesAndStats", s.testQueuesAndStats},
		{"Senders", s.testSenders},
		{"NotFound", s.testNotFound},
		{"CancelBeforeEnqueue", s.testCancelBefore},
		{"CancelBlockedEnqueue", s.testCancelBlocked},
		{"Closed", s.testClosed},
		{"NotifierOrder", s.testNotifierOrder},
		{"PendingHooks", s.testPendingHooks},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.f(t)
		})
	}
}

// handle is an opened store with an idempotent close.
type handle struct {
	store.Store
	once sync.Once
	err  error
}

func (h *handle) close() error {
	h.once.Do(func() { h.err = h.Store.Close() })
	return h.err
}

// openAt opens the store in dir and closes it when the test ends.
func (s *suite) openAt(t *testing.T, dir string) *handle {
	t.Helper()
	st := s.open(t, dir)
	if st == nil {
		t.Fatalf("open(%s) returned nil", dir)
	}
	h := &handle{Store: st}
	t.Cleanup(func() {
		if err := h.close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return h
}

func (s *suite) fresh(t *testing.T) *handle {
	t.Helper()
	return s.openAt(t, t.TempDir())
}

// Fixtures.

// t0 has a nanosecond part and is not UTC, to check both round-trip.
var t0 = time.Date(2025, 3, 1, 12, 0, 0, 123456789, time.FixedZone("X", 3*3600))

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

func ntx(uid, queue string) store.NewTransaction {
	return store.NewTransaction{
		UID:   uid,
		Queue: queue,
		Type:  "SEND_CLAIM_VOTE",
		Data:  json.RawMessage(fmt.Sprintf(`{"uid":%q,"n":[1,2,3]}`, uid)),
		At:    t0,
	}
}

func keyed(uid, queue, key string) store.NewTransaction {
	n := ntx(uid, queue)
	n.IdempotencyKey = key
	return n
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func enqueue(t *testing.T, st store.Store, txs ...store.NewTransaction) []store.EnqueueResult {
	t.Helper()
	res, err := st.Enqueue(ctxT(t), txs)
	if err != nil {
		t.Fatalf("Enqueue: %v", err)
	}
	if len(res) != len(txs) {
		t.Fatalf("Enqueue returned %d results for %d transactions", len(res), len(txs))
	}
	return res
}

func apply(t *testing.T, st store.Store, b store.Batch) {
	t.Helper()
	if err := st.Apply(ctxT(t), b); err != nil {
		t.Fatalf("Apply: %v", err)
	}
}

func get(t *testing.T, st store.Store, uid string) store.Transaction {
	t.Helper()
	tx, err := st.Get(ctxT(t), uid)
	if err != nil {
		t.Fatalf("Get(%s): %v", uid, err)
	}
	return tx
}

func listAll(t *testing.T, st store.Store, f store.Filter) []store.Transaction {
	t.Helper()
	var all []store.Transaction
	f.Limit = 1000
	for {
		page, err := st.List(ctxT(t), f)
		if err != nil {
			t.Fatalf("List(%+v): %v", f, err)
		}
		all = append(all, page...)
		if len(page) < f.Limit {
			return all
		}
		f.After = page[len(page)-1].Seq
	}
}

func wantNotFound(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("%s: err = %v, want one wrapping store.ErrNotFound", what, err)
	}
}

// update moves a transaction to state, optionally with an attempt.
func update(uid string, state store.TxState, a *store.Attempt, ms int) store.TxUpdate {
	return store.TxUpdate{UID: uid, State: state, Attempt: a, At: at(ms)}
}

// Comparisons.

func jsonEqual(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	return reflect.DeepEqual(x, y)
}

func timeEqual(got, want time.Time) error {
	if want.IsZero() {
		if !got.IsZero() {
			return fmt.Errorf("%v, want zero", got)
		}
		return nil
	}
	if !got.Equal(want) {
		return fmt.Errorf("%v, want %v", got, want)
	}
	if got.Location() != time.UTC {
		return fmt.Errorf("%v not in UTC", got)
	}
	return nil
}

func diffAttempts(got, want []store.Attempt) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d attempts %+v, want %d %+v", len(got), got, len(want), want)
	}
	for i := range got {
		g, w := got[i], want[i]
		if err := timeEqual(g.At, w.At); err != nil {
			return fmt.Errorf("attempt %d: At %w", i, err)
		}
		g.At, w.At = time.Time{}, time.Time{}
		if g != w {
			return fmt.Errorf("attempt %d: %+v, want %+v", i, g, w)
		}
	}
	return nil
}

// diffTx compares two transactions; attempts too unless skipAttempts.
func diffTx(got, want store.Transaction, skipAttempts bool) error {
	switch {
	case got.UID != want.UID:
		return fmt.Errorf("UID %q, want %q", got.UID, want.UID)
	case got.Queue != want.Queue:
		return fmt.Errorf("%s: Queue %q, want %q", got.UID, got.Queue, want.Queue)
	case got.Type != want.Type:
		return fmt.Errorf("%s: Type %q, want %q", got.UID, got.Type, want.Type)
	case !jsonEqual(got.Data, want.Data):
		return fmt.Errorf("%s: Data %s, want %s", got.UID, got.Data, want.Data)
	case got.State != want.State:
		return fmt.Errorf("%s: State %s, want %s", got.UID, got.State, want.State)
	case got.Retries != want.Retries:
		return fmt.Errorf("%s: Retries %d, want %d", got.UID, got.Retries, want.Retries)
	case got.IdempotencyKey != want.IdempotencyKey:
		return fmt.Errorf("%s: IdempotencyKey %q, want %q", got.UID, got.IdempotencyKey, want.IdempotencyKey)
	case got.Seq != want.Seq:
		return fmt.Errorf("%s: Seq %d, want %d", got.UID, got.Seq, want.Seq)
	case !jsonEqual(got.Result, want.Result):
		return fmt.Errorf("%s: Result %s, want %s", got.UID, got.Result, want.Result)
	case got.Error != want.Error:
		return fmt.Errorf("%s: Error %q, want %q", got.UID, got.Error, want.Error)
	}
	if err := timeEqual(got.CreatedAt, want.CreatedAt); err != nil {
		return fmt.Errorf("%s: CreatedAt %w", got.UID, err)
	}
	if err := timeEqual(got.UpdatedAt, want.UpdatedAt); err != nil {
		return fmt.Errorf("%s: UpdatedAt %w", got.UID, err)
	}
	if !skipAttempts {
		if err := diffAttempts(got.Attempts, want.Attempts); err != nil {
			return fmt.Errorf("%s: %w", got.UID, err)
		}
	}
	return nil
}

func checkTx(t *testing.T, what string, got, want store.Transaction) {
	t.Helper()
	if err := diffTx(got, want, false); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func checkTxs(t *testing.T, what string, got, want []store.Transaction, skipAttempts bool) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d transactions %v, want %d %v", what, len(got), uids(got), len(want), uids(want))
	}
	for i := range got {
		if err := diffTx(got[i], want[i], skipAttempts); err != nil {
			t.Fatalf("%s: [%d]: %v", what, i, err)
		}
	}
}

func uids(txs []store.Transaction) []string {
	out := make([]string, len(txs))
	for i, tx := range txs {
		out[i] = tx.UID
	}
	return out
}

func diffQueue(got, want store.Queue) error {
	if err := timeEqual(got.DelayUntil, want.DelayUntil); err != nil {
		return fmt.Errorf("queue %s: DelayUntil %w", got.Name, err)
	}
	if err := timeEqual(got.UpdatedAt, want.UpdatedAt); err != nil {
		return fmt.Errorf("queue %s: UpdatedAt %w", got.Name, err)
	}
	got.DelayUntil, want.DelayUntil = time.Time{}, time.Time{}
	got.UpdatedAt, want.UpdatedAt = time.Time{}, time.Time{}
	if got != want {
		return fmt.Errorf("queue %+v, want %+v", got, want)
	}
	return nil
}

func checkQueues(t *testing.T, got, want []store.Queue) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("Queues: %+v, want %+v", got, want)
	}
	for i := range got {
		if err := diffQueue(got[i], want[i]); err != nil {
			t.Fatalf("Queues[%d]: %v", i, err)
		}
	}
}

func checkSenders(t *testing.T, got, want []store.Sender) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("Senders: %+v, want %+v", got, want)
	}
	for i := range got {
		g, w := got[i], want[i]
		if err := timeEqual(g.UpdatedAt, w.UpdatedAt); err != nil {
			t.Fatalf("Senders[%d]: UpdatedAt %v", i, err)
		}
		g.UpdatedAt, w.UpdatedAt = time.Time{}, time.Time{}
		if g != w {
			t.Fatalf("Senders[%d]: %+v, want %+v", i, g, w)
		}
	}
}

func checkHistory(t *testing.T, got, want []store.HistoryEntry) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("History: %d entries %+v, want %d %+v", len(got), got, len(want), want)
	}
	for i := range got {
		g, w := got[i], want[i]
		if err := timeEqual(g.At, w.At); err != nil {
			t.Fatalf("History[%d]: At %v", i, err)
		}
		g.At, w.At = time.Time{}, time.Time{}
		if g != w {
			t.Fatalf("History[%d]: %+v, want %+v", i, g, w)
		}
	}
}

// created is the record Enqueue must make of n with sequence seq.
func created(n store.NewTransaction, seq int64) store.Transaction {
	return store.Transaction{
		UID: n.UID, Queue: n.Queue, Type: n.Type, Data: n.Data, State: store.Waiting,
		IdempotencyKey: n.IdempotencyKey, Seq: seq, CreatedAt: n.At, UpdatedAt: n.At,
	}
}

func enqueuedEntry(n store.NewTransaction) store.HistoryEntry {
	return store.HistoryEntry{UID: n.UID, At: n.At, To: store.Waiting}
}

// withNote accepts whatever note the implementation writes on the creation
// entry.
func withNote(h store.HistoryEntry, got []store.HistoryEntry) store.HistoryEntry {
	if len(got) > 0 {
		h.Note = got[0].Note
	}
	return h
}

// The tests.

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
	a2 := store.Attempt{N: 2, Sender: "s2", Nonce: 5, Fee: 20, At: at(2), Outcome: "sent"}
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
	a2b := store.Attempt{N: 2, Sender: "s2", Nonce: math.MaxUint64, Fee: math.MaxUint64 - 1, Hash: "0xabc",
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

func (s *suite) testCancelBefore(t *testing.T) {
	st := s.fresh(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := st.Enqueue(ctx, []store.NewTransaction{ntx("a", "q")})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Enqueue with a cancelled ctx: err = %v, want context.Canceled", err)
	}
	_, err = st.Get(ctxT(t), "a")
	wantNotFound(t, "Get after a cancelled Enqueue", err)
}

func (s *suite) testCancelBlocked(t *testing.T) {
	if s.cfg.blocker == nil {
		t.Skip("no WithBlocker option")
	}
	dir := t.TempDir()
	st := s.openAt(t, dir)
	enqueue(t, st, ntx("before", "q"))
	release := s.cfg.blocker(t, dir)
	released := false
	defer func() {
		if !released {
			release()
		}
	}()

	const wait = 200 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	start := time.Now()
	_, err := st.Enqueue(ctx, []store.NewTransaction{keyed("blocked", "q", "kb")})
	elapsed := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("blocked Enqueue: err = %v, want context.DeadlineExceeded", err)
	}
	if elapsed > wait+2*time.Second {
		t.Fatalf("blocked Enqueue returned %v after its deadline", elapsed-wait)
	}
	release()
	released = true

	// The store recovers: a new call commits, and a retry of the abandoned
	// one with its key yields one record, whether or not it had committed.
	enqueue(t, st, ntx("after", "q"))
	r := enqueue(t, st, keyed("blocked-retry", "q", "kb"))[0]
	if r.Transaction.State != store.Waiting {
		t.Fatalf("retried transaction: %+v", r.Transaction)
	}
	all := listAll(t, st, store.Filter{})
	if len(all) != 3 {
		t.Fatalf("after the retry: %v, want 3 records", uids(all))
	}
}

func (s *suite) testClosed(t *testing.T) {
	st := s.fresh(t)
	enqueue(t, st, ntx("a", "q"))
	if err := st.close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := st.Enqueue(ctxT(t), []store.NewTransaction{ntx("b", "q")}); err == nil {
		t.Fatal("Enqueue after Close succeeded")
	}
	if err := st.Apply(ctxT(t), store.Batch{Txs: []store.TxUpdate{update("a", store.Done, nil, 1)}}); err == nil {
		t.Fatal("Apply after Close succeeded")
	}
	if _, err := st.Get(ctxT(t), "a"); err == nil {
		t.Fatal("Get after Close succeeded")
	}
}

// testNotifierOrder: a store that implements store.Notifier reports every
// created transaction exactly once, in strictly increasing Seq, however
// many callers enqueue at once; known idempotency keys are not reported.
func (s *suite) testNotifierOrder(t *testing.T) {
	h := s.fresh(t)
	nt, ok := h.Store.(store.Notifier)
	if !ok {
		t.Skip("store does not implement store.Notifier")
	}
	var mu sync.Mutex
	var seen []int64
	nt.SetOnEnqueued(func(txs []store.Transaction) {
		mu.Lock()
		defer mu.Unlock()
		for _, tx := range txs {
			seen = append(seen, tx.Seq)
		}
	})
	const workers, each = 16, 25
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				n := keyed(fmt.Sprintf("n-%d-%d", w, i), fmt.Sprintf("q%d", i%3), fmt.Sprintf("k-%d-%d", w, i%20))
				if _, err := h.Enqueue(ctxT(t), []store.NewTransaction{n}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	all := listAll(t, h.Store, store.Filter{})
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != len(all) {
		t.Fatalf("notified %d transactions, store holds %d", len(seen), len(all))
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] <= seen[i-1] {
			t.Fatalf("notification %d has seq %d after %d", i, seen[i], seen[i-1])
		}
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
	got, err := h.PendingHooks(ctxT(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	if u := uids(got); len(u) != 2 || u[0] != "h1" || u[1] != "h2" {
		t.Fatalf("pending hooks %v, want [h1 h2]", u)
	}
	if len(got[0].Attempts) != 1 || got[0].Attempts[0].Hash != "x" {
		t.Fatalf("attempts %+v", got[0].Attempts)
	}
	got, err = h.PendingHooks(ctxT(t), 1)
	if err != nil || len(got) != 1 {
		t.Fatalf("limit 1: %d, %v", len(got), err)
	}
}
