package cluster

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/distseq/token"
	"github.com/ordolabs/ordo/internal/store"
)

// TestScenarioPrepare: external submission (ptx_prepareTransaction). The
// coordinator assembles and endorses a prepare-only intent, hands the
// prepared transaction to its sender (committed in the sender's record)
// and never sends it to the base ledger; a transfer sent after it is not
// chained on its outputs and is confirmed meanwhile; once the caller
// submits the prepared transaction from an account of its own, it is
// confirmed once, its sender marks it Confirmed and its created states
// reach every member.
func TestScenarioPrepare(t *testing.T) {
	w := newWorld(t, Config{})
	w.untilAllIn(w.headRange(), 0)
	id, err := w.c.Prepare(w.ctx, "B", Group(0), token.Intent{To: "carol", Amount: 150}, "prep-1")
	if err != nil {
		t.Fatal(err)
	}
	if again, err := w.c.Prepare(w.ctx, "B", Group(0), token.Intent{To: "carol", Amount: 150}, "prep-1"); err != nil || again != id {
		t.Fatalf("a resend with the key: %q, %v; want %q", again, err, id)
	}
	var rec store.DistseqIntent
	w.until(5*time.Second, "the prepared transaction in the sender's record", func() bool {
		rec, _ = w.c.Intent(w.ctx, "B", id)
		return len(rec.Prepared) > 0
	})
	if !rec.Prepare || rec.Status != store.DistseqPending {
		t.Fatalf("the sender's record: %+v", rec)
	}
	other := w.submit("C", 100, "")
	w.untilConfirmed(5*time.Second, other)
	w.run(3 * w.c.Config().BlockTime)
	if n := w.c.Confirmed[Group(0)+"/"+id]; n != 0 || w.status(id) != store.DistseqPending {
		t.Fatalf("the prepared transaction reached the chain (%d) or left pending (%s) without its caller", n, w.status(id))
	}
	var prep distseq.PreparedTx
	var args token.ConfirmArgs
	if err := json.Unmarshal(rec.Prepared, &prep); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(prep.Call, &args); err != nil || args.TxID != id || len(args.Endorsements) != len(w.c.Nodes()) {
		t.Fatalf("prepared %s: %+v, %v", prep.Call, args, err)
	}
	// The caller submits it itself.
	acct, err := w.c.Chain.Account(w.ctx, w.c.Deployer())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.c.Chain.SendTx(w.ctx, chain.Tx{From: w.c.Deployer(), Nonce: acct.Nonce, Fee: 10000,
		Contract: devchain.PrivacyGroupContract, Method: devchain.PrivacyConfirm, Args: prep.Call}); err != nil {
		t.Fatal(err)
	}
	w.untilConfirmed(10*time.Second, id)
	w.until(5*time.Second, "its created states at every member", func() bool {
		for _, n := range w.c.Nodes() {
			sts, _ := n.Store.DistseqStates(w.ctx, Group(0), true)
			have := map[string]bool{}
			for _, s := range sts {
				have[s.ID] = true
			}
			for _, c := range args.Creates {
				if !have[c.ID] {
					return false
				}
			}
		}
		return true
	})
	for _, n := range w.c.Nodes() {
		if c := w.coord(n.ID, distseq.RoleSubmitter, id, distseq.CDispatched); c > 1 {
			t.Errorf("%s held %d submissions of %s", n.ID, c, id)
		}
	}
}
