package storetest

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/store"
)

func distseqRoundTrip(t *testing.T, st store.DistseqStore) {
	ctx := context.Background()
	in := dsIntent("tx1", "c1", "k1", store.DistseqReverted, 1)
	in.Reason, in.Attempts = "state spent", 3
	bare := store.DistseqIntent{TxID: "tx2", Status: store.DistseqPending} // empty payload, zero times
	d := dsDispatch("tx1", store.DistseqDispatched, 2)
	d.Height = math.MaxUint64
	o := dsDist("d1", false, 3)
	s := dsState("c1", "s1", math.MaxUint64)
	s.Spent, s.SpentBy = true, "tx9"
	g := dsGroup("c1", "node-a", "node-b", "node-c")
	g.Threshold, g.Height = 2, math.MaxUint64
	dsApply(t, st, store.DistseqBatch{Groups: []store.DistseqGroup{g}, Intents: []store.DistseqIntent{in, bare},
		Dispatches: []store.DistseqDispatch{d}, Outbox: []store.DistseqDistribution{o},
		States: []store.DistseqState{s}, Received: []string{"r1"}, Cursor: u64(math.MaxUint64)})

	dsSame(t, "intent", dsGetIntent(t, st, "tx1"), in)
	got := dsGetIntent(t, st, "tx2")
	if got.Payload != nil || !got.CreatedAt.IsZero() || !got.UpdatedAt.IsZero() || got.IdempotencyKey != "" {
		t.Errorf("bare intent: got %+v, want nil payload, zero times, no key", got)
	}
	byKey, err := st.DistseqIntentByKey(ctx, "k1")
	if err != nil {
		t.Fatal(err)
	}
	dsSame(t, "intent by key", byKey, in)
	if dsGetIntent(t, st, "tx1").CreatedAt.Location() != time.UTC {
		t.Errorf("CreatedAt location %v, want UTC", dsGetIntent(t, st, "tx1").CreatedAt.Location())
	}
	open, err := st.DistseqOpenDispatches(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dsSame(t, "open dispatches", open, []store.DistseqDispatch{d})
	pend, err := st.DistseqPendingOutbox(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dsSame(t, "pending outbox", pend, []store.DistseqDistribution{o})
	dsSame(t, "states", dsGetStates(t, st, "c1", false), []store.DistseqState{s})
	dsSame(t, "group", dsGetGroup(t, st, "c1"), g)
	if ok, err := st.DistseqReceived(ctx, "r1"); err != nil || !ok {
		t.Errorf("DistseqReceived(r1) = %v, %v; want true", ok, err)
	}
	if c, ok, err := st.DistseqCursor(ctx); err != nil || !ok || c != math.MaxUint64 {
		t.Errorf("DistseqCursor = %d, %v, %v; want max uint64", c, ok, err)
	}
}

func distseqUpsert(t *testing.T, st store.DistseqStore) {
	ctx := context.Background()
	dsApply(t, st, store.DistseqBatch{
		Groups:     []store.DistseqGroup{dsGroup("c1", "a", "b", "c")},
		Intents:    []store.DistseqIntent{dsIntent("tx1", "c1", "k1", store.DistseqPending, 1)},
		Dispatches: []store.DistseqDispatch{dsDispatch("tx1", store.DistseqDispatched, 1)},
		Outbox:     []store.DistseqDistribution{dsDist("d1", false, 1)},
		States:     []store.DistseqState{dsState("c1", "s1", 5)},
	})
	// A later batch replaces whole; within it the later record of a key wins.
	in1 := dsIntent("tx1", "c2", "k1", store.DistseqPending, 4)
	in2 := dsIntent("tx1", "c2", "k1b", store.DistseqConfirmed, 5)
	in2.Payload, in2.Attempts, in2.Reason = nil, 4, "r"
	d2 := dsDispatch("tx1", store.DistseqConfirmed, 6)
	d2.Sender, d2.DelegationID, d2.Height = "node-z", "del-2", 9
	o2 := dsDist("d1", true, 6)
	o2.To = "node-c"
	g2 := dsGroup("c1", "c", "a")
	g2.Threshold, g2.Height = 1, 8
	respent := store.DistseqState{Contract: "c1", ID: "s1", Data: []byte("other"), CreatedBy: "x", Height: 99,
		Spent: true, SpentBy: "tx1"}
	dsApply(t, st, store.DistseqBatch{
		Groups:     []store.DistseqGroup{dsGroup("c1", "q"), g2},
		Intents:    []store.DistseqIntent{in1, in2},
		Dispatches: []store.DistseqDispatch{dsDispatch("tx1", store.DistseqReverted, 5), d2},
		Outbox:     []store.DistseqDistribution{o2},
		States:     []store.DistseqState{respent},
	})
	dsSame(t, "intent", dsGetIntent(t, st, "tx1"), in2)
	if _, err := st.DistseqIntentByKey(ctx, "k1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("old key k1 after rekey: err %v, want ErrNotFound", err)
	}
	dsSame(t, "group", dsGetGroup(t, st, "c1"), g2)
	if open, _ := st.DistseqOpenDispatches(ctx); len(open) != 0 {
		t.Errorf("open dispatches after confirm: %v", open)
	}
	if pend, _ := st.DistseqPendingOutbox(ctx); len(pend) != 0 {
		t.Errorf("pending outbox after ack: %v", pend)
	}
	want := dsState("c1", "s1", 5)
	want.Spent, want.SpentBy = true, "tx1"
	dsSame(t, "state (data never overwritten)", dsGetStates(t, st, "c1", false), []store.DistseqState{want})
	// Back to pending and unacked: the lists see it again; a spent state
	// stays spent, with its first spender.
	d3 := d2
	d3.Status = store.DistseqDispatched
	o3 := o2
	o3.Acked = false
	unspent := dsState("c1", "s1", 0)
	dsApply(t, st, store.DistseqBatch{Dispatches: []store.DistseqDispatch{d3}, Outbox: []store.DistseqDistribution{o3},
		States: []store.DistseqState{unspent}})
	if open, _ := st.DistseqOpenDispatches(ctx); len(open) != 1 {
		t.Errorf("open dispatches after reopen: %v", open)
	}
	if pend, _ := st.DistseqPendingOutbox(ctx); len(pend) != 1 {
		t.Errorf("pending outbox after unack: %v", pend)
	}
	dsSame(t, "state stays spent", dsGetStates(t, st, "c1", false), []store.DistseqState{want})
	// A spend seen before the state's data: the placeholder row takes the
	// data when it comes, and stays spent.
	dsApply(t, st, store.DistseqBatch{States: []store.DistseqState{{Contract: "c1", ID: "early", Spent: true, SpentBy: "tx7"}}})
	late := dsState("c1", "early", 4)
	dsApply(t, st, store.DistseqBatch{States: []store.DistseqState{late}})
	late.Spent, late.SpentBy = true, "tx7"
	dsSame(t, "placeholder filled", dsGetStates(t, st, "c1", false)[0], late)
	if got := dsGetStates(t, st, "c1", true); len(got) != 0 {
		t.Errorf("unspent after a placeholder fill: %v", got)
	}
}

// dsBig is a batch of every kind, for all-or-none checks.
func dsBig() store.DistseqBatch {
	return store.DistseqBatch{
		Groups:     []store.DistseqGroup{dsGroup("c9", "x", "y")},
		Intents:    []store.DistseqIntent{dsIntent("tx-new", "c9", "k-new", store.DistseqPending, 9)},
		Dispatches: []store.DistseqDispatch{dsDispatch("tx-new", store.DistseqDispatched, 9)},
		Outbox:     []store.DistseqDistribution{dsDist("d-new", false, 9)},
		States:     []store.DistseqState{dsState("c9", "s-new", 1), {Contract: "c1", ID: "s1", Spent: true, SpentBy: "tx-new"}},
		Received:   []string{"r-new"},
		Cursor:     u64(77),
	}
}

func distseqDuplicateKey(t *testing.T, st store.DistseqStore) {
	ctx := context.Background()
	dsApply(t, st, store.DistseqBatch{
		Intents: []store.DistseqIntent{dsIntent("tx1", "c1", "k1", store.DistseqPending, 1)},
		States:  []store.DistseqState{dsState("c1", "s1", 1)},
		Cursor:  u64(5),
	})
	contracts, received := []string{"c1", "c9"}, []string{"r-new"}
	before := dsSnap(t, st, contracts, received)
	for _, tc := range []struct {
		name    string
		intents []store.DistseqIntent
	}{
		{"held in the store", []store.DistseqIntent{dsIntent("tx2", "c1", "k1", store.DistseqPending, 2)}},
		{"held earlier in the batch", []store.DistseqIntent{
			dsIntent("tx3", "c1", "k3", store.DistseqPending, 3), dsIntent("tx4", "c1", "k3", store.DistseqPending, 4)}},
		{"rekeyed onto a held key", []store.DistseqIntent{
			dsIntent("tx5", "c1", "k5", store.DistseqPending, 5), dsIntent("tx5", "c1", "k1", store.DistseqPending, 5)}},
		{"the owner moves after", []store.DistseqIntent{
			dsIntent("tx6", "c1", "k1", store.DistseqPending, 6), dsIntent("tx1", "c1", "k7", store.DistseqPending, 1)}},
	} {
		b := dsBig()
		b.Intents = append(b.Intents, tc.intents...)
		err := st.ApplyDistseq(ctx, b)
		if !errors.Is(err, store.ErrDuplicateKey) {
			t.Errorf("%s: err %v, want ErrDuplicateKey", tc.name, err)
		}
		dsSame(t, tc.name+": store after a refused batch", dsSnap(t, st, contracts, received), before)
	}
	// The owner may rewrite its own record with its key.
	again := dsIntent("tx1", "c1", "k1", store.DistseqConfirmed, 1)
	dsApply(t, st, store.DistseqBatch{Intents: []store.DistseqIntent{again, again}})
	dsSame(t, "rewritten by its owner", dsGetIntent(t, st, "tx1"), again)
}

func distseqKeyHandover(t *testing.T, st store.DistseqStore) {
	ctx := context.Background()
	dsApply(t, st, store.DistseqBatch{Intents: []store.DistseqIntent{
		dsIntent("tx1", "c1", "k1", store.DistseqPending, 1), dsIntent("tx2", "c1", "k2", store.DistseqPending, 2)}})
	// tx1 gives k1 up and tx3 takes it, in one batch; tx2 drops its key
	// and, in a later batch, tx4 takes k2.
	dsApply(t, st, store.DistseqBatch{Intents: []store.DistseqIntent{
		dsIntent("tx1", "c1", "k1x", store.DistseqPending, 1),
		dsIntent("tx3", "c1", "k1", store.DistseqPending, 3),
		dsIntent("tx2", "c1", "", store.DistseqPending, 2)}})
	dsApply(t, st, store.DistseqBatch{Intents: []store.DistseqIntent{dsIntent("tx4", "c1", "k2", store.DistseqPending, 4)}})
	for key, tx := range map[string]string{"k1": "tx3", "k1x": "tx1", "k2": "tx4"} {
		in, err := st.DistseqIntentByKey(ctx, key)
		if err != nil || in.TxID != tx {
			t.Errorf("DistseqIntentByKey(%s) = %s, %v; want %s", key, in.TxID, err, tx)
		}
	}
	// Intents without a key never collide.
	dsApply(t, st, store.DistseqBatch{Intents: []store.DistseqIntent{
		dsIntent("tx5", "c1", "", store.DistseqPending, 5), dsIntent("tx6", "c1", "", store.DistseqPending, 6)}})
}

func distseqRefused(t *testing.T, st store.DistseqStore) {
	ctx := context.Background()
	dsApply(t, st, store.DistseqBatch{States: []store.DistseqState{dsState("c1", "s1", 1)}, Cursor: u64(1)})
	contracts, received := []string{"c1", "c9"}, []string{"r-new"}
	before := dsSnap(t, st, contracts, received)
	for _, tc := range []struct {
		name string
		mod  func(b *store.DistseqBatch)
	}{
		{"group without contract", func(b *store.DistseqBatch) { b.Groups = append(b.Groups, dsGroup("")) }},
		{"negative threshold", func(b *store.DistseqBatch) {
			g := dsGroup("c8")
			g.Threshold = -1
			b.Groups = append(b.Groups, g)
		}},
		{"intent without tx id", func(b *store.DistseqBatch) {
			b.Intents = append(b.Intents, dsIntent("", "c1", "", store.DistseqPending, 1))
		}},
		{"intent status", func(b *store.DistseqBatch) {
			b.Intents = append(b.Intents, dsIntent("tx7", "c1", "", store.DistseqDispatched, 1))
		}},
		{"negative attempts", func(b *store.DistseqBatch) {
			in := dsIntent("tx7", "c1", "", store.DistseqPending, 1)
			in.Attempts = -1
			b.Intents = append(b.Intents, in)
		}},
		{"dispatch without tx id", func(b *store.DistseqBatch) {
			b.Dispatches = append(b.Dispatches, dsDispatch("", store.DistseqDispatched, 1))
		}},
		{"dispatch status", func(b *store.DistseqBatch) {
			b.Dispatches = append(b.Dispatches, dsDispatch("tx7", store.DistseqPending, 1))
		}},
		{"distribution without id", func(b *store.DistseqBatch) { b.Outbox = append(b.Outbox, dsDist("", false, 1)) }},
		{"state without id", func(b *store.DistseqBatch) { b.States = append(b.States, dsState("c1", "", 1)) }},
		{"state without contract", func(b *store.DistseqBatch) { b.States = append(b.States, dsState("", "s2", 1)) }},
		{"empty received id", func(b *store.DistseqBatch) { b.Received = append(b.Received, "") }},
	} {
		b := dsBig()
		tc.mod(&b)
		err := st.ApplyDistseq(ctx, b)
		if err == nil || errors.Is(err, store.ErrDuplicateKey) {
			t.Errorf("%s: err %v, want a refusal", tc.name, err)
		}
		dsSame(t, tc.name+": store after a refused batch", dsSnap(t, st, contracts, received), before)
	}
}

func distseqEmpty(t *testing.T, st store.DistseqStore) {
	before := dsSnap(t, st, []string{"c1"}, nil)
	dsApply(t, st, store.DistseqBatch{})
	dsSame(t, "after an empty batch", dsSnap(t, st, []string{"c1"}, nil), before)
	for what, n := range map[string]int{"groups": len(before.Groups), "intents": len(before.Intents),
		"open": len(before.Open), "pending": len(before.Pending)} {
		if n != 0 {
			t.Errorf("empty store has %d %s", n, what)
		}
	}
	if before.Groups == nil || before.Intents == nil || before.Open == nil || before.Pending == nil {
		t.Errorf("an empty store's lists are nil: %+v", before)
	}
	if before.HasCursor {
		t.Errorf("empty store has a cursor")
	}
}

func distseqCancelled(t *testing.T, st store.DistseqStore) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := st.ApplyDistseq(ctx, dsBig()); err == nil {
		t.Errorf("ApplyDistseq with a done ctx succeeded")
	}
	after := dsSnap(t, st, []string{"c9"}, []string{"r-new"})
	if len(after.Groups)+len(after.Intents)+len(after.States["c9"]) != 0 || after.HasCursor || after.Received["r-new"] {
		t.Errorf("a cancelled batch wrote: %+v", after)
	}
}
