package cluster

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/distseq/distseqpb"
	"github.com/ordolabs/ordo/internal/distseq/token"
	"github.com/ordolabs/ordo/internal/store"
)

// TestScenarioOwners: a sender spends only its owner's coins. Each of the
// four members' owners holds one coin of 1000. A's first transfer of 600
// is confirmed (its change, 400, back to u@A); its second of 600, taken
// while the coin was there, finds only the change: it parks, and is
// reverted with the reason insufficient_funds once the park times out,
// although the other owners hold 3000. An intent of A spending for u@B
// (another node's owner) is reverted not_owner.
func TestScenarioOwners(t *testing.T) {
	w := newWorld(t, Config{Coins: 4, Core: distseq.CoreConfig{ParkRetry: 500 * time.Millisecond, ParkTimeout: 5 * time.Second}})
	first := w.submit("A", 600, "")
	second := w.submit("A", 600, "")
	foreign, err := w.c.Submit(w.ctx, "A", Group(0), token.Intent{From: Owner("B"), To: "bob", Amount: 1}, "")
	if err != nil {
		t.Fatal(err)
	}
	w.untilConfirmed(20*time.Second, first)
	for _, tt := range []struct{ id, reason string }{{second, token.ReasonInsufficient}, {foreign, token.ReasonNotOwner}} {
		w.until(30*time.Second, tt.id+" reverted", func() bool { return w.status(tt.id) == store.DistseqReverted })
		rec, err := w.c.Intent(w.ctx, "A", tt.id)
		if err != nil || !strings.HasPrefix(rec.Reason, tt.reason) {
			t.Errorf("%s: reverted with %q (%v), want a reason starting %s", tt.id, rec.Reason, err, tt.reason)
		}
	}
}

// TestScenarioChainedSpends: A's owner holds one coin; A sends three
// transfers at once. The coordinator assembles each on the change of the
// one before, not yet confirmed, and every endorser signs those
// speculative inputs on the outputs it endorsed (not the coordinator's
// word), before the creating transaction's states reach it: it does not
// wait for the confirmation.
func TestScenarioChainedSpends(t *testing.T) {
	w := newWorld(t, Config{Coins: 4})
	r := w.headRange()
	w.untilAllIn(r, 0)
	coord := w.pref(w.rangeOf("A"))[0]
	ids := []string{w.submit("A", 100, ""), w.submit("A", 100, ""), w.submit("A", 100, "")}
	w.untilConfirmed(20*time.Second, ids...)
	if w.headRange() != r {
		t.Fatalf("the run crossed a range boundary (range %d -> %d): pick a later start", r, w.headRange())
	}
	for i, id := range ids[1:] {
		prev := ids[i]
		chained := false
		for _, s := range w.sends("EndorsementRequest", coord, "", id) {
			spec := &distseqpb.TransactionSpecification{}
			if err := s.Env.GetEndorsementRequest().GetTransactionSpecification().UnmarshalTo(spec); err != nil {
				t.Fatal(err)
			}
			chained = chained || slices.ContainsFunc(spec.GetSpends(), func(s string) bool { return strings.HasPrefix(s, prev+".1.") })
		}
		if !chained {
			t.Fatalf("%s was not assembled on %s's change: no speculative input to check", id, prev)
		}
		for _, m := range w.others(coord) {
			ends := w.sends("EndorsementResponse", m, coord, id)
			if len(ends) == 0 {
				t.Fatalf("%s: no endorsement of %s", m, id)
			}
			if dist := w.sends("DistributeData", "", m, prev); len(dist) > 0 && !ends[0].At.Before(dist[0].At) {
				t.Errorf("%s endorsed %s at %v, not before %s's states were distributed to it at %v", m, id, ends[0].At, prev, dist[0].At)
			}
		}
	}
}
