package cluster

import (
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/distseq"
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
