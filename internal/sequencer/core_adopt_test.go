package sequencer

import (
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/store"
)

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
