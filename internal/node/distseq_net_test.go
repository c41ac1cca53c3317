package node

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"
)

// The scenarios of internal/distseq/cluster (seed 003) over the real
// transport (issue 11, "Tests"): four full nodes in this process, each
// built from its config and served, gRPC with mutual TLS on loopback
// between them, one devchain over HTTP, intents sent through ptx over
// HTTP. Each asserts on outcomes (committee.audit): every intent
// acknowledged is confirmed once on chain and in its sender's record, no
// state is spent twice, and every created state reaches every member.

// netCoins is what the scenarios' group is minted: enough coins that
// concurrent assemblies rarely wait for one another's change.
func netCoins() []uint64 {
	c := make([]uint64, 32)
	for i := range c {
		c[i] = 1000
	}
	return c
}

// sendRound sends one intent to each member in members (keyed
// "<tag>/<member>/<round>") and records it in sent.
func (h *committee) sendRound(sent map[string]int, tag string, round int, members ...int) {
	h.t.Helper()
	for _, i := range members {
		sent[h.send(i, fmt.Sprintf("%s/%d/%d", tag, i, round), uint64(1+round%5))] = i
	}
}

// untilNextBlock waits until the chain's head passes its height now: the
// pace of a steady load.
func (h *committee) untilNextBlock() {
	h.t.Helper()
	hd, err := h.dc.Head(h.ctx)
	if err != nil {
		h.t.Fatal(err)
	}
	waitUntil(h.t, 5*time.Second, "the next block", func() bool {
		n, err := h.dc.Head(h.ctx)
		return err == nil && n.Height > hd.Height
	})
}

// agreedCoordinator waits until every member in members names the same
// coordinator of "g" and returns it.
func (h *committee) agreedCoordinator(members ...int) int {
	h.t.Helper()
	c := -1
	waitUntil(h.t, 10*time.Second, "the members agree on a coordinator", func() bool {
		c = h.coordinator(members[0])
		for _, i := range members[1:] {
			if h.coordinator(i) != c {
				return false
			}
		}
		return c >= 0
	})
	return c
}

func others(n, but int) []int {
	var out []int
	for i := range n {
		if i != but {
			out = append(out, i)
		}
	}
	return out
}

// TestDistseqNetHappyPath: intents sent to every member are each
// confirmed once, all dispatched by the one coordinator of the range, and
// their created states reach every member; a resend under an idempotency
// key answers the same id.
func TestDistseqNetHappyPath(t *testing.T) {
	h := newCommittee(t, committeeConfig{Nodes: 4, Coins: netCoins()})
	all := []int{0, 1, 2, 3}
	sent := map[string]int{}
	for r := range 3 {
		h.sendRound(sent, "happy", r, all...)
	}
	if id := h.send(2, "happy/2/1", 2); sent[id] != 2 {
		t.Errorf("a resend under key happy/2/1 answered %s, not the id first answered", id)
	}
	h.audit(sent)
	c := h.agreedCoordinator(all...)
	for _, s := range h.submitters(sent) {
		if s != c {
			t.Fatalf("confirms submitted by members %v, want all by the coordinator %d", h.submitters(sent), c)
		}
	}
}

// TestDistseqNetSwitchover: ranges of 8 blocks under a steady load (one
// intent a block, round robin); the load runs until the chain shows the
// coordinator changed at least twice (confirms submitted by one member's
// sender, then another's, then another's). Every intent is confirmed once.
func TestDistseqNetSwitchover(t *testing.T) {
	h := newCommittee(t, committeeConfig{Nodes: 4, RangeSize: 8, Coins: netCoins()})
	sent := map[string]int{}
	seen := map[int]bool{}
	changes := func() int {
		subs := h.submitters(sent)
		n := 0
		for i := 1; i < len(subs); i++ {
			if subs[i] != subs[i-1] {
				n++
			}
		}
		return n
	}
	deadline := time.Now().Add(30 * time.Second)
	for r := 0; changes() < 2; r++ {
		if time.Now().After(deadline) {
			t.Fatalf("the coordinator changed %d times in 30s of load (submitters %v), want 2", changes(), h.submitters(sent))
		}
		h.sendRound(sent, "switch", r, r%4)
		seen[h.coordinator(r%4)] = true
		h.untilNextBlock()
	}
	h.audit(sent)
	subs := h.submitters(sent)
	t.Logf("%d intents; submitters in chain order %v; coordinators seen %v", len(sent), subs, slices.Sorted(maps.Keys(seen)))
	if slices.Contains(subs, -1) {
		t.Errorf("a confirm was submitted by an account of no member: %v", subs)
	}
	if len(seen) < 2 {
		t.Errorf("the members named coordinators %v during the load, want at least two", seen)
	}
}

// TestDistseqNetCoordinatorFailover: the coordinator is stopped hard
// (its Serve cancelled, its node closed, nothing handed over) with
// intents of its own and of others in flight; intents keep coming to the
// three others (threshold 3), which re-delegate after the missed
// heartbeats and get theirs confirmed by another coordinator. Restarted
// from its data directory, the stopped node gets everything it
// acknowledged confirmed too.
func TestDistseqNetCoordinatorFailover(t *testing.T) {
	h := newCommittee(t, committeeConfig{Nodes: 4, Threshold: 3, Coins: netCoins()})
	all := []int{0, 1, 2, 3}
	warm := map[string]int{}
	h.sendRound(warm, "warm", 0, all...)
	h.untilConfirmed(20*time.Second, warm)
	c := h.agreedCoordinator(all...)
	rest := others(4, c)
	t.Logf("coordinator: member %d", c)

	before := map[string]int{}
	h.sendRound(before, "before", 0, all...)
	h.sendRound(before, "before", 1, all...)
	h.stop(c)

	during := map[string]int{}
	for r := range 5 { // a steady load, one round a block
		h.sendRound(during, "during", r, rest...)
		h.untilNextBlock()
	}
	live := maps.Clone(during)
	for id, i := range before {
		if i != c {
			live[id] = i
		}
	}
	// Confirmed while the coordinator is down: by another member's
	// sender, after the senders re-delegated.
	h.untilConfirmed(30*time.Second, live)
	for _, s := range h.submitters(during) {
		if s < 0 || s == c {
			t.Errorf("the intents sent while member %d was down were submitted by %v, want live members only", c, h.submitters(during))
			break
		}
	}

	h.start(c)
	after := map[string]int{}
	h.sendRound(after, "after", 0, all...)
	sent := maps.Clone(warm)
	maps.Copy(sent, before)
	maps.Copy(sent, during)
	maps.Copy(sent, after)
	h.audit(sent)
}

// TestDistseqNetPartition: every connection of the coordinator is cut
// (each directed pair runs through a TCP proxy; its proxies close their
// live connections and refuse new ones) while intents keep coming to all
// four: the three others (threshold 3) get theirs confirmed meanwhile,
// the isolated member none. Healed, everything is confirmed once and no
// state is spent twice.
func TestDistseqNetPartition(t *testing.T) {
	h := newCommittee(t, committeeConfig{Nodes: 4, Threshold: 3, Proxied: true, Coins: netCoins()})
	all := []int{0, 1, 2, 3}
	warm := map[string]int{}
	h.sendRound(warm, "warm", 0, all...)
	h.untilConfirmed(20*time.Second, warm)
	c := h.agreedCoordinator(all...)
	t.Logf("isolated: member %d, the coordinator", c)

	h.isolate(c)
	cut := map[string]int{}
	for r := range 5 { // a steady load, one round a block
		h.sendRound(cut, "cut", r, all...)
		h.untilNextBlock()
	}
	majority := map[string]int{}
	for id, i := range cut {
		if i != c {
			majority[id] = i
		}
	}
	h.untilConfirmed(30*time.Second, majority)
	for _, s := range h.submitters(majority) {
		if s == c {
			t.Errorf("an intent sent during the partition was submitted by the isolated member %d", c)
		}
	}
	for id, i := range cut {
		if _, ok := h.intent(id); i == c && ok {
			t.Errorf("%s of the isolated member %d confirmed during the partition", id, c)
		}
	}
	h.heal(c)
	after := map[string]int{}
	h.sendRound(after, "healed", 0, all...)
	sent := maps.Clone(warm)
	maps.Copy(sent, cut)
	maps.Copy(sent, after)
	h.audit(sent)
	t.Logf("submitters in chain order: %v", h.submitters(sent))
}
