package memstore

import (
	"context"
	"fmt"
	"testing"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/storetest"
)

func TestDistseqConformance(t *testing.T) {
	storetest.RunDistseq(t, func(*testing.T) store.DistseqStore { return NewDistseq() })
}

// TestClone checks that a clone holds what the store held, and that later
// writes to either do not show in the other.
func TestClone(t *testing.T) {
	ctx := context.Background()
	d := NewDistseq()
	cur := uint64(5)
	if err := d.ApplyDistseq(ctx, store.DistseqBatch{
		Groups:     []store.DistseqGroup{{Contract: "c1", Members: []store.DistseqMember{{ID: "a"}}}},
		Intents:    []store.DistseqIntent{{TxID: "tx1", Contract: "c1", IdempotencyKey: "k1", Status: store.DistseqPending}},
		Dispatches: []store.DistseqDispatch{{TxID: "tx1", Status: store.DistseqDispatched}},
		Outbox:     []store.DistseqDistribution{{ID: "d1"}},
		States:     []store.DistseqState{{Contract: "c1", ID: "s1", Data: []byte("x")}},
		Received:   []string{"r1"},
		Cursor:     &cur,
	}); err != nil {
		t.Fatal(err)
	}
	c := d.Clone()
	cur2 := uint64(9)
	if err := d.ApplyDistseq(ctx, store.DistseqBatch{
		Intents:    []store.DistseqIntent{{TxID: "tx1", IdempotencyKey: "k2", Status: store.DistseqConfirmed}},
		Dispatches: []store.DistseqDispatch{{TxID: "tx1", Status: store.DistseqConfirmed}},
		Outbox:     []store.DistseqDistribution{{ID: "d1", Acked: true}},
		States:     []store.DistseqState{{Contract: "c1", ID: "s1", Spent: true}, {Contract: "c1", ID: "s2"}},
		Received:   []string{"r2"},
		Cursor:     &cur2,
	}); err != nil {
		t.Fatal(err)
	}
	if in, err := c.DistseqIntentByKey(ctx, "k1"); err != nil || in.Status != store.DistseqPending {
		t.Errorf("clone's intent: %+v, %v", in, err)
	}
	if open, _ := c.DistseqOpenDispatches(ctx); len(open) != 1 {
		t.Errorf("clone's open dispatches: %v", open)
	}
	if pend, _ := c.DistseqPendingOutbox(ctx); len(pend) != 1 {
		t.Errorf("clone's pending outbox: %v", pend)
	}
	if sts, _ := c.DistseqStates(ctx, "c1", true); len(sts) != 1 || sts[0].ID != "s1" {
		t.Errorf("clone's unspent states: %v", sts)
	}
	if ok, _ := c.DistseqReceived(ctx, "r2"); ok {
		t.Errorf("clone received r2")
	}
	if v, _, _ := c.DistseqCursor(ctx); v != 5 {
		t.Errorf("clone's cursor %d, want 5", v)
	}
	// And the other way round.
	if err := c.ApplyDistseq(ctx, store.DistseqBatch{Groups: []store.DistseqGroup{{Contract: "c2"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.DistseqGroup(ctx, "c2"); err == nil {
		t.Errorf("a write to the clone shows in the original")
	}
}

// BenchmarkManyGroups measures holding 10,000 idle groups (no intents):
// bytes per group and the cost of a clone.
func BenchmarkManyGroups(b *testing.B) {
	ctx := context.Background()
	d := NewDistseq()
	var batch store.DistseqBatch
	for i := range 10_000 {
		batch.Groups = append(batch.Groups, store.DistseqGroup{Contract: fmt.Sprintf("c%05d", i), Threshold: 4,
			Members: []store.DistseqMember{{ID: "a", PublicKey: "pa"}, {ID: "b", PublicKey: "pb"},
				{ID: "c", PublicKey: "pc"}, {ID: "d", PublicKey: "pd"}}})
	}
	if err := d.ApplyDistseq(ctx, batch); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = d.Clone()
	}
}
