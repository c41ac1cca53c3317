package sequencer

import (
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
)

// TestCoreReplacementKeepsGas: on a chain with gas, an attempt's limit is
// recorded with it, and the attempt that replaces it at the same nonce is
// dispatched with that limit (only its fee changes); an attempt at a new
// nonce asks for a new estimate (Sender.Gas 0).
func TestCoreReplacementKeepsGas(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		st        chain.TxStatus
		nextNonce uint64
		wantGas   uint64
	}{
		{"pending: replaced at its nonce", status("h1", chain.TxPending), 7, 50_000},
		{"failed at inclusion: a new nonce", includedFailed("h1", "reverted"), 8, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, testConfig(), acct("s1", 7))
			uid := h.enqueue("q1", typA, 1)[0]
			e := h.take(EffectDispatch, "q1")
			if e.Sender.Gas != 0 {
				t.Fatalf("first attempt: gas %d, want 0 (estimate)", e.Sender.Gas)
			}
			tx := chain.Tx{From: chain.Address(e.Sender.AccountID), Nonce: 7, Fee: e.Sender.Fee, Gas: 50_000, Contract: "c", Method: "m"}
			h.c.Step(Signed(h.now, e.Queue, e.UID, e.Attempt, tx, "h1"))
			h.step()
			if a := h.attempt(uid, 1); a.Gas != 50_000 {
				t.Fatalf("attempt 1 recorded gas %d, want 50000", a.Gas)
			}
			h.dispatched(h.take(EffectSubmit, "q1"), "h1", nil)
			h.heads(3)
			h.checked(h.take(EffectCheck, "q1"), tc.st, nil)
			h.tick(delayA)
			if tc.st.State == chain.TxPending {
				h.answer("q1", chain.TxPending)
			}
			e2 := h.take(EffectDispatch, "q1")
			if e2.Sender.Nonce != tc.nextNonce || e2.Sender.Gas != tc.wantGas || e2.Sender.Fee <= e.Sender.Fee {
				t.Fatalf("next attempt: nonce %d gas %d fee %d, want nonce %d gas %d fee above %d",
					e2.Sender.Nonce, e2.Sender.Gas, e2.Sender.Fee, tc.nextNonce, tc.wantGas, e.Sender.Fee)
			}
		})
	}
}
