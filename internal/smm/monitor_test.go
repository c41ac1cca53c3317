package smm

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"
)

// TestJobMonitorStateSlices: monitor-state over 5 queues in slices of 2 records
// each queue's member heads, queues find-sync-requests and
// find-replica-set-updates for its slice and the next monitor-state at
// offset+size MonitorEvery later; past the end it wraps to 0, and the
// next slice at 0 closes the cycle (Status().LastCycle).
func TestJobMonitorStateSlices(t *testing.T) {
	h := newHarness(t, harnessOpts{nodes: 3})
	a, b, c := h.nodes[0], h.nodes[1], h.nodes[2]
	var queues []string
	for i := range 5 {
		q := fmt.Sprintf("q%d", i)
		queues = append(queues, q)
		h.putSet(q, a, b, c)
		h.intents(a, q, i+1)
		h.copyLog(a, b, q, i) // b one behind on each queue
	}
	cfg := testConfig()
	steps := []struct {
		offset   int
		slice    []string
		next     int
		advances time.Duration
	}{
		{0, queues[0:2], 2, time.Second},
		{2, queues[2:4], 4, time.Second},
		{4, queues[4:5], 0, time.Second},
	}
	start := h.clk.Now()
	for i, s := range steps {
		now := h.clk.Now()
		if err := a.monitorState(h.ctx, monitorArgs{Offset: s.offset}); err != nil {
			t.Fatalf("slice at %d: %v", s.offset, err)
		}
		for _, q := range s.slice {
			st := a.stateOf([]string{q})
			if len(st) != 1 {
				t.Fatalf("%s not recorded", q)
			}
			qi := slices.Index(queues, q)
			want := map[string]uint64{a.id: uint64(qi + 1), b.id: uint64(qi), c.id: 0}
			for id, clk := range want {
				m := st[0].Members[id]
				if !m.Reached || m.Head.Clock != clk || !m.UnhealthySince.IsZero() {
					t.Errorf("slice %d queue %s member %s: %+v, want clock %d, reached, healthy", i, q, id[:8], m, clk)
				}
			}
		}
		finds := jobArgs[sliceArgs](h, a, KindFindSyncRequests)
		if len(finds) != i+1 || !slices.Equal(finds[i].Queues, s.slice) {
			t.Fatalf("find-sync-requests after slice %d: %+v, want %v last", i, finds, s.slice)
		}
		rsus := jobArgs[sliceArgs](h, a, KindFindReplicaSetUpdates)
		if len(rsus) != i+1 || !slices.Equal(rsus[i].Queues, s.slice) {
			t.Fatalf("find-replica-set-updates after slice %d: %+v, want %v last", i, rsus, s.slice)
		}
		mons := h.jobs(a, KindMonitorState)
		var found bool
		for _, j := range mons {
			var ma monitorArgs
			_ = json.Unmarshal(j.Args, &ma)
			if ma.Offset == s.next && j.RunAt.Equal(now.Add(cfg.MonitorEvery)) {
				found = true
			}
		}
		if !found {
			t.Fatalf("slice %d: no monitor-state at offset %d due %v among %+v", i, s.next, now.Add(cfg.MonitorEvery), mons)
		}
		st, err := a.Status(h.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.SliceOffset != s.offset || !slices.Equal(st.Slice, s.slice) || st.Cycles != 0 {
			t.Fatalf("status after slice %d: %+v", i, st)
		}
		h.clk.Advance(s.advances)
	}
	// Back at 0: the cycle that started at start ends now.
	if err := a.monitorState(h.ctx, monitorArgs{Offset: 0}); err != nil {
		t.Fatal(err)
	}
	st, err := a.Status(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := h.clk.Now().Sub(start); st.Cycles != 1 || st.LastCycle != want.String() || !st.LastCycleEnd.Equal(h.clk.Now()) {
		t.Fatalf("status after a cycle: cycles %d, last %q at %v; want 1, %q at %v", st.Cycles, st.LastCycle, st.LastCycleEnd, want, h.clk.Now())
	}
	// An offset past the end (the queues shrank) starts again at 0.
	if err := a.monitorState(h.ctx, monitorArgs{Offset: 7}); err != nil {
		t.Fatal(err)
	}
	if st, _ := a.Status(h.ctx); st.SliceOffset != 0 || !slices.Equal(st.Slice, queues[0:2]) {
		t.Fatalf("offset 7 of 5 queues: %+v", st)
	}
}

// TestJobMonitorStateUnhealthy: a member that does not answer is recorded
// unreached and unhealthy since the slice that asked it; it stays
// unhealthy since then on the next slices, and healthy again once it
// answers.
func TestJobMonitorStateUnhealthy(t *testing.T) {
	h := newHarness(t, harnessOpts{nodes: 3})
	a, b, c := h.nodes[0], h.nodes[1], h.nodes[2]
	h.putSet("q", a, b, c)
	h.intents(a, "q", 2)
	h.net.setDown(c.id, true)
	t0 := h.clk.Now()
	if err := a.monitorState(h.ctx, monitorArgs{}); err != nil {
		t.Fatal(err)
	}
	check := func(what string, reached bool, since time.Time) {
		t.Helper()
		st := a.stateOf([]string{"q"})
		if len(st) != 1 {
			t.Fatalf("%s: q not recorded", what)
		}
		m := st[0].Members[c.id]
		if m.Reached != reached || !m.UnhealthySince.Equal(since) {
			t.Fatalf("%s: member c %+v, want reached %v, unhealthy since %v", what, m, reached, since)
		}
		if bm := st[0].Members[b.id]; !bm.Healthy() || bm.Head.Clock != 0 {
			t.Fatalf("%s: member b %+v", what, bm)
		}
	}
	check("down", false, t0)
	h.clk.Advance(10 * time.Second)
	if err := a.monitorState(h.ctx, monitorArgs{}); err != nil {
		t.Fatal(err)
	}
	check("still down", false, t0)
	h.net.setDown(c.id, false)
	h.clk.Advance(10 * time.Second)
	probes := jobArgs[probeArgs](h, a, KindProbeNode)
	if len(probes) != 1 || probes[0].Node != c.id {
		t.Fatalf("probes queued %+v, want one of c", probes)
	}
	if err := a.probeNode(h.ctx, probes[0]); err != nil { // c is asked by probe-node only
		t.Fatal(err)
	}
	if err := a.monitorState(h.ctx, monitorArgs{}); err != nil {
		t.Fatal(err)
	}
	check("back", true, time.Time{})
}
