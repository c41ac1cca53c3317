package storetest

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/ordolabs/ordo/internal/store"
)

func distseqIntents(t *testing.T, st store.DistseqStore) {
	ctx := context.Background()
	var all []store.DistseqIntent
	statuses := []string{store.DistseqPending, store.DistseqConfirmed, store.DistseqReverted}
	contracts := []string{"c1", "c2", "c3"}
	// Times repeat (ties go by TxID) and run against the TxIDs' order.
	for i := range 30 {
		all = append(all, dsIntent(dsName("tx%02d", i), contracts[i%3], "", statuses[(i/3)%3], (40-i)/4))
	}
	// Written in an order neither of the two.
	perm := rand.New(rand.NewPCG(3, 5)).Perm(len(all))
	var b store.DistseqBatch
	for _, i := range perm {
		b.Intents = append(b.Intents, all[i])
	}
	dsApply(t, st, b)
	slices.SortFunc(all, func(a, b store.DistseqIntent) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.TxID, b.TxID))
	})
	for _, f := range []store.DistseqIntentFilter{
		{}, {Limit: 7}, {Status: store.DistseqPending}, {Status: store.DistseqReverted, Limit: 2},
		{Contract: "c2"}, {Contract: "c3", Limit: 3}, {Contract: "c1", Status: store.DistseqConfirmed},
		{Contract: "nope"}, {Status: store.DistseqConfirmed, Contract: "c2", Limit: 1},
	} {
		want := []store.DistseqIntent{}
		for _, in := range all {
			if (f.Status == "" || in.Status == f.Status) && (f.Contract == "" || in.Contract == f.Contract) {
				want = append(want, in)
			}
		}
		if f.Limit > 0 && len(want) > f.Limit {
			want = want[:f.Limit]
		}
		got, err := st.DistseqIntents(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		if got == nil {
			t.Errorf("%+v: nil list", f)
		}
		dsSame(t, dsName("DistseqIntents(%+v) ids", f), dsIDs(got, intentID), dsIDs(want, intentID))
		if len(got) == len(want) && len(got) > 0 {
			dsSame(t, dsName("DistseqIntents(%+v)[0]", f), got[0], want[0])
		}
	}
}

func distseqIntentsLimits(t *testing.T, st store.DistseqStore) {
	ctx := context.Background()
	var b store.DistseqBatch
	for i := range 1005 {
		b.Intents = append(b.Intents, dsIntent(dsName("tx%04d", i), "c1", "", store.DistseqPending, i))
	}
	dsApply(t, st, b)
	for _, tc := range []struct{ limit, want int }{{0, 100}, {-1, 100}, {1, 1}, {1000, 1000}, {5000, 1000}} {
		got, err := st.DistseqIntents(ctx, store.DistseqIntentFilter{Limit: tc.limit})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != tc.want || got[0].TxID != "tx0000" {
			t.Errorf("Limit %d: %d intents from %s, want %d from tx0000", tc.limit, len(got), got[0].TxID, tc.want)
		}
	}
}

func distseqOpenDispatches(t *testing.T, st store.DistseqStore) {
	ctx := context.Background()
	dsApply(t, st, store.DistseqBatch{Dispatches: []store.DistseqDispatch{
		dsDispatch("tx5", store.DistseqDispatched, 1), dsDispatch("tx4", store.DistseqDispatched, 1),
		dsDispatch("tx3", store.DistseqConfirmed, 0), dsDispatch("tx2", store.DistseqReverted, 0),
		dsDispatch("tx1", store.DistseqDispatched, 2), dsDispatch("tx0", store.DistseqDispatched, 0),
	}})
	got, err := st.DistseqOpenDispatches(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dsSame(t, "open dispatches", dsIDs(got, dispatchID), []string{"tx0", "tx4", "tx5", "tx1"})
}

func distseqPendingOutbox(t *testing.T, st store.DistseqStore) {
	ctx := context.Background()
	dsApply(t, st, store.DistseqBatch{Outbox: []store.DistseqDistribution{
		dsDist("d5", false, 1), dsDist("d4", false, 1), dsDist("d3", true, 0), dsDist("d1", false, 2), dsDist("d0", false, 0),
	}})
	got, err := st.DistseqPendingOutbox(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dsSame(t, "pending outbox", dsIDs(got, distID), []string{"d0", "d4", "d5", "d1"})
	dsApply(t, st, store.DistseqBatch{Outbox: []store.DistseqDistribution{dsDist("d4", true, 1)}})
	got, _ = st.DistseqPendingOutbox(ctx)
	dsSame(t, "pending outbox after an ack", dsIDs(got, distID), []string{"d0", "d5", "d1"})
}

func distseqStates(t *testing.T, st store.DistseqStore) {
	spent := func(s store.DistseqState) store.DistseqState { s.Spent, s.SpentBy = true, "tx-x"; return s }
	dsApply(t, st, store.DistseqBatch{States: []store.DistseqState{
		dsState("c1", "b", 2), dsState("c1", "a", 2), spent(dsState("c1", "c", 1)), dsState("c1", "z", 0),
		spent(dsState("c1", "y", 3)), dsState("c2", "a", 0),
	}})
	dsSame(t, "all states", dsIDs(dsGetStates(t, st, "c1", false), stateID), []string{"z", "c", "a", "b", "y"})
	dsSame(t, "unspent states", dsIDs(dsGetStates(t, st, "c1", true), stateID), []string{"z", "a", "b"})
	dsSame(t, "other contract", dsIDs(dsGetStates(t, st, "c2", true), stateID), []string{"a"})
	dsSame(t, "unknown contract", dsIDs(dsGetStates(t, st, "c3", false), stateID), []string{})
	// Spending one leaves the unspent list; its data stays.
	dsApply(t, st, store.DistseqBatch{States: []store.DistseqState{{Contract: "c1", ID: "a", Spent: true, SpentBy: "tx-a"}}})
	dsSame(t, "unspent after a spend", dsIDs(dsGetStates(t, st, "c1", true), stateID), []string{"z", "b"})
	want := spent(dsState("c1", "a", 2))
	want.SpentBy = "tx-a"
	dsSame(t, "spent state", dsGetStates(t, st, "c1", false)[2], want)
}

func distseqReceived(t *testing.T, st store.DistseqStore) {
	ctx := context.Background()
	dsApply(t, st, store.DistseqBatch{Received: []string{"r1", "r2", "r1"}})
	dsApply(t, st, store.DistseqBatch{Received: []string{"r2", "r3"}})
	for id, want := range map[string]bool{"r1": true, "r2": true, "r3": true, "r4": false, "": false} {
		if got, err := st.DistseqReceived(ctx, id); err != nil || got != want {
			t.Errorf("DistseqReceived(%q) = %v, %v; want %v", id, got, err, want)
		}
	}
}

func distseqCursor(t *testing.T, st store.DistseqStore) {
	ctx := context.Background()
	check := func(want uint64, wantOK bool) {
		t.Helper()
		if c, ok, err := st.DistseqCursor(ctx); err != nil || c != want || ok != wantOK {
			t.Errorf("DistseqCursor = %d, %v, %v; want %d, %v", c, ok, err, want, wantOK)
		}
	}
	check(0, false)
	dsApply(t, st, store.DistseqBatch{Cursor: u64(0)})
	check(0, true)
	dsApply(t, st, store.DistseqBatch{Cursor: u64(42)})
	check(42, true)
	dsApply(t, st, store.DistseqBatch{Received: []string{"r"}})
	check(42, true)
	dsApply(t, st, store.DistseqBatch{Cursor: u64(7)}) // a reorg may move it back: the store does not judge
	check(7, true)
}

func distseqGroups(t *testing.T, st store.DistseqStore) {
	ctx := context.Background()
	empty := dsGroup("c0")
	dsApply(t, st, store.DistseqBatch{Groups: []store.DistseqGroup{
		dsGroup("c2", "z", "a", "m"), dsGroup("c1", "b", "a"), empty, dsGroup("c3", "q"),
	}})
	gs, err := st.DistseqGroups(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dsSame(t, "groups", dsIDs(gs, groupID), []string{"c0", "c1", "c2", "c3"})
	dsSame(t, "members in order", dsIDs(gs[2].Members, memberID), []string{"z", "a", "m"})
	dsSame(t, "group c1", gs[1], dsGroup("c1", "b", "a"))
	g0 := dsGetGroup(t, st, "c0")
	if g0.Members == nil || len(g0.Members) != 0 || g0.Threshold != 0 || g0.Height != 3 {
		t.Errorf("group without members: %+v", g0)
	}
	// Replaced whole: fewer members, another order.
	dsApply(t, st, store.DistseqBatch{Groups: []store.DistseqGroup{dsGroup("c2", "m", "z")}})
	dsSame(t, "replaced group", dsGetGroup(t, st, "c2"), dsGroup("c2", "m", "z"))
}

func distseqCopies(t *testing.T, st store.DistseqStore) {
	ctx := context.Background()
	b := store.DistseqBatch{
		Groups:     []store.DistseqGroup{dsGroup("c1", "a", "b")},
		Intents:    []store.DistseqIntent{dsIntent("tx1", "c1", "k1", store.DistseqPending, 1)},
		Dispatches: []store.DistseqDispatch{dsDispatch("tx1", store.DistseqDispatched, 1)},
		Outbox:     []store.DistseqDistribution{dsDist("d1", false, 1)},
		States:     []store.DistseqState{dsState("c1", "s1", 1)},
		Received:   []string{"r1"},
	}
	dsApply(t, st, b)
	// want is text: a copy that shares no memory with what the store gave.
	want := dsJSON(t, dsSnap(t, st, []string{"c1"}, []string{"r1", "rX"}))
	// Change the batch after it was applied.
	b.Groups[0].Members[0].ID = "mutated"
	b.Intents[0].Payload[0] = 'X'
	b.Dispatches[0].Payload[0] = 'X'
	b.Outbox[0].Payload[0] = 'X'
	b.States[0].Data[0] = 'X'
	b.Received[0] = "rX"
	dsSame(t, "after changing the batch", dsJSON(t, dsSnap(t, st, []string{"c1"}, []string{"r1", "rX"})), want)
	// Change what the reads returned.
	got := dsSnap(t, st, []string{"c1"}, nil)
	got.Groups[0].Members[0].ID = "mutated"
	got.Groups[0].Members = append(got.Groups[0].Members[:1], store.DistseqMember{ID: "extra"})
	got.Intents[0].Payload[0] = 'X'
	got.Open[0].Payload[0] = 'X'
	got.Pending[0].Payload[0] = 'X'
	got.States["c1"][0].Data[0] = 'X'
	g := dsGetGroup(t, st, "c1")
	g.Members[1].PublicKey = "mutated"
	in := dsGetIntent(t, st, "tx1")
	in.Payload[1] = 'X'
	byKey, err := st.DistseqIntentByKey(ctx, "k1")
	if err != nil {
		t.Fatal(err)
	}
	byKey.Payload[2] = 'X'
	dsSame(t, "after changing returned values", dsJSON(t, dsSnap(t, st, []string{"c1"}, []string{"r1", "rX"})), want)
}

func dsJSON(t *testing.T, v dsView) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func distseqNotFound(t *testing.T, st store.DistseqStore) {
	ctx := context.Background()
	dsApply(t, st, store.DistseqBatch{Intents: []store.DistseqIntent{dsIntent("tx1", "c1", "", store.DistseqPending, 1)}})
	if _, err := st.DistseqIntent(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("DistseqIntent(nope): %v, want ErrNotFound", err)
	}
	for _, key := range []string{"nope", ""} {
		if _, err := st.DistseqIntentByKey(ctx, key); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("DistseqIntentByKey(%q): %v, want ErrNotFound", key, err)
		}
	}
	if _, err := st.DistseqGroup(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("DistseqGroup(nope): %v, want ErrNotFound", err)
	}
}

func distseqConcurrent(t *testing.T, st store.DistseqStore) {
	const n, per = 8, 20
	var wg sync.WaitGroup
	errs := make(chan error, n*per)
	for w := range n {
		wg.Go(func() {
			for i := range per {
				id := dsName("w%d-%02d", w, i)
				errs <- st.ApplyDistseq(context.Background(), store.DistseqBatch{
					Intents: []store.DistseqIntent{dsIntent(id, "c1", "k-"+id, store.DistseqPending, i)},
					States:  []store.DistseqState{dsState("c1", id, uint64(i))},
				})
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got, err := st.DistseqIntents(context.Background(), store.DistseqIntentFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n*per || len(dsGetStates(t, st, "c1", true)) != n*per {
		t.Errorf("%d intents, %d states; want %d each", len(got), len(dsGetStates(t, st, "c1", true)), n*per)
	}
}

func distseqConcurrentKey(t *testing.T, st store.DistseqStore) {
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for w := range n {
		wg.Go(func() {
			errs[w] = st.ApplyDistseq(context.Background(), store.DistseqBatch{
				Intents: []store.DistseqIntent{dsIntent(dsName("tx%d", w), "c1", "shared", store.DistseqPending, w)},
				States:  []store.DistseqState{dsState("c1", dsName("s%d", w), 1)},
			})
		})
	}
	wg.Wait()
	won := -1
	for w, err := range errs {
		switch {
		case err == nil && won >= 0:
			t.Errorf("writers %d and %d both took the key", won, w)
		case err == nil:
			won = w
		case !errors.Is(err, store.ErrDuplicateKey):
			t.Errorf("writer %d: %v, want ErrDuplicateKey", w, err)
		}
	}
	if won < 0 {
		t.Fatal("no writer took the key")
	}
	in, err := st.DistseqIntentByKey(context.Background(), "shared")
	if err != nil || in.TxID != dsName("tx%d", won) {
		t.Errorf("key held by %s (%v), want tx%d", in.TxID, err, won)
	}
	dsSame(t, "states of the batches", dsIDs(dsGetStates(t, st, "c1", false), stateID), []string{dsName("s%d", won)})
}
