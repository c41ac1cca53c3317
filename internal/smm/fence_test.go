package smm

import (
	"errors"
	"testing"
)

// TestFenceDeposedPrimary: a primary replaced on chain that has not read
// the update yet keeps taking intents and pushing them. What it pushed
// before its new primary's catch-up reached a member is caught up; the
// catch-up's heads request carries the new version, so each member it
// reaches reads the new set and refuses the old primary from then on
// (stale_replica_set); the old primary, refused, reads the chain, learns
// it is deposed and closes its sequencer's dispatch of the queue.
func TestFenceDeposedPrimary(t *testing.T) {
	h := newHarness(t, harnessOpts{nodes: 4, config: func(c *Config) { c.AckAfter = 1 }})
	a, b, c, d := h.nodes[0], h.nodes[1], h.nodes[2], h.nodes[3]
	h.putSet("q", a, b, c)
	h.intents(a, "q", 3)
	h.copyLog(a, b, "q", 3)
	h.copyLog(a, c, "q", 3)

	h.writeSet("q", b, c, d) // a is deposed; nobody has read it yet
	late := h.intents(a, "q", 1)
	if err := a.manualSync(h.ctx, syncArgs{Queue: "q", Secondary: c.id}); err != nil {
		t.Fatalf("a's push before the new primary reached c: %v", err)
	}
	if got := h.head(c, "q").Clock; got != 4 {
		t.Fatalf("c holds %d entries before the fence, want 4", got)
	}

	if _, _, err := b.refreshSet(h.ctx, "q"); err != nil { // promoted: catches up, adopts
		t.Fatalf("b takes the queue on: %v", err)
	}
	if got := h.head(b, "q").Clock; got != 4 {
		t.Fatalf("the new primary holds %d entries, want the 4 a pushed to c", got)
	}
	if _, err := b.st.Get(h.ctx, late[0]); err != nil {
		t.Fatalf("the intent a pushed before the fence is not adopted: %v", err)
	}
	if a.seq.isClosed("q") {
		t.Fatal("a closed before it learnt")
	}

	h.intents(a, "q", 1) // after the fence
	err := a.manualSync(h.ctx, syncArgs{Queue: "q", Secondary: c.id})
	if CodeOf(err) != CodeStale {
		t.Fatalf("a's push after the fence: %v, want %s", err, CodeStale)
	}
	if got := h.head(c, "q").Clock; got != 4 {
		t.Fatalf("c holds %d entries after refusing, want 4", got)
	}
	if !a.seq.isClosed("q") {
		t.Fatal("a, refused and deposed, did not close its dispatch of q")
	}
	if b.seq.isClosed("q") {
		t.Fatal("the new primary's dispatch of q is closed")
	}
}

// TestCatchUpNeedsFencedMembers: with AckAfter 1 a new primary takes the
// queue on only once every member answered under its version: one that
// cannot be reached may hold an intent the old primary acknowledged.
func TestCatchUpNeedsFencedMembers(t *testing.T) {
	h := newHarness(t, harnessOpts{nodes: 4, config: func(c *Config) { c.AckAfter = 1 }})
	a, b, c, d := h.nodes[0], h.nodes[1], h.nodes[2], h.nodes[3]
	h.putSet("q", a, b, c)
	h.intents(a, "q", 2)
	h.copyLog(a, b, "q", 2)
	h.net.setDown(d.id, true)
	h.writeSet("q", b, c, d)
	if _, _, err := b.refreshSet(h.ctx, "q"); !errors.Is(err, ErrNoMajority) {
		t.Fatalf("b adopted with d unreached: %v, want ErrNoMajority", err)
	}
	h.net.setDown(d.id, false)
	_ = b.probeNode(h.ctx, probeArgs{Node: d.id}) // probe-node: the only request a node found unhealthy gets
	if err := b.ensureAdopted(h.ctx, "q"); err != nil {
		t.Fatalf("b adopts once d answers: %v", err)
	}
}

func TestQuorum(t *testing.T) {
	for _, tc := range []struct {
		members, ackAfter int
		empty             bool
		want              int
	}{
		{members: 1, want: 1},
		{members: 3, want: 2},
		{members: 3, empty: true, want: 3},
		{members: 3, ackAfter: 1, want: 3},
		{members: 3, ackAfter: 2, want: 2},
		{members: 5, ackAfter: 1, want: 5},
		{members: 5, ackAfter: 2, want: 4},
		{members: 5, ackAfter: 4, want: 3},
		{members: 5, want: 3},
		{members: 5, empty: true, want: 5},
		{members: 2, ackAfter: 3, want: 2},
	} {
		if got := Quorum(tc.members, tc.ackAfter, tc.empty); got != tc.want {
			t.Errorf("Quorum(%d, ackAfter %d, empty %v) = %d, want %d", tc.members, tc.ackAfter, tc.empty, got, tc.want)
		}
	}
}
