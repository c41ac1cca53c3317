package storetest

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/store"
)

// DistseqOpenFunc opens an empty store.DistseqStore. The suite opens one
// per subtest; the open function closes it when the test ends (t.Cleanup),
// if it needs closing.
type DistseqOpenFunc func(t *testing.T) store.DistseqStore

// RunDistseq runs the conformance suite of store.DistseqStore against the
// stores that open returns. Subtests run in parallel, each on its own
// store.
//
// Beyond the interface's comments, it pins down:
//   - every field round-trips; times to the nanosecond and in UTC, a zero
//     time comes back zero; Height and the cursor over the whole uint64
//     range; an empty payload comes back nil;
//   - a batch is all or none: an intent whose idempotency key another TxID
//     holds, in the store or earlier in the batch, fails the batch with an
//     error wrapping store.ErrDuplicateKey and leaves nothing of it; a TxID
//     may rewrite its own record with its key, and a key a TxID gave up
//     may go to another TxID (even later in the same batch);
//   - a batch DistseqBatch.Validate refuses fails, writing nothing;
//   - intents, dispatches and distributions are upserted whole, the later
//     record of a key winning, in the same batch or a later one; a group is
//     replaced whole, its members in the order given; a state written again
//     changes only Spent and SpentBy;
//   - the lists' filters and orders, ties broken by the id; DistseqIntents:
//     a Limit of 0 or less means 100, more than 1000 means 1000;
//   - lists and a group's Members are never nil;
//   - received ids deduplicate; the cursor is absent until written, and a
//     batch without one leaves it;
//   - values are copies: changing a batch after it was applied, or a value
//     returned, changes nothing stored;
//   - unknown keys (and the empty idempotency key) wrap store.ErrNotFound;
//   - concurrent batches all land; of concurrent intents taking one key,
//     exactly one wins;
//   - a batch whose ctx is already done fails and writes nothing.
func RunDistseq(t *testing.T, open DistseqOpenFunc) {
	runParallel(t, []subtest{
		{"RoundTrip", func(t *testing.T) { distseqRoundTrip(t, open(t)) }},
		{"Upsert", func(t *testing.T) { distseqUpsert(t, open(t)) }},
		{"DuplicateKey", func(t *testing.T) { distseqDuplicateKey(t, open(t)) }},
		{"KeyHandover", func(t *testing.T) { distseqKeyHandover(t, open(t)) }},
		{"Refused", func(t *testing.T) { distseqRefused(t, open(t)) }},
		{"Empty", func(t *testing.T) { distseqEmpty(t, open(t)) }},
		{"Intents", func(t *testing.T) { distseqIntents(t, open(t)) }},
		{"IntentPrepared", func(t *testing.T) { distseqIntentPrepared(t, open(t)) }},
		{"IntentGranted", func(t *testing.T) { distseqIntentGranted(t, open(t)) }},
		{"StatesByID", func(t *testing.T) { distseqStatesByID(t, open(t)) }},
		{"StatesCreatedBy", func(t *testing.T) { distseqStatesCreatedBy(t, open(t)) }},
		{"IntentsLimits", func(t *testing.T) { distseqIntentsLimits(t, open(t)) }},
		{"OpenDispatches", func(t *testing.T) { distseqOpenDispatches(t, open(t)) }},
		{"PendingOutbox", func(t *testing.T) { distseqPendingOutbox(t, open(t)) }},
		{"States", func(t *testing.T) { distseqStates(t, open(t)) }},
		{"Received", func(t *testing.T) { distseqReceived(t, open(t)) }},
		{"Cursor", func(t *testing.T) { distseqCursor(t, open(t)) }},
		{"Groups", func(t *testing.T) { distseqGroups(t, open(t)) }},
		{"Copies", func(t *testing.T) { distseqCopies(t, open(t)) }},
		{"NotFound", func(t *testing.T) { distseqNotFound(t, open(t)) }},
		{"Concurrent", func(t *testing.T) { distseqConcurrent(t, open(t)) }},
		{"ConcurrentKey", func(t *testing.T) { distseqConcurrentKey(t, open(t)) }},
		{"Cancelled", func(t *testing.T) { distseqCancelled(t, open(t)) }},
	})
}

// dsTime is the n-th second of the fixtures' clock, with nanoseconds.
func dsTime(n int) time.Time {
	return time.Unix(1_800_000_000+int64(n), 123_456_789).UTC()
}

func dsIntent(tx, contract, key, status string, at int) store.DistseqIntent {
	return store.DistseqIntent{TxID: tx, Contract: contract, IdempotencyKey: key, Payload: []byte("intent " + tx),
		Status: status, Attempts: 1, CreatedAt: dsTime(at), UpdatedAt: dsTime(at + 1)}
}

func dsDispatch(tx, status string, at int) store.DistseqDispatch {
	return store.DistseqDispatch{TxID: tx, Contract: "c1", Sender: "node-a", DelegationID: "del-" + tx,
		Payload: []byte("prepared " + tx), Height: 7, Status: status, CreatedAt: dsTime(at), UpdatedAt: dsTime(at)}
}

func dsDist(id string, acked bool, at int) store.DistseqDistribution {
	return store.DistseqDistribution{ID: id, Contract: "c1", To: "node-b", Payload: []byte("dist " + id),
		Acked: acked, CreatedAt: dsTime(at), UpdatedAt: dsTime(at)}
}

func dsState(contract, id string, height uint64) store.DistseqState {
	return store.DistseqState{Contract: contract, ID: id, Data: []byte("data " + id), CreatedBy: "tx-" + id, Height: height}
}

func dsGroup(contract string, members ...string) store.DistseqGroup {
	g := store.DistseqGroup{Contract: contract, Threshold: len(members), Height: 3, Members: []store.DistseqMember{}}
	for _, m := range members {
		g.Members = append(g.Members, store.DistseqMember{ID: m, PublicKey: "pk-" + m})
	}
	return g
}

func u64(v uint64) *uint64 { return &v }

func dsApply(t *testing.T, st store.DistseqStore, b store.DistseqBatch) {
	t.Helper()
	if err := st.ApplyDistseq(context.Background(), b); err != nil {
		t.Fatalf("ApplyDistseq: %v", err)
	}
}

// dsView is everything a store shows, for the contracts and received ids
// a test names: what an all-or-none check compares.
type dsView struct {
	Groups    []store.DistseqGroup
	Intents   []store.DistseqIntent
	Open      []store.DistseqDispatch
	Pending   []store.DistseqDistribution
	States    map[string][]store.DistseqState
	Received  map[string]bool
	Cursor    uint64
	HasCursor bool
}

func dsSnap(t *testing.T, st store.DistseqStore, contracts, received []string) dsView {
	t.Helper()
	ctx := context.Background()
	var v dsView
	var err error
	if v.Groups, err = st.DistseqGroups(ctx); err != nil {
		t.Fatal(err)
	}
	if v.Intents, err = st.DistseqIntents(ctx, store.DistseqIntentFilter{Limit: 1000}); err != nil {
		t.Fatal(err)
	}
	if v.Open, err = st.DistseqOpenDispatches(ctx); err != nil {
		t.Fatal(err)
	}
	if v.Pending, err = st.DistseqPendingOutbox(ctx); err != nil {
		t.Fatal(err)
	}
	v.States = map[string][]store.DistseqState{}
	for _, c := range contracts {
		if v.States[c], err = st.DistseqStates(ctx, c, false); err != nil {
			t.Fatal(err)
		}
	}
	v.Received = map[string]bool{}
	for _, id := range received {
		if v.Received[id], err = st.DistseqReceived(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if v.Cursor, v.HasCursor, err = st.DistseqCursor(ctx); err != nil {
		t.Fatal(err)
	}
	return v
}

func dsSame(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got  %+v\n want %+v", what, got, want)
	}
}

func dsGetIntent(t *testing.T, st store.DistseqStore, tx string) store.DistseqIntent {
	t.Helper()
	in, err := st.DistseqIntent(context.Background(), tx)
	if err != nil {
		t.Fatalf("DistseqIntent(%s): %v", tx, err)
	}
	return in
}

func dsGetGroup(t *testing.T, st store.DistseqStore, c string) store.DistseqGroup {
	t.Helper()
	g, err := st.DistseqGroup(context.Background(), c)
	if err != nil {
		t.Fatalf("DistseqGroup(%s): %v", c, err)
	}
	return g
}

func dsGetStates(t *testing.T, st store.DistseqStore, c string, unspent bool) []store.DistseqState {
	t.Helper()
	out, err := st.DistseqStates(context.Background(), c, unspent)
	if err != nil {
		t.Fatalf("DistseqStates(%s, %v): %v", c, unspent, err)
	}
	if out == nil {
		t.Errorf("DistseqStates(%s, %v) is nil, want a list", c, unspent)
	}
	return out
}

func dsIDs[T any](xs []T, id func(T) string) []string {
	out := []string{}
	for _, x := range xs {
		out = append(out, id(x))
	}
	return out
}

func intentID(in store.DistseqIntent) string    { return in.TxID }
func stateID(s store.DistseqState) string       { return s.ID }
func dispatchID(d store.DistseqDispatch) string { return d.TxID }
func distID(d store.DistseqDistribution) string { return d.ID }
func groupID(g store.DistseqGroup) string       { return g.Contract }
func memberID(m store.DistseqMember) string     { return m.ID }
func dsName(format string, a ...any) string     { return fmt.Sprintf(format, a...) }

// distseqIntentPrepared: an external-submission intent keeps its flag and,
// once written, its prepared transaction, read by id, by key and in lists.
func distseqIntentPrepared(t *testing.T, st store.DistseqStore) {
	ctx := context.Background()
	in := dsIntent("tx1", "c1", "k1", store.DistseqPending, 1)
	in.Prepare = true
	dsApply(t, st, store.DistseqBatch{Intents: []store.DistseqIntent{in}})
	got, err := st.DistseqIntent(ctx, "tx1")
	if err != nil {
		t.Fatal(err)
	}
	dsSame(t, "a prepare intent before its prepared transaction", got, in)
	in.Prepared = []byte(`{"txId":"tx1"}`)
	in.UpdatedAt = dsTime(2)
	dsApply(t, st, store.DistseqBatch{Intents: []store.DistseqIntent{in}})
	if got, err = st.DistseqIntentByKey(ctx, "k1"); err != nil {
		t.Fatal(err)
	}
	dsSame(t, "the prepared transaction, by key", got, in)
	list, err := st.DistseqIntents(ctx, store.DistseqIntentFilter{Status: store.DistseqPending})
	if err != nil || len(list) != 1 {
		t.Fatalf("DistseqIntents: %v, %v", list, err)
	}
	dsSame(t, "the prepared transaction, listed", list[0], in)
}

// distseqIntentGranted: the spend sets of an intent's granted dispatches
// are kept in order, read by id, by key and in lists, and a later write
// without them clears them.
func distseqIntentGranted(t *testing.T, st store.DistseqStore) {
	ctx := context.Background()
	in := dsIntent("tx1", "c1", "k1", store.DistseqPending, 1)
	in.Granted = []store.DistseqGrant{{Spends: []string{"s1", "s2"}, Creators: map[string]string{"s2": "tx7"}}, {Spends: []string{"s3"}}}
	dsApply(t, st, store.DistseqBatch{Intents: []store.DistseqIntent{in}})
	got, err := st.DistseqIntent(ctx, "tx1")
	if err != nil {
		t.Fatal(err)
	}
	dsSame(t, "the granted spends, by id", got, in)
	if got, err = st.DistseqIntentByKey(ctx, "k1"); err != nil {
		t.Fatal(err)
	}
	dsSame(t, "the granted spends, by key", got, in)
	in.Granted, in.UpdatedAt = nil, dsTime(2)
	dsApply(t, st, store.DistseqBatch{Intents: []store.DistseqIntent{in}})
	list, err := st.DistseqIntents(ctx, store.DistseqIntentFilter{Status: store.DistseqPending})
	if err != nil || len(list) != 1 {
		t.Fatalf("DistseqIntents: %v, %v", list, err)
	}
	dsSame(t, "no granted spends left, listed", list[0], in)
}

// distseqStatesByID: the states named, spent or not, in ID order; ids the
// store lacks or another contract holds are left out.
func distseqStatesByID(t *testing.T, st store.DistseqStore) {
	ctx := context.Background()
	s1, s2, s3 := dsState("c1", "s1", 1), dsState("c1", "s2", 2), dsState("c2", "s3", 3)
	dsApply(t, st, store.DistseqBatch{States: []store.DistseqState{s1, s2, s3}})
	spent := store.DistseqState{Contract: "c1", ID: "s2", Spent: true, SpentBy: "tx9", Height: 4}
	dsApply(t, st, store.DistseqBatch{States: []store.DistseqState{spent}})
	s2.Spent, s2.SpentBy = true, "tx9"
	got, err := st.DistseqStatesByID(ctx, "c1", []string{"s3", "s2", "nope", "s1"})
	if err != nil {
		t.Fatal(err)
	}
	dsSame(t, "states by id", got, []store.DistseqState{s1, s2})
	if got, err = st.DistseqStatesByID(ctx, "c1", nil); err != nil || len(got) != 0 {
		t.Fatalf("no ids: %v, %v", got, err)
	}
}

// distseqStatesCreatedBy: the states the transactions named created, spent
// or not, in ID order; other transactions' and other contracts' are left
// out.
func distseqStatesCreatedBy(t *testing.T, st store.DistseqStore) {
	ctx := context.Background()
	s1, s2, s3, s4 := dsState("c1", "s1", 1), dsState("c1", "s2", 2), dsState("c2", "s3", 3), dsState("c1", "s4", 4)
	s4.CreatedBy = s1.CreatedBy
	dsApply(t, st, store.DistseqBatch{States: []store.DistseqState{s4, s1, s2, s3}})
	spent := store.DistseqState{Contract: "c1", ID: "s4", Spent: true, SpentBy: "tx9", Height: 5}
	dsApply(t, st, store.DistseqBatch{States: []store.DistseqState{spent}})
	s4.Spent, s4.SpentBy = true, "tx9"
	got, err := st.DistseqStatesCreatedBy(ctx, "c1", []string{s1.CreatedBy, s3.CreatedBy, "nope"})
	if err != nil {
		t.Fatal(err)
	}
	dsSame(t, "states created by", got, []store.DistseqState{s1, s4})
	if got, err = st.DistseqStatesCreatedBy(ctx, "c1", nil); err != nil || len(got) != 0 {
		t.Fatalf("no creators: %v, %v", got, err)
	}
}
