package smm

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/jobq"
	"github.com/ordolabs/ordo/internal/store"
)

// TestJobReplicaSetUpdateDeadSecondary: a secondary that stopped answering
// for UnhealthyAfter is named by find-replica-set-updates (on the primary,
// which signs), and issue-replica-set-update replaces it by the least
// loaded healthy node: the chain's set moves to version+1, and the new
// member, once its queued manual sync runs, holds the primary's log.
func TestJobReplicaSetUpdateDeadSecondary(t *testing.T) {
	h := newHarness(t, harnessOpts{nodes: 5})
	a, b, c, d, e := h.nodes[0], h.nodes[1], h.nodes[2], h.nodes[3], h.nodes[4]
	h.putSet("other", a, b, d) // d holds a queue more than e
	v1 := h.putSet("q", a, b, c)
	h.intents(a, "q", 4)
	h.copyLog(a, b, "q", 4)
	h.copyLog(a, c, "q", 4)
	h.net.setDown(c.id, true)
	cfg := testConfig()
	if err := a.monitorState(h.ctx, monitorArgs{}); err != nil { // c unhealthy from now
		t.Fatal(err)
	}
	h.clk.Advance(cfg.UnhealthyAfter + cfg.RequestTimeout) // past the loss's own job: the slice plans it
	if err := a.monitorState(h.ctx, monitorArgs{}); err != nil {
		t.Fatal(err)
	}
	queues := []string{"other", "q"}
	for _, n := range []*testNode{a, b} {
		if err := n.findReplicaSetUpdates(h.ctx, sliceArgs{Queues: queues}); err != nil {
			t.Fatal(err)
		}
	}
	if js := h.jobs(b, KindReplicaSetUpdate); len(js) != 0 {
		t.Fatalf("a secondary queued %d updates: the primary signs", len(js))
	}
	ups := jobArgs[updateArgs](h, a, KindReplicaSetUpdate)
	if len(ups) != 1 || !slices.Equal(ups[0].Queues, []string{"q"}) {
		t.Fatalf("updates queued %+v, want one of q (other needs none)", ups)
	}
	if err := a.replicaSetUpdate(h.ctx, ups[0]); err != nil {
		t.Fatal(err)
	}
	got := h.chainSet("q")
	if got.Version != v1.Version+1 || got.Primary != a.id || !slices.Equal(got.Secondaries, []string{b.id, e.id}) {
		t.Fatalf("set on chain v%d %s %v, want v%d %s [b e]", got.Version, short([]string{got.Primary}), short(got.Secondaries), v1.Version+1, short([]string{a.id}))
	}
	if held, err := a.st.ReplicaSet(h.ctx, "q"); err != nil || held.Version != got.Version {
		t.Fatalf("held set %+v %v", held, err)
	}
	syncs := jobArgs[syncArgs](h, a, KindManualSync)
	if len(syncs) != 1 || syncs[0] != (syncArgs{Queue: "q", Secondary: e.id}) {
		t.Fatalf("manual syncs %+v, want e's", syncs)
	}
	if err := a.manualSync(h.ctx, syncs[0]); err != nil {
		t.Fatal(err)
	}
	h.sameLog(a, e, "q")
	if held, err := e.st.ReplicaSet(h.ctx, "q"); err != nil || held.Version != got.Version {
		t.Fatalf("the new member holds %+v %v", held, err)
	}
}

// TestJobReplicaSetUpdateDeadPrimary: a dead primary is replaced by the
// secondary with the highest clock, which signs the update and adopts the
// queue: its sequencer store then holds the queue's intents of its log
// WAITING in log order, except one the chain shows applied, adopted DONE;
// it queues a manual sync of each secondary.
func TestJobReplicaSetUpdateDeadPrimary(t *testing.T) {
	h := newHarness(t, harnessOpts{nodes: 4})
	a, b, c, d := h.nodes[0], h.nodes[1], h.nodes[2], h.nodes[3]
	v1 := h.putSet("q", a, b, c)
	uids := h.intents(a, "q", 6)
	h.copyLog(a, b, "q", 5) // b ahead of c
	h.copyLog(a, c, "q", 3)
	// The old primary had sent uids[1]: the chain applied it.
	args, _ := json.Marshal(map[string]string{"zkapp": "applied-before"})
	if ok, reason := h.send("zkapp", "deploy", args, uids[1]); !ok {
		t.Fatalf("intent applied on chain: %s", reason)
	}
	h.net.setDown(a.id, true)
	cfg := testConfig()
	for _, n := range []*testNode{b, c} {
		if err := n.monitorState(h.ctx, monitorArgs{}); err != nil {
			t.Fatal(err)
		}
	}
	h.clk.Advance(cfg.UnhealthyAfter + cfg.RequestTimeout) // past the loss's own job: the slice plans it
	for _, n := range []*testNode{b, c} {
		if err := n.monitorState(h.ctx, monitorArgs{}); err != nil {
			t.Fatal(err)
		}
		if err := n.findReplicaSetUpdates(h.ctx, sliceArgs{Queues: []string{"q"}}); err != nil {
			t.Fatal(err)
		}
	}
	if js := h.jobs(c, KindReplicaSetUpdate); len(js) != 0 {
		t.Fatalf("c queued %d updates: b, promoted, signs", len(js))
	}
	ups := jobArgs[updateArgs](h, b, KindReplicaSetUpdate)
	if len(ups) != 1 || !slices.Equal(ups[0].Queues, []string{"q"}) {
		t.Fatalf("updates queued at b %+v, want one of q", ups)
	}
	if err := b.replicaSetUpdate(h.ctx, ups[0]); err != nil {
		t.Fatal(err)
	}
	got := h.chainSet("q")
	if got.Version != v1.Version+1 || got.Primary != b.id || !slices.Equal(got.Secondaries, []string{c.id, d.id}) {
		t.Fatalf("set on chain v%d %s %v, want v%d b [c d]", got.Version, short([]string{got.Primary}), short(got.Secondaries), v1.Version+1)
	}
	recs, err := b.st.List(h.ctx, store.Filter{Queue: "q"})
	if err != nil {
		t.Fatal(err)
	}
	var waiting []string
	for _, r := range recs {
		switch {
		case r.UID == uids[1] && r.State != store.Done:
			t.Fatalf("intent applied on chain adopted %s", r.State)
		case r.UID != uids[1] && r.State != store.Waiting:
			t.Fatalf("intent %s adopted %s", r.UID, r.State)
		case r.State == store.Waiting:
			waiting = append(waiting, r.UID)
		}
	}
	if want := []string{uids[0], uids[2], uids[3], uids[4]}; !slices.Equal(waiting, want) || len(recs) != 5 {
		t.Fatalf("adopted %d records, WAITING %v; want 5, WAITING %v in log order", len(recs), waiting, want)
	}
	var syncs []string
	for _, s := range jobArgs[syncArgs](h, b, KindManualSync) {
		syncs = append(syncs, s.Secondary)
	}
	if !slices.Equal(sortedIDs(syncs), sortedIDs([]string{c.id, d.id})) {
		t.Fatalf("manual syncs from the new primary to %v, want c and d", short(syncs))
	}
	// The adoption is logged: the applied intent's final entry follows
	// the 5 entries b held.
	if hd := h.head(b, "q"); hd.Clock != 6 {
		t.Fatalf("new primary's head %d, want 6 (5 held + the adopted DONE)", hd.Clock)
	}
}

// TestJobReplicaSetUpdateStaleMapping: while the registry could not be
// read for more than 3 MappingEvery, no replica-set change is planned or
// made: find-replica-set-updates queues none and
// issue-replica-set-update ends cancelled, the chain's set unchanged.
func TestJobReplicaSetUpdateStaleMapping(t *testing.T) {
	h := newHarness(t, harnessOpts{nodes: 4})
	a, b, c := h.nodes[0], h.nodes[1], h.nodes[2]
	v1 := h.putSet("q", a, b, c)
	h.net.setDown(c.id, true)
	h.reg.fail.Store(true)
	cfg := testConfig()
	if err := a.monitorState(h.ctx, monitorArgs{}); err != nil {
		t.Fatal(err)
	}
	h.clk.Advance(3*cfg.MappingEvery + time.Second)
	if err := a.refreshMapping(h.ctx); err == nil {
		t.Fatal("refresh of a failing registry succeeded")
	}
	if err := a.monitorState(h.ctx, monitorArgs{}); err != nil {
		t.Fatal(err)
	}
	if err := a.findReplicaSetUpdates(h.ctx, sliceArgs{Queues: []string{"q"}}); err != nil {
		t.Fatal(err)
	}
	if js := h.jobs(a, KindReplicaSetUpdate); len(js) != 0 {
		t.Fatalf("%d updates queued on a stale mapping", len(js))
	}
	// The update job itself plans nothing on a stale mapping: it snoozes
	// (the queue is unsettled) and plans again once the mapping is fresh.
	err := a.replicaSetUpdate(h.ctx, updateArgs{Queue: "q", Unhealthy: []string{c.id}})
	if err == nil || jobq.IsCancel(err) || !strings.Contains(err.Error(), "snoozed") {
		t.Fatalf("update on a stale mapping: %v, want snoozed", err)
	}
	if got := h.chainSet("q"); got.Version != v1.Version || !slices.Equal(got.Secondaries, v1.Secondaries) {
		t.Fatalf("set on chain moved to v%d %v", got.Version, short(got.Secondaries))
	}
	// The registry back: the same update goes through.
	h.reg.fail.Store(false)
	if err := a.refreshMapping(h.ctx); err != nil {
		t.Fatal(err)
	}
	if err := a.replicaSetUpdate(h.ctx, updateArgs{Queue: "q", Unhealthy: []string{c.id}}); err != nil {
		t.Fatal(err)
	}
	if got := h.chainSet("q"); got.Version != v1.Version+1 || slices.Contains(got.Secondaries, c.id) {
		t.Fatalf("set on chain v%d %v after the mapping is fresh", got.Version, short(got.Secondaries))
	}
}

// TestJobRefreshMapping: refresh-mapping marks the mapping fresh; failures
// leave it fresh for 3 periods after the last success, stale after.
func TestJobRefreshMapping(t *testing.T) {
	h := newHarness(t, harnessOpts{nodes: 2})
	a := h.nodes[0]
	cfg := testConfig()
	status := func() Status {
		t.Helper()
		st, err := a.Status(h.ctx)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	if st := status(); !st.MappingFresh || !st.MappingReadAt.Equal(clock.Epoch) {
		t.Fatalf("after Open: fresh %v read at %v", st.MappingFresh, st.MappingReadAt)
	}
	h.reg.fail.Store(true)
	steps := []struct {
		advance time.Duration
		fresh   bool
	}{
		{cfg.MappingEvery, true},
		{cfg.MappingEvery, true},
		{cfg.MappingEvery, true}, // 3 periods: still fresh
		{time.Second, false},
	}
	for i, s := range steps {
		h.clk.Advance(s.advance)
		if err := a.refreshMapping(h.ctx); err == nil {
			t.Fatalf("step %d: refresh of a failing registry succeeded", i)
		}
		if st := status(); st.MappingFresh != s.fresh || !st.MappingReadAt.Equal(clock.Epoch) {
			t.Fatalf("step %d: fresh %v read at %v, want %v", i, st.MappingFresh, st.MappingReadAt, s.fresh)
		}
	}
	h.reg.fail.Store(false)
	if err := a.refreshMapping(h.ctx); err != nil {
		t.Fatal(err)
	}
	if st := status(); !st.MappingFresh || !st.MappingReadAt.Equal(h.clk.Now()) {
		t.Fatalf("after a refresh: fresh %v read at %v", st.MappingFresh, st.MappingReadAt)
	}
	// It is a periodic job: the job queue inserts it each period.
	waitFor(t, "a periodic refresh-mapping job", func() bool { return len(h.jobs(a, KindRefreshMapping)) > 0 })
}

// TestJobReplicaSetUpdateManyQueues: a node lost from several sets of one
// slice: find-replica-set-updates queues one job for the slice, and it
// replaces the node in every set.
func TestJobReplicaSetUpdateManyQueues(t *testing.T) {
	h := newHarness(t, harnessOpts{nodes: 4})
	a, b, c, d := h.nodes[0], h.nodes[1], h.nodes[2], h.nodes[3]
	queues := []string{"q1", "q2", "q3"}
	for _, q := range queues {
		h.putSet(q, a, b, c)
		h.intents(a, q, 2)
	}
	h.net.setDown(c.id, true)
	if err := a.monitorState(h.ctx, monitorArgs{}); err != nil {
		t.Fatal(err)
	}
	h.clk.Advance(testConfig().UnhealthyAfter + testConfig().RequestTimeout) // past the loss's own job
	if err := a.monitorState(h.ctx, monitorArgs{}); err != nil {             // slice q1, q2
		t.Fatal(err)
	}
	if err := a.findReplicaSetUpdates(h.ctx, sliceArgs{Queues: queues}); err != nil {
		t.Fatal(err)
	}
	ups := jobArgs[updateArgs](h, a, KindReplicaSetUpdate)
	if len(ups) != 1 || !slices.Equal(ups[0].Queues, []string{"q1", "q2"}) {
		t.Fatalf("updates queued %+v, want one job of the slice's q1 and q2", ups)
	}
	if err := a.replicaSetUpdate(h.ctx, ups[0]); err != nil {
		t.Fatal(err)
	}
	for _, q := range queues {
		got := h.chainSet(q)
		want := []string{b.id, d.id}
		if q == "q3" { // not in the slice monitored: untouched
			want = []string{b.id, c.id}
		}
		wantV := uint64(2)
		if q == "q3" {
			wantV = 1
		}
		if !slices.Equal(got.Secondaries, want) || got.Version != wantV {
			t.Fatalf("%s on chain v%d %v, want v%d %v", q, got.Version, short(got.Secondaries), wantV, short(want))
		}
	}
}
