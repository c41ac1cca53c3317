package sequencer

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/store"
)

// TestCoreConfirmations: with Confirmations 3, an included attempt makes its
// transaction DONE only once three blocks hold it and a check confirms it is
// still there; a reorg that returns it to the mempool sends the queue back to
// waiting for inclusion, keeping its sender.
func TestCoreConfirmations(t *testing.T) {
	cfg := testConfig()
	cfg.Confirmations = 3
	h := newHarness(t, cfg, acct("s1", 0))
	uid := h.enqueue("q1", typA, 1)[0]
	h.ok("q1", "h1")
	h.newHead(okReceipt("h1")) // 101: included
	h.wantState(uid, store.Revision)
	h.wantBinding("q1", store.WaitingInclusion)
	h.none(EffectCheck, "q1")
	h.newHead() // 102
	h.none(EffectCheck, "q1")
	h.newHead() // 103: 3 blocks hold it: confirm
	e := h.take(EffectCheck, "q1")
	if e.Hash != "h1" {
		t.Fatalf("confirm check of %s", e.Hash)
	}
	// Reorged out: pending again.
	h.checked(e, chain.TxStatus{Hash: "h1", State: chain.TxPending}, nil)
	h.wantState(uid, store.Revision)
	if q := h.wantBinding("q1", store.WaitingInclusion); q.Sender != "s1" {
		t.Fatalf("queue lost its sender: %+v", q)
	}
	if !h.c.Watching("h1") {
		t.Fatal("not watching h1 after the reorg")
	}
	h.newHead(okReceipt("h1")) // 104: included again
	h.heads(1)                 // 105
	h.none(EffectCheck, "q1")
	h.newHead() // 106
	e = h.take(EffectCheck, "q1")
	h.checked(e, chain.TxStatus{Hash: "h1", State: chain.TxIncluded, Height: 104, Success: true}, nil)
	h.wantState(uid, store.Done)
	h.wantFree("q1", "s1")
	if a := h.attempt(uid, 1); a.Height != 104 || a.Outcome != store.OutcomeIncluded {
		t.Fatalf("attempt %+v", a)
	}
	if n := len(h.tx(uid).Attempts); n != 1 {
		t.Fatalf("%d attempts, want 1 (no re-dispatch during the reorg)", n)
	}
}

// TestCoreHooksRunAgainAfterRestart: a finished transaction whose hook had
// not reported is handed to the core at start; its hook runs again and its
// result is committed.
func TestCoreHooksRunAgainAfterRestart(t *testing.T) {
	done := store.Transaction{UID: "u1", Queue: "q1", Type: typA, State: store.Done, Seq: 1,
		Attempts: []store.Attempt{{N: 1, Sender: "s1", Nonce: 4, Fee: 1000, Hash: "h1", Outcome: store.OutcomeIncluded, Height: 9}}}
	c, err := NewCore(testConfig(), t0, Snapshot{Senders: []store.Sender{acct("s1", 5)}, Hooks: []store.Transaction{done}})
	if err != nil {
		t.Fatal(err)
	}
	r := c.Ready()
	if len(r.Effects) != 1 || r.Effects[0].Kind != EffectHook || !r.Effects[0].Success || r.Effects[0].Result.Hash != "h1" ||
		r.Effects[0].Sender.AccountID != "s1" {
		t.Fatalf("effects %+v, want one successful hook for h1", r.Effects)
	}
	c.Advance()
	c.Step(HookDone(t0, "u1", TxnResult{Hash: "h1"}, nil))
	r = c.Ready()
	if len(r.Batch.Txs) != 1 || r.Batch.Txs[0].UID != "u1" || r.Batch.Txs[0].State != store.Done || len(r.Batch.Txs[0].Result) == 0 {
		t.Fatalf("batch %+v, want u1's result", r.Batch.Txs)
	}
}

// TestCoreUnreportedRemoteAttempt: a remote worker's attempt fails without a
// hash (it may have sent it); when the retry at the same nonce finds the nonce
// consumed, the core does not move to a fresh nonce — that could apply the
// intent twice — but ends FAILED with an explanation.
func TestCoreUnreportedRemoteAttempt(t *testing.T) {
	s := acct("w1", 3)
	s.Worker = "http://worker"
	h := newHarness(t, testConfig(), s)
	uid := h.enqueue("q1", typA, 1)[0]
	e := h.take(EffectDispatch, "q1")
	h.dispatched(e, "", errors.New("worker dispatch: context deadline exceeded"))
	h.wantState(uid, store.Retry)
	h.tick(delayA)
	e = h.take(EffectDispatch, "q1")
	if e.Sender.Nonce != 3 {
		t.Fatalf("retry nonce %d, want 3 (the unreported attempt's)", e.Sender.Nonce)
	}
	h.dispatched(e, "", fmt.Errorf("%w: account nonce is 4", chain.ErrNonceTooLow))
	h.tick(delayA)
	h.none(EffectDispatch, "q1")
	h.wantState(uid, store.Failed)
	if !strings.Contains(h.tx(uid).Error, "ambiguous") {
		t.Fatalf("error %q", h.tx(uid).Error)
	}
	h.wantFree("q1", "w1")
}
