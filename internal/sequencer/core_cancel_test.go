package sequencer

import (
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/store"
)

// TestCoreCancelNonce: an operator's cancel of a pending attempt's nonce
// sends a no-op there at a higher fee (above fees.max when the attempt
// was at the cap); once the no-op holds the nonce the transaction ends
// FAILED or goes again at a fresh nonce without a retry counted; if the
// transaction's own attempt lands first it is DONE.
func TestCoreCancelNonce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		then    string
		lands   string // the hash the chain includes at nonce 7
		want    store.TxState
		atCap   bool
		nextNon uint64 // a requeue's next nonce
	}{
		{name: "fail", then: store.CancelFail, lands: "h2", want: store.Failed},
		{name: "requeue", then: store.CancelRequeue, lands: "h2", want: store.Retry, nextNon: 8},
		{name: "the attempt lands first", then: store.CancelFail, lands: "h1", want: store.Done},
		{name: "at the fee cap", then: store.CancelFail, lands: "h2", want: store.Failed, atCap: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := testConfig()
			if tc.atCap {
				cfg.Fees.Max = cfg.Fees.Initial
			}
			h := newHarness(t, cfg, acct("s1", 7))
			uid := h.enqueue("q1", typA, 1)[0]
			first := h.ok("q1", "h1")
			h.c.Step(Cancel(h.now, "q1", uid, 7, tc.then))
			h.step()
			e := h.take(EffectDispatch, "q1")
			if e.Cancel != tc.then || e.Sender.Nonce != 7 || e.Sender.Fee <= first.Sender.Fee {
				t.Fatalf("cancel dispatch: cancel %q nonce %d fee %d (the attempt's fee %d)", e.Cancel, e.Sender.Nonce, e.Sender.Fee, first.Sender.Fee)
			}
			h.dispatched(e, "h2", nil)
			if a := h.attempt(uid, 2); a.Cancel != tc.then {
				t.Fatalf("the no-op attempt is not recorded as one: %+v", a)
			}
			h.newHead(Receipt{Hash: tc.lands, Success: true, Nonce: 7})
			if tc.want == store.Failed {
				// every attempt settled before FAILED: h1 can no longer land
				for _, c := range h.takeAll(EffectCheck, "q1") {
					st := chain.TxStatus{Hash: chain.Hash(c.Hash), State: chain.TxUnknown}
					if c.Hash == "h2" {
						st = status("h2", chain.TxIncluded)
					}
					h.checked(c, st, nil)
				}
			}
			h.wantState(uid, tc.want)
			tx := h.tx(uid)
			switch tc.want {
			case store.Failed:
				if !strings.Contains(tx.Error, "cancelled by the operator: a no-op took nonce 7") {
					t.Fatalf("FAILED with %q", tx.Error)
				}
			case store.Retry:
				if tx.Retries != 0 {
					t.Fatalf("a requeue counted a retry: %d", tx.Retries)
				}
				h.tick(delayA)
				for _, c := range h.takeAll(EffectCheck, "q1") { // h1 cannot land: its nonce is taken
					h.checked(c, chain.TxStatus{Hash: chain.Hash(c.Hash), State: chain.TxUnknown}, nil)
				}
				next := h.take(EffectDispatch, "q1")
				if next.Cancel != "" || next.Sender.Nonce != tc.nextNon {
					t.Fatalf("after the requeue: cancel %q nonce %d, want the transaction at nonce %d", next.Cancel, next.Sender.Nonce, tc.nextNon)
				}
			default: // DONE: nothing more to check
			}
		})
	}
}

// A cancel that names no pending attempt (another nonce, another
// transaction, nothing sent yet) changes nothing.
func TestCoreCancelIgnored(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testConfig(), acct("s1", 7))
	uid := h.enqueue("q1", typA, 2)[0]
	h.c.Step(Cancel(h.now, "q1", uid, 7, store.CancelFail)) // its dispatch is under way
	h.step()
	h.ok("q1", "h1")
	for _, in := range []Input{Cancel(h.now, "q1", uid, 8, store.CancelFail), Cancel(h.now, "q1", "tx_other", 7, store.CancelFail),
		Cancel(h.now, "q1", uid, 7, "maybe")} {
		h.c.Step(in)
		h.step()
		h.none(EffectDispatch, "q1")
	}
	if n := len(h.tx(uid).Attempts); n != 1 {
		t.Fatalf("%d attempts, want 1", n)
	}
}
