package smm

import (
	"testing"

	"github.com/ordolabs/ordo/internal/jobq"
)

// failedSyncs is how many failed syncs of a pair n counted today.
func failedSyncs(n *testNode, queue, secondary string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.core.failed[queue+"\x00"+secondary].n
}

// TestJobManualSync: manual-sync pushes a secondary what it lacks (its log
// then equals the primary's), resends from the secondary's head when it
// answers a gap, and queues a recurring sync for a secondary whose log
// forked (leaving its log alone).
func TestJobManualSync(t *testing.T) {
	cases := []struct {
		name string
		// prepare gives the secondary its log (and the primary its idea
		// of it).
		prepare func(h *harness, a, b *testNode)
		// synced: b's log equals a's afterwards; else a recurring sync
		// is queued and b's head is kept.
		synced bool
		// pushed: something was pushed, so the primary notes the clock
		// the secondary holds (with nothing to push it notes none).
		pushed bool
	}{
		{"empty secondary", func(h *harness, a, b *testNode) {}, true, true},
		{"secondary behind", func(h *harness, a, b *testNode) { h.copyLog(a, b, "q", 2) }, true, true},
		{"secondary up to date", func(h *harness, a, b *testNode) { h.copyLog(a, b, "q", 5) }, true, false},
		{"gap: the primary thought it held more", func(h *harness, a, b *testNode) {
			h.copyLog(a, b, "q", 1)
			a.noteAcked("q", b.id, 3)
		}, true, true},
		{"forked secondary", func(h *harness, a, b *testNode) { h.fork(a, b, "q", 2, 1) }, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, harnessOpts{nodes: 2})
			a, b := h.nodes[0], h.nodes[1]
			h.putSet("q", a, b)
			h.intents(a, "q", 5)
			tc.prepare(h, a, b)
			before := h.head(b, "q")
			if err := a.manualSync(h.ctx, syncArgs{Queue: "q", Secondary: b.id}); err != nil {
				t.Fatal(err)
			}
			syncs := jobArgs[syncArgs](h, a, KindRecurringSync)
			if tc.synced {
				h.sameLog(a, b, "q")
				if c, ok := a.ackedClock("q", b.id); tc.pushed && (!ok || c != 5) {
					t.Fatalf("acked clock %d %v, want 5", c, ok)
				}
				if len(syncs) != 0 {
					t.Fatalf("recurring syncs %+v", syncs)
				}
				return
			}
			if len(syncs) != 1 || syncs[0] != (syncArgs{Queue: "q", Secondary: b.id}) {
				t.Fatalf("recurring syncs %+v, want one for b", syncs)
			}
			if got := h.head(b, "q"); got != before {
				t.Fatalf("forked secondary's head moved: %+v → %+v", before, got)
			}
		})
	}
}

// TestJobManualSyncNotPrimary: on a node that is not the queue's primary,
// or for a node that is not its secondary, manual-sync does nothing.
func TestJobManualSyncNotPrimary(t *testing.T) {
	h := newHarness(t, harnessOpts{nodes: 3})
	a, b, c := h.nodes[0], h.nodes[1], h.nodes[2]
	h.putSet("q", a, b)
	h.intents(a, "q", 3)
	for _, run := range []struct {
		on  *testNode
		sec string
	}{{b, b.id}, {b, a.id}, {a, c.id}} {
		if err := run.on.manualSync(h.ctx, syncArgs{Queue: "q", Secondary: run.sec}); err != nil {
			t.Fatal(err)
		}
	}
	if hb, hc := h.head(b, "q"), h.head(c, "q"); hb.Clock != 0 || hc.Clock != 0 {
		t.Fatalf("heads b %d c %d, want none pushed", hb.Clock, hc.Clock)
	}
}

// TestJobRecurringSync: issue-recurring-sync-request has the secondary pull
// up to the primary's head: a lagging one catches up, a diverged one
// (shorter, as long, or longer than the primary's log) is reset to the
// primary's log; no failure is counted.
func TestJobRecurringSync(t *testing.T) {
	cases := []struct {
		name    string
		prepare func(h *harness, a, b *testNode)
		bug     string
	}{
		{"empty", func(h *harness, a, b *testNode) {}, ""},
		{"lagging", func(h *harness, a, b *testNode) { h.copyLog(a, b, "q", 2) }, ""},
		{"diverged, shorter", func(h *harness, a, b *testNode) { h.fork(a, b, "q", 2, 1) }, ""},
		{"diverged, as long", func(h *harness, a, b *testNode) { h.fork(a, b, "q", 2, 3) }, ""},
		{"diverged from the first entry", func(h *harness, a, b *testNode) { h.fork(a, b, "q", 0, 5) }, ""},
		{"diverged, longer", func(h *harness, a, b *testNode) { h.fork(a, b, "q", 2, 5) }, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.bug != "" {
				t.Skip("BUG: " + tc.bug)
			}
			h := newHarness(t, harnessOpts{nodes: 2})
			a, b := h.nodes[0], h.nodes[1]
			h.putSet("q", a, b)
			h.intents(a, "q", 5)
			tc.prepare(h, a, b)
			if err := a.recurringSync(h.ctx, syncArgs{Queue: "q", Secondary: b.id}); err != nil {
				t.Fatal(err)
			}
			h.sameLog(a, b, "q")
			if n := failedSyncs(a, "q", b.id); n != 0 {
				t.Fatalf("%d failed syncs counted", n)
			}
		})
	}
}

// TestJobRecurringSyncDeadSecondary: a secondary that does not answer makes
// the recurring sync fail (cancelled: the next cycle finds it again) once
// SyncTimeout of virtual time has passed, and the failure counts against
// the pair's budget: with MaxFailedSyncs 1, find-sync-requests then
// leaves the pair alone.
func TestJobRecurringSyncDeadSecondary(t *testing.T) {
	h := newHarness(t, harnessOpts{nodes: 2, config: func(c *Config) { c.MaxFailedSyncs = 1 }})
	a, b := h.nodes[0], h.nodes[1]
	h.putSet("q", a, b)
	h.intents(a, "q", 3)
	h.net.setDown(b.id, true)
	cfg := testConfig()
	start := h.clk.Now()
	done := make(chan struct{})
	var err error
	go func() {
		defer close(done)
		err = a.recurringSync(h.ctx, syncArgs{Queue: "q", Secondary: b.id})
	}()
	h.advanceUntil(done, cfg.SyncPoll)
	if !jobq.IsCancel(err) {
		t.Fatalf("recurring sync of a dead secondary: %v, want a cancel", err)
	}
	if el := h.clk.Now().Sub(start); el < cfg.SyncTimeout {
		t.Fatalf("failed after %v of virtual time, before SyncTimeout %v", el, cfg.SyncTimeout)
	}
	if n := failedSyncs(a, "q", b.id); n != 1 {
		t.Fatalf("%d failed syncs counted, want 1", n)
	}
	if s, ok := a.unhealthySince(b.id); !ok || s.IsZero() {
		t.Fatalf("dead secondary not marked unhealthy: %v %v", s, ok)
	}
	// The budget (1 a day) is spent: find-sync-requests leaves the pair.
	h.net.setDown(b.id, false)
	if err := a.monitorState(h.ctx, monitorArgs{}); err != nil {
		t.Fatal(err)
	}
	if err := a.findSyncRequests(h.ctx, sliceArgs{Queues: []string{"q"}}); err != nil {
		t.Fatal(err)
	}
	if js := h.jobs(a, KindRecurringSync); len(js) != 0 {
		t.Fatalf("budget spent, yet %d recurring syncs", len(js))
	}
}
