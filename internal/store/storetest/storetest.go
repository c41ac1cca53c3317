package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
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
	opener[store.Store, *handle]
	cfg config
}

// Run runs the conformance suite against the stores that open returns.
// Subtests run in parallel, each with its own directory.
func Run(t *testing.T, open OpenFunc, opts ...Option) {
	s := &suite{opener: opener[store.Store, *handle]{open: open, wrap: func(st store.Store) *handle { return &handle{Store: st} }}}
	for _, o := range opts {
		o(&s.cfg)
	}
	runParallel(t, []subtest{
		{"EnqueueAssignsSeqAndWaiting", s.testEnqueue},
		{"EnqueueEmpty", s.testEnqueueEmpty},
		{"EnqueueRejects", s.testEnqueueRejects},
		{"IdempotencyAcrossCalls", s.testIdempotencyAcrossCalls},
		{"IdempotencyWithinCall", s.testIdempotencyWithinCall},
		{"IdempotencyUIDTwice", s.testIdempotencyUIDTwice},
		{"IdempotencyPerPrincipal", s.testIdempotencyPerPrincipal},
		{"IdempotencyConcurrent", s.testIdempotencyConcurrent},
		{"ConcurrentEnqueueAndApply", s.testConcurrent},
		{"Reopen", s.testReopen},
		{"ApplyUpdates", s.testApplyUpdates},
		{"ApplyAttemptOnly", s.testApplyAttemptOnly},
		{"StartApply", s.testStartApply},
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
		{"PruneFinished", s.testPruneFinished},
		{"Changes", s.testChanges},
	})
}

// handle is an opened store with an idempotent close.
type handle struct {
	store.Store
	closeOnce
}

func (h *handle) close() error { return h.closeStore(h.Store) }

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

// keyedBy is keyed, submitted by principal.
func keyedBy(principal, uid, queue, key string) store.NewTransaction {
	n := keyed(uid, queue, key)
	n.Principal = principal
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
