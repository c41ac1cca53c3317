package sequencer

import (
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/store"
)

// TestCoreFailedInclusionWaitsForConfirmations: with Confirmations 3 a
// failed inclusion is not acted on (no retry with a fresh nonce) until three
// blocks hold it. A reorg that returns the attempt to the mempool frees its
// nonce again; the attempt then lands, and the transaction is DONE with no
// second attempt.
func TestCoreFailedInclusionWaitsForConfirmations(t *testing.T) {
	cfg := testConfig()
	cfg.Confirmations = 3
	h := newHarness(t, cfg, acct("s1", 5))
	uid := h.enqueue("q1", typA, 1)[0]
	h.ok("q1", "h1")
	h.newHead(failReceipt("h1", "reverted")) // 101
	h.wantState(uid, store.Revision)
	h.none(EffectDispatch, "q1")
	if n := h.senders["s1"].NextNonce; n != 6 {
		t.Fatalf("NextNonce %d after the failed inclusion, want 6", n)
	}
	h.newHead() // 102
	h.newHead() // 103: deep enough, confirm
	e := h.take(EffectCheck, "q1")
	h.checked(e, chain.TxStatus{Hash: "h1", State: chain.TxPending}, nil) // reorged out
	h.wantState(uid, store.Revision)
	if n := h.senders["s1"].NextNonce; n != 5 {
		t.Fatalf("NextNonce %d after the reorg, want 5 (nonce free again)", n)
	}
	h.none(EffectDispatch, "q1")
	h.newHead(okReceipt("h1")) // 104: lands, this time successfully
	h.heads(2)                 // 106
	e = h.take(EffectCheck, "q1")
	h.checked(e, chain.TxStatus{Hash: "h1", State: chain.TxIncluded, Height: 104, Success: true}, nil)
	h.wantState(uid, store.Done)
	if n := len(h.tx(uid).Attempts); n != 1 {
		t.Fatalf("%d attempts, want 1", n)
	}

	// A failure that stays put is acted on once confirmed: a retry with a
	// fresh nonce.
	uid2 := h.enqueue("q2", typA, 1)[0]
	h.ok("q2", "h2")
	h.newHead(failReceipt("h2", "reverted")) // 107
	h.heads(2)                               // 109
	e = h.take(EffectCheck, "q2")
	h.checked(e, chain.TxStatus{Hash: "h2", State: chain.TxIncluded, Height: 107, Reason: "reverted"}, nil)
	h.wantState(uid2, store.Retry)
	h.tick(delayA)
	if e := h.take(EffectDispatch, "q2"); e.Sender.Nonce != 7 {
		t.Fatalf("retry nonce %d, want 7 (6 was consumed)", e.Sender.Nonce)
	}
}

// TestCoreRemoteInFlightAtCrash: a remote worker's attempt was in flight
// when the node stopped (no hash, no outcome). If the chain's nonce has moved
// past it, it may have landed: the transaction ends FAILED "ambiguous"
// instead of a second dispatch with a fresh nonce. If not, the retry reuses
// its nonce and does not read a new one from the chain.
func TestCoreRemoteInFlightAtCrash(t *testing.T) {
	for _, tc := range []struct {
		name      string
		nextNonce uint64
		ambiguous bool
	}{{"nonce moved on", 4, true}, {"nonce still free", 3, false}} {
		t.Run(tc.name, func(t *testing.T) {
			w := acct("w1", tc.nextNonce)
			w.Worker = "http://worker"
			h := newStopped(t, testConfig(), w)
			uid := h.commit("q1", typA, 1)[0].UID
			h.put(uid, store.Waiting, 0, att(1, "w1", 3, 1000, "", ""))
			h.bind("q1", "w1", uid, store.Blocked)
			h.start()
			if tc.ambiguous {
				h.none(EffectDispatch, "q1")
				h.wantState(uid, store.Failed)
				if !strings.Contains(h.tx(uid).Error, "ambiguous") {
					t.Fatalf("error %q", h.tx(uid).Error)
				}
				return
			}
			e := h.take(EffectDispatch, "q1")
			if e.Attempt != 2 || e.Sender.Nonce != 3 || e.SyncNonce {
				t.Fatalf("dispatch %+v, want attempt 2 at nonce 3 without a nonce sync", e)
			}
		})
	}
}

// TestCoreBoundWaitingGoneSender: a first dispatch interrupted by a stop,
// whose sender then left the configuration, is adopted: its attempt is
// checked, and the new sender's attempt is numbered after it (attempt 1 and
// its hash are kept).
func TestCoreBoundWaitingGoneSender(t *testing.T) {
	h := newStopped(t, testConfig(), acct("s1", 0))
	h.noSenderOK = true
	uid := h.commit("q1", typA, 1)[0].UID
	h.put(uid, store.Waiting, 0, att(1, "gone", 3, 1000, "h1", ""))
	h.bind("q1", "gone", uid, store.Blocked)
	h.start()
	h.answer("q1", chain.TxUnknown) // h1 never reached the chain
	e := h.take(EffectDispatch, "q1")
	if e.UID != uid || e.Attempt != 2 || e.Sender.AccountID != "s1" {
		t.Fatalf("dispatch %+v, want attempt 2 by s1", e)
	}
	if a := h.attempt(uid, 1); a.Hash != "h1" || a.Sender != "gone" {
		t.Fatalf("attempt 1 overwritten: %+v", a)
	}
}

// TestCoreForgetsIdleQueues: idle queues are dropped from memory every
// compactEvery heads, and one that gets a new transaction works as before.
func TestCoreForgetsIdleQueues(t *testing.T) {
	h := newHarness(t, testConfig(), acct("s1", 0))
	uid := h.enqueue("q1", typA, 1)[0]
	h.complete("q1", "h1")
	h.wantState(uid, store.Done)
	for h.head%compactEvery != 0 {
		h.newHead()
	}
	if _, ok := h.c.queues["q1"]; ok || len(h.c.order) != 0 {
		t.Fatalf("idle queue kept: %d queues in order", len(h.c.order))
	}
	uid2 := h.enqueue("q1", typA, 1)[0]
	e := h.take(EffectDispatch, "q1")
	if e.UID != uid2 || e.Sender.Nonce != 1 {
		t.Fatalf("dispatch after compaction %+v", e)
	}
}
