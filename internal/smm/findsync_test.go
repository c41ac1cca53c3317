package smm

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/replog"
)

// seeState sets what monitoring saw of a queue on n.
func seeState(n *testNode, st QueueState) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.core.seen[st.Set.Queue] = st
	// The state is made up, not on chain: a primary of it has taken the
	// queue on already (find-sync-requests syncs only from such a log).
	if st.Set.Primary == n.self {
		n.core.queue(st.Set.Queue).becomeAdopted()
	}
}

// noteFailedSync counts a failed sync of a pair on n today.
func (n *testNode) noteFailedSync(queue, secondary string) {
	_, _ = n.step(context.Background(), SyncFailed(queue, secondary))
}

// TestJobFindSyncRequests: find-sync-requests inserts an
// issue-recurring-sync-request only on the primary, for each secondary
// behind or diverged (reached), one per (queue, secondary) however often
// it runs, within the pair's daily budget of failed syncs.
func TestJobFindSyncRequests(t *testing.T) {
	h := newHarness(t, harnessOpts{nodes: 4, config: func(c *Config) { c.MaxFailedSyncs = 2 }})
	a, b, c, d := h.nodes[0], h.nodes[1], h.nodes[2], h.nodes[3]
	set := ReplicaSet{Queue: "q", Primary: a.id, Secondaries: []string{b.id, c.id, d.id}, Version: 1}
	head := func(clock uint64, tag byte) replog.Head { return replog.Head{Clock: clock, Hash: replog.Hash{tag}} }
	state := func(members ...Member) QueueState {
		st := QueueState{Set: set, Members: map[string]Member{}}
		for _, m := range members {
			st.Members[m.Node] = m
		}
		return st
	}
	cases := []struct {
		name   string
		on     *testNode
		st     QueueState
		failed map[string]int // secondary → failed syncs noted today
		want   []string       // secondaries with a recurring sync, sorted
	}{
		{"behind, equal, diverged", a, state(
			Member{Node: a.id, Reached: true, Head: head(5, 1)},
			Member{Node: b.id, Reached: true, Head: head(3, 1)},
			Member{Node: c.id, Reached: true, Head: head(5, 1)},
			Member{Node: d.id, Reached: true, Head: head(5, 9)}), nil, []string{b.id, d.id}},
		// A secondary ahead of its primary holds what the primary lacks:
		// the primary catches up from it (recatch) rather than syncing it
		// to the shorter head.
		{"ahead of the primary: no sync, the primary catches up", a, state(
			Member{Node: a.id, Reached: true, Head: head(5, 1)},
			Member{Node: b.id, Reached: true, Head: head(7, 2)},
			Member{Node: c.id, Reached: true, Head: head(5, 1)},
			Member{Node: d.id, Reached: true, Head: head(5, 1)}), nil, nil},
		{"not on a secondary", b, state(
			Member{Node: a.id, Reached: true, Head: head(5, 1)},
			Member{Node: b.id, Reached: true, Head: head(3, 1)},
			Member{Node: c.id, Reached: true, Head: head(1, 1)},
			Member{Node: d.id, Reached: true, Head: head(0, 0)}), nil, nil},
		{"unreached secondary left alone", a, state(
			Member{Node: a.id, Reached: true, Head: head(5, 1)},
			Member{Node: b.id, Reached: false, UnhealthySince: h.clk.Now()},
			Member{Node: c.id, Reached: true, Head: head(4, 1)},
			Member{Node: d.id, Reached: true, Head: head(5, 1)}), nil, []string{c.id}},
		{"unreached primary: none", a, state(
			Member{Node: a.id, Reached: false},
			Member{Node: b.id, Reached: true, Head: head(3, 1)},
			Member{Node: c.id, Reached: true, Head: head(4, 1)},
			Member{Node: d.id, Reached: true, Head: head(5, 1)}), nil, nil},
		{"budget spent for one pair", a, state(
			Member{Node: a.id, Reached: true, Head: head(5, 1)},
			Member{Node: b.id, Reached: true, Head: head(3, 1)},
			Member{Node: c.id, Reached: true, Head: head(4, 1)},
			Member{Node: d.id, Reached: true, Head: head(5, 1)}), map[string]int{b.id: 2, c.id: 1}, []string{c.id}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := "q-" + tc.name
			st := tc.st
			st.Set.Queue = q
			for s, k := range tc.failed {
				for range k {
					tc.on.noteFailedSync(q, s)
				}
			}
			seeState(tc.on, st)
			for range 3 { // unique per (queue, secondary): running again adds none
				if err := tc.on.findSyncRequests(h.ctx, sliceArgs{Queues: []string{q}}); err != nil {
					t.Fatal(err)
				}
			}
			var got []string
			for _, j := range h.jobs(tc.on, KindRecurringSync) {
				var sa syncArgs
				mustJSON(t, j.Args, &sa)
				if sa.Queue != q {
					continue
				}
				if j.UniqueKey != "sync/"+q+"/"+sa.Secondary {
					t.Errorf("job %d unique key %q", j.ID, j.UniqueKey)
				}
				got = append(got, sa.Secondary)
			}
			if !slices.Equal(sortedIDs(got), sortedIDs(tc.want)) {
				t.Fatalf("recurring syncs for %v, want %v", short(got), short(tc.want))
			}
		})
	}
}

// TestJobFindSyncRequestsBudgetResetsDaily: a pair whose budget is spent gets
// no sync until the day (UTC) ends, then gets one.
func TestJobFindSyncRequestsBudgetResetsDaily(t *testing.T) {
	h := newHarness(t, harnessOpts{nodes: 2, config: func(c *Config) { c.MaxFailedSyncs = 1 }})
	a, b := h.nodes[0], h.nodes[1]
	st := QueueState{Set: ReplicaSet{Queue: "q", Primary: a.id, Secondaries: []string{b.id}, Version: 1}, Members: map[string]Member{
		a.id: {Node: a.id, Reached: true, Head: replog.Head{Clock: 4, Hash: replog.Hash{1}}},
		b.id: {Node: b.id, Reached: true, Head: replog.Head{Clock: 2, Hash: replog.Hash{1}}},
	}}
	seeState(a, st)
	a.noteFailedSync("q", b.id)
	if err := a.findSyncRequests(h.ctx, sliceArgs{Queues: []string{"q"}}); err != nil {
		t.Fatal(err)
	}
	if js := h.jobs(a, KindRecurringSync); len(js) != 0 {
		t.Fatalf("budget spent: %d recurring syncs", len(js))
	}
	h.clk.Advance(24 * time.Hour)
	if err := a.findSyncRequests(h.ctx, sliceArgs{Queues: []string{"q"}}); err != nil {
		t.Fatal(err)
	}
	if js := jobArgs[syncArgs](h, a, KindRecurringSync); len(js) != 1 || js[0] != (syncArgs{Queue: "q", Secondary: b.id}) {
		t.Fatalf("the next day: %+v", js)
	}
}
