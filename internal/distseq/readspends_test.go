package distseq_test

import (
	"context"
	"slices"
	"testing"

	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/memstore"
)

// TestReadSpendsRevertedCreators: a creator counts as reverted for good
// only when this node reverted it with no grant left that could land (a
// park's revert); one reverted with a grant left (after MaxReverts, say)
// may still be confirmed, and one pending or unknown is not final.
func TestReadSpendsRevertedCreators(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := memstore.NewDistseq()
	rec := func(id string, status string, granted []store.DistseqGrant) store.DistseqIntent {
		return store.DistseqIntent{TxID: id, Contract: "g0", Payload: []byte(`{}`), Status: status, Granted: granted}
	}
	if err := st.ApplyDistseq(ctx, store.DistseqBatch{Intents: []store.DistseqIntent{
		rec("parked", store.DistseqReverted, nil),
		rec("with-grant", store.DistseqReverted, []store.DistseqGrant{{Spends: []string{"s9"}}}),
		rec("pending", store.DistseqPending, nil),
	}}); err != nil {
		t.Fatal(err)
	}
	in, err := distseq.ReadSpends(ctx, st, distseq.Effect{Kind: distseq.EffectReadSpends, Contract: "g0", TxID: "A-1",
		States: []string{"s1"}, Creators: []string{"parked", "with-grant", "pending", "unknown"}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(in.Reverted, []string{"parked"}) {
		t.Fatalf("reverted creators %v, want [parked]", in.Reverted)
	}
}
