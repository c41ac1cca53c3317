package smm

import (
	"testing"

	"github.com/ordolabs/ordo/internal/store"
)

// TestCatchUpBeforeTakingTheQueueOn: a secondary promoted with less than
// another member holds (the sim's finding: it would take the queue on
// with less, and have the others reset to its shorter log, losing what
// the old primary acknowledged) first pulls what it lacks from the most
// advanced member that answers; its adopted records then hold every
// intent of that longer log.
func TestCatchUpBeforeTakingTheQueueOn(t *testing.T) {
	h := newHarness(t, harnessOpts{nodes: 3})
	a, b, c := h.nodes[0], h.nodes[1], h.nodes[2]
	h.putSet("q", a, b, c)
	uids := h.intents(a, "q", 5)
	h.copyLog(a, b, "q", 5) // b holds everything a acknowledged
	h.copyLog(a, c, "q", 2) // c, promoted below, only the first two
	h.putSet("q", c, a, b)
	if err := c.ensureAdopted(h.ctx, "q"); err != nil {
		t.Fatal(err)
	}
	if got, want := h.head(c, "q"), h.head(b, "q"); got != want {
		t.Fatalf("the new primary's head %d, the most advanced member's %d", got.Clock, want.Clock)
	}
	h.sameLog(b, c, "q")
	for _, u := range uids {
		if _, err := c.st.Get(h.ctx, u); err != nil {
			t.Errorf("intent %s not adopted: %v", u, err)
		}
	}
}

// TestCatchUpAfterDiskLoss: a primary whose log is empty (its disk lost)
// takes nothing on from that empty log: its first sync job catches it up
// from its secondaries instead of resetting them to nothing.
func TestCatchUpAfterDiskLoss(t *testing.T) {
	h := newHarness(t, harnessOpts{nodes: 3})
	a, b, c := h.nodes[0], h.nodes[1], h.nodes[2]
	h.putSet("q", a, b, c)
	h.intents(a, "q", 4)
	h.copyLog(a, b, "q", 4)
	h.copyLog(a, c, "q", 3)
	// c is made primary of a set in which it is behind b: as a primary
	// back from a lost disk is behind its secondaries.
	h.putSet("q", c, a, b)
	if err := c.recurringSync(h.ctx, syncArgs{Queue: "q", Secondary: b.id}); err != nil {
		t.Fatal(err)
	}
	if got := h.head(b, "q"); got.Clock != 4 {
		t.Fatalf("b was reset to %d entries, it held 4", got.Clock)
	}
	h.sameLog(b, c, "q")
}

// TestRecatchFromASecondaryAhead: a primary that took the queue on
// without hearing from a secondary holding more (a majority answered
// without it) catches up from it once monitoring sees it ahead, instead
// of syncing it down to the shorter head.
func TestRecatchFromASecondaryAhead(t *testing.T) {
	h := newHarness(t, harnessOpts{nodes: 3})
	a, b, c := h.nodes[0], h.nodes[1], h.nodes[2]
	h.putSet("q", a, b, c)
	uids := h.intents(a, "q", 6)
	h.copyLog(a, b, "q", 6)
	h.copyLog(a, c, "q", 2)
	h.putSet("q", c, a, b)
	c.mu.Lock()
	c.core.queue("q").becomeAdopted() // took it on from its 2 entries
	c.mu.Unlock()
	st := c.gather(h.ctx, []store.ReplicaSet{h.chainSet("q")})
	seeState(c, st[0])
	if err := c.findSyncRequests(h.ctx, sliceArgs{Queues: []string{"q"}}); err != nil {
		t.Fatal(err)
	}
	if got := h.head(c, "q"); got.Clock != 6 {
		t.Fatalf("the primary's head %d after seeing a secondary at 6", got.Clock)
	}
	if js := h.jobs(c, KindRecurringSync); len(js) != 0 {
		t.Fatalf("%d recurring syncs: the secondary ahead was synced down", len(js))
	}
	for _, u := range uids {
		if _, err := c.st.Get(h.ctx, u); err != nil {
			t.Errorf("intent %s not adopted: %v", u, err)
		}
	}
}
