package smm

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
	"github.com/ordolabs/ordo/internal/store"
)

// TestLossFailsOverEveryQueue: a primary found unhealthy by the first
// slice of monitoring (two queues of twelve) is a loss: the next
// find-replica-set-updates is due UnhealthyAfter after it was first left
// unanswered, and it plans every queue whose set names it, not the ones
// of one slice. The failovers this node signs go on chain from it, in one
// update_many; each new primary pushes its secondary.
func TestLossFailsOverEveryQueue(t *testing.T) {
	h := newHarness(t, harnessOpts{nodes: 3})
	a, b, c := h.nodes[0], h.nodes[1], h.nodes[2]
	var queues []string
	for i := range 12 {
		q := fmt.Sprintf("q%02d", i)
		queues = append(queues, q)
		h.putSet(q, c, a, b)
		h.intents(c, q, 2)
		h.copyLog(c, a, q, 2) // a ahead of b: a is promoted
		h.copyLog(c, b, q, 1)
	}
	h.net.setDown(c.id, true)
	lostAt := h.clk.Now()
	if err := a.monitorState(h.ctx, monitorArgs{}); err != nil {
		t.Fatal(err)
	}
	var loss []store.Job
	for _, j := range h.jobs(a, KindFindReplicaSetUpdates) {
		var args sliceArgs
		mustJSON(t, j.Args, &args)
		if args.Lost != "" {
			loss = append(loss, j)
		}
	}
	cfg := testConfig()
	if len(loss) != 1 || !loss[0].RunAt.Equal(lostAt.Add(cfg.UnhealthyAfter)) {
		t.Fatalf("loss jobs %+v, want one due at %v", loss, lostAt.Add(cfg.UnhealthyAfter))
	}
	var args sliceArgs
	mustJSON(t, loss[0].Args, &args)
	h.clk.Advance(cfg.UnhealthyAfter)
	if err := a.findReplicaSetUpdates(h.ctx, args); err != nil { // the failovers it signs, at once
		t.Fatal(err)
	}
	if ups := jobArgs[updateArgs](h, a, KindReplicaSetUpdate); len(ups) != 0 {
		t.Fatalf("updates queued %+v: the failovers go on chain from the loss's job", ups)
	}
	for _, q := range queues {
		got := h.chainSet(q)
		if got.Primary != a.id || got.Version != 2 || slices.Contains(got.Secondaries, c.id) {
			t.Fatalf("%s on chain: v%d %s %v, want v2 primary a without c", q, got.Version, short([]string{got.Primary}), short(got.Secondaries))
		}
	}
	if n := batchesSent(t, a); n != 1 {
		t.Fatalf("%d updateMany transactions, want the 12 failovers in one", n)
	}
	if syncs := jobArgs[syncArgs](h, a, KindManualSync); len(syncs) != len(queues) {
		t.Fatalf("%d manual syncs queued, want one per queue (b)", len(syncs))
	}
}

// batchesSent counts the updateMany calls n's sequencer took.
func batchesSent(t *testing.T, n *testNode) int {
	t.Helper()
	txs, err := n.st.List(t.Context(), store.Filter{Queue: SetsQueue, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	k := 0
	for _, tx := range txs {
		var c dispatch.Call
		if json.Unmarshal(tx.Data, &c) == nil && c.Method == devchain.ReplicaSetsUpdateMany {
			k++
		}
	}
	return k
}

// TestLossAnsweredAgainDoesNothing: a loss's job finds its node answering
// again (or lost again later: that loss has its own job) and plans
// nothing.
func TestLossAnsweredAgainDoesNothing(t *testing.T) {
	h := newHarness(t, harnessOpts{nodes: 3})
	a, b, c := h.nodes[0], h.nodes[1], h.nodes[2]
	h.putSet("q", c, a, b)
	h.net.setDown(c.id, true)
	since := h.clk.Now()
	if err := a.monitorState(h.ctx, monitorArgs{}); err != nil {
		t.Fatal(err)
	}
	h.net.setDown(c.id, false)
	a.markHealthAt(c.id, true, h.clk.Now())
	h.clk.Advance(testConfig().UnhealthyAfter)
	if err := a.findReplicaSetUpdates(h.ctx, sliceArgs{Lost: c.id, Since: since}); err != nil {
		t.Fatal(err)
	}
	if ups := h.jobs(a, KindReplicaSetUpdate); len(ups) != 0 {
		t.Fatalf("%d updates queued for a node that answers again", len(ups))
	}
}

// TestReturnedNodeGrowsTheSetBack: a secondary lost for UnhealthyAfter is
// dropped (no spare node: the set shrinks); no set names it then, yet
// monitoring asks it again, and once it answers the set grows back to it.
func TestReturnedNodeGrowsTheSetBack(t *testing.T) {
	h := newHarness(t, harnessOpts{nodes: 3})
	a, b, c := h.nodes[0], h.nodes[1], h.nodes[2]
	h.putSet("q", a, b, c)
	h.net.setDown(c.id, true)
	cfg := testConfig()
	if err := a.monitorState(h.ctx, monitorArgs{}); err != nil {
		t.Fatal(err)
	}
	h.clk.Advance(cfg.UnhealthyAfter)
	if err := a.monitorState(h.ctx, monitorArgs{}); err != nil {
		t.Fatal(err)
	}
	if err := a.updateBatch(h.ctx, []string{"q"}); err != nil {
		t.Fatal(err)
	}
	if got := h.chainSet("q"); got.Version != 2 || !slices.Equal(got.Secondaries, []string{b.id}) {
		t.Fatalf("set on chain v%d %v, want v2 [b]", got.Version, short(got.Secondaries))
	}
	h.net.setDown(c.id, false)
	h.clk.Advance(cfg.RequestTimeout)
	if err := a.monitorState(h.ctx, monitorArgs{}); err != nil { // q's slice names a and b only
		t.Fatal(err)
	}
	probes := jobArgs[probeArgs](h, a, KindProbeNode)
	if len(probes) == 0 || probes[len(probes)-1].Node != c.id {
		t.Fatalf("probes queued %+v, want c's", probes)
	}
	if err := a.probeNode(h.ctx, probes[len(probes)-1]); err != nil {
		t.Fatal(err)
	}
	if since, _ := a.unhealthySince(c.id); !since.IsZero() {
		t.Fatalf("c answers again, still unhealthy since %v at a", since)
	}
	if err := a.findReplicaSetUpdates(h.ctx, sliceArgs{Queues: []string{"q"}}); err != nil {
		t.Fatal(err)
	}
	ups := jobArgs[updateArgs](h, a, KindReplicaSetUpdate)
	if len(ups) == 0 {
		t.Fatal("no update queued to grow q back")
	}
	if err := a.replicaSetUpdate(h.ctx, ups[len(ups)-1]); err != nil {
		t.Fatal(err)
	}
	if got := h.chainSet("q"); got.Version != 3 || !slices.Equal(sortedIDs(got.Secondaries), sortedIDs([]string{b.id, c.id})) {
		t.Fatalf("set on chain v%d %v, want v3 [b c]", got.Version, short(got.Secondaries))
	}
}

// TestForwardReleasedWhenPrimaryLost: an intent forwarded to a primary
// that went silent waits for its answer only until the node is found
// unhealthy (by any request), not for RequestTimeout+AckTimeout: the
// client is told at once to come back (ErrUnavailable), and its retries
// are answered at once until the set moves.
func TestForwardReleasedWhenPrimaryLost(t *testing.T) {
	h := newHarness(t, harnessOpts{nodes: 3})
	a, b, c := h.nodes[0], h.nodes[1], h.nodes[2]
	h.putSet("q", a, b, c)
	h.net.setDown(a.id, true)
	done := make(chan error, 1)
	go func() {
		_, err := b.Submit(h.ctx, "", []sequencer.Intake{{Queue: "q", Type: "noop", Data: json.RawMessage(`{}`), IdempotencyKey: "k1"}})
		done <- err
	}()
	waitFor(t, "the forward to wait on a", func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		return len(b.waiting[a.id]) == 1
	})
	b.markHealthAt(a.id, false, h.clk.Now()) // a monitoring request to a went unanswered
	select {
	case err := <-done:
		if !errors.Is(err, ErrUnavailable) {
			t.Fatalf("forward to a lost primary: %v, want ErrUnavailable", err)
		}
	case <-time.After(5 * time.Second): // its own deadline is RequestTimeout+AckTimeout, 11s
		t.Fatal("the forward still waits on a primary found unhealthy")
	}
	if _, err := b.Submit(h.ctx, "", []sequencer.Intake{{Queue: "q", Type: "noop", Data: json.RawMessage(`{}`), IdempotencyKey: "k1"}}); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("retry while the set has not moved: %v, want ErrUnavailable at once", err)
	}
}

// TestHealthMarks: a node never finds itself unhealthy; a request left
// unanswered does not make a node unhealthy when it answered a request
// sent after it.
func TestHealthMarks(t *testing.T) {
	h := newHarness(t, harnessOpts{nodes: 2})
	a, b := h.nodes[0], h.nodes[1]
	t0 := h.clk.Now()
	a.markHealthAt(a.id, false, t0)
	if since, _ := a.unhealthySince(a.id); !since.IsZero() {
		t.Fatalf("a unhealthy to itself since %v", since)
	}
	a.markHealthAt(b.id, true, t0.Add(time.Second))
	a.markHealthAt(b.id, false, t0) // an older request's timeout
	if since, _ := a.unhealthySince(b.id); !since.IsZero() {
		t.Fatalf("b unhealthy since %v after answering a later request", since)
	}
	a.markHealthAt(b.id, false, t0.Add(2*time.Second))
	if since, _ := a.unhealthySince(b.id); !since.Equal(t0.Add(2 * time.Second)) {
		t.Fatalf("b unhealthy since %v, want %v", since, t0.Add(2*time.Second))
	}
}
