package procs_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/procs"
	"github.com/ordolabs/ordo/internal/smm"
)

// regrowWait bounds TestReplicaSetGrowsBackProcs's wait for the full set
// after the secondary's return: far more than the one
// monitoring cycle plus one mapping period (5s here).
const regrowWait = 3 * time.Minute

// TestReplicaSetGrowsBackProcs (issue 26): a secondary lost and returned,
// and its set back to full size. Three `ordo serve` set up as
// TestReplicationFailoverProcs's; intents for one queue until every
// member holds the primary's clock; then a secondary is killed with
// SIGKILL (its data directory kept) and the chain's set shrinks to the
// two others (three nodes: no spare to take its place); more intents go
// to the primary while it is away; then its process starts again. Within
// regrowWait of that start the chain's set names three members again,
// the returned node among them, and the returned node's own head of the
// queue (GET /v1/queues/<queue> on it) is the primary's. It runs twice:
// the node back with its data directory, and back without it (its
// identity key kept, its store new and empty).
func TestReplicaSetGrowsBackProcs(t *testing.T) {
	for _, tc := range []struct {
		name string
		wipe bool
	}{{"with its disk", false}, {"without its disk", true}} {
		t.Run(tc.name, func(t *testing.T) { growsBack(t, tc.wipe) })
	}
}

// growsBack is one run of TestReplicaSetGrowsBackProcs; wipe removes the
// lost node's data directory before it starts again.
func growsBack(t *testing.T, wipe bool) {
	c := startReplicated(t)
	ctx := t.Context()
	dc := c.Chain()
	unhealthyAfter, blockTime := replTimings(t, c)

	in := &intake{c: c, byStatus: map[int]int{}}
	const before, away = 10, 10
	for k := range before {
		in.submit(t, k%3, k)
	}
	st := synced(t, c, 0)
	lost := c.Index(st.Members[len(st.Members)-1].Node)
	if lost < 0 || st.Members[len(st.Members)-1].Role != "secondary" {
		t.Fatalf("set v%d %+v: its last member is not a secondary of the committee", st.Version, st.Members)
	}
	lostID := c.NodeID(lost)
	t.Logf("set v%d: primary node%d, every member at clock %d; node%d (a secondary) lost", st.Version, c.Index(st.Primary)+1, st.Members[0].Clock, lost+1)

	killHead, err := dc.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	if err := c.Kill(lost); err != nil {
		t.Fatal(err)
	}
	var shrunk devchain.ReplicaSet
	shrunkAt := pollUntil(t, unhealthyAfter+failoverSlack*blockTime+10*time.Second, "the chain's set without the lost secondary", func() (bool, string) {
		s, err := chainSet(ctx, dc)
		if err != nil {
			return false, err.Error()
		}
		shrunk = s
		return s.Version > st.Version && len(s.Members()) == 2 && !slices.Contains(s.Members(), lostID), describeSet(c, s)
	})
	ua := blocks(unhealthyAfter, blockTime)
	t.Logf("shrunk: %s, %d blocks / %.1fs after the kill (%.1f blocks after unhealthyAfter)",
		describeSet(c, shrunk), shrunk.Height-killHead.Height, shrunkAt.Sub(killed).Seconds(), float64(shrunk.Height-killHead.Height)-ua)

	// The queue moves on without it: the returned node has entries to
	// catch up on.
	pi := c.Index(shrunk.Primary)
	for k := before; k < before+away; k++ {
		in.submit(t, pi, k)
	}
	// It stays away until the primary has monitored the shrunk set for
	// two full cycles: no probe of the old set is still waiting for it
	// (a return within a probe's timeout is a blip, not the loss and
	// return the issue names).
	cycles := -1
	pollUntil(t, 30*time.Second, "two monitoring cycles of the shrunk set at the primary", func() (bool, string) {
		var sm smm.Status
		q, ok := queueStatus(ctx, c, pi)
		_, err := c.Request(ctx, pi, http.MethodGet, "/v1/smm", nil, &sm)
		if !ok || err != nil || q.Version < shrunk.Version {
			return false, fmt.Sprintf("primary node%d holds v%d (%v)", pi+1, q.Version, err)
		}
		if cycles < 0 {
			cycles = sm.Cycles
		}
		return sm.Cycles >= cycles+2, fmt.Sprintf("primary node%d holds v%d, %d cycles since", pi+1, q.Version, sm.Cycles-cycles)
	})

	how := "with its data"
	if wipe {
		if err := c.RemoveData(lost); err != nil {
			t.Fatal(err)
		}
		how = "without its data"
	}
	returnHead, err := dc.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	returned := time.Now()
	if err := c.Start(ctx, lost); err != nil {
		t.Fatal(err)
	}
	t.Logf("node%d started again %s after %.1fs away, ready %.1fs later", lost+1, how, returned.Sub(killed).Seconds(), time.Since(returned).Seconds())

	var (
		grown   devchain.ReplicaSet
		grownAt time.Time
		primClk uint64
	)
	fullAt := pollUntil(t, regrowWait, "the chain's set back to 3 members and the returned node at the primary's clock", func() (bool, string) {
		s, err := chainSet(ctx, dc)
		if err != nil {
			return false, err.Error()
		}
		desc := "chain: " + describeSet(c, s)
		if len(s.Members()) != 3 || !slices.Contains(s.Members(), lostID) {
			return false, desc
		}
		if grownAt.IsZero() {
			grown, grownAt = s, time.Now()
		}
		gp := c.Index(s.Primary)
		if gp < 0 {
			return false, desc
		}
		ps, ok1 := queueStatus(ctx, c, gp)
		p, ok2 := self(ps, s.Primary)
		rs, ok3 := queueStatus(ctx, c, lost)
		r, ok4 := self(rs, lostID)
		primClk = p.Clock
		return ok1 && ok2 && ok3 && ok4 && r.Clock == p.Clock && r.Hash == p.Hash,
			fmt.Sprintf("%s; primary node%d at clock %d, returned node%d at clock %d", desc, gp+1, p.Clock, lost+1, r.Clock)
	})
	t.Logf("grown back: %s, %d blocks / %.1fs after the return; the returned node at the primary's clock %d (was %d when lost) %.1fs after the return",
		describeSet(c, grown), grown.Height-returnHead.Height, grownAt.Sub(returned).Seconds(), primClk, st.Members[0].Clock, fullAt.Sub(returned).Seconds())
	if len(in.acked) != before+away {
		t.Errorf("%d intents acknowledged, %d sent", len(in.acked), before+away)
	}
}

// pollUntil polls cond every 50ms until it holds or d passes, and
// returns when it held; on the deadline it fails t with what was awaited
// and cond's last description of what it saw (every node's view is
// logged at the end: startReplicated).
func pollUntil(t *testing.T, d time.Duration, what string, cond func() (bool, string)) time.Time {
	t.Helper()
	start := time.Now()
	for {
		ok, last := cond()
		if ok {
			return time.Now()
		}
		if time.Since(start) > d {
			t.Fatalf("timed out after %s waiting for %s; last seen: %s", d, what, last)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// describeSet is s with its members named node<i>.
func describeSet(c *procs.Committee, s devchain.ReplicaSet) string {
	name := func(id string) string { return fmt.Sprintf("node%d", c.Index(id)+1) }
	secs := make([]string, len(s.Secondaries))
	for i, id := range s.Secondaries {
		secs[i] = name(id)
	}
	return fmt.Sprintf("v%d primary %s secondaries %v (block %d, signed by %s)", s.Version, name(s.Primary), secs, s.Height, name(s.UpdatedBy))
}
