package procs_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/procs"
)

// sent is an acknowledged intent: the id node answered for key.
type sent struct {
	node    int
	key, id string
}

// load sends intents to every node of c, one sender per node each every
// interval, until stop is closed; it keeps each acknowledged one and
// counts the sends no node acknowledged (a node down, a timeout).
type load struct {
	mu      sync.Mutex
	acked   []sent
	refused atomic.Int64
	wg      sync.WaitGroup
}

func (l *load) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.acked)
}

func (l *load) run(ctx context.Context, c *procs.Committee, interval time.Duration, stop <-chan struct{}) {
	for i := range c.Nodes() {
		l.wg.Go(func() {
			tick := time.NewTicker(interval)
			defer tick.Stop()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				case <-ctx.Done():
					return
				case <-tick.C:
				}
				key := fmt.Sprintf("crash-n%d-%d", i+1, n)
				rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				id, err := c.Send(rctx, i, key, fmt.Sprintf("to-%d", n%7), uint64(1+n%40))
				cancel()
				if err != nil {
					l.refused.Add(1)
					continue
				}
				l.mu.Lock()
				l.acked = append(l.acked, sent{node: i, key: key, id: id})
				l.mu.Unlock()
			}
		})
	}
}

// waitMore waits until n more intents than now are acknowledged.
func (l *load) waitMore(t *testing.T, n int, what string) {
	t.Helper()
	want := l.count() + n
	waitUntil(t, 60*time.Second, fmt.Sprintf("%d more acknowledged intents (%s)", n, what), func() bool { return l.count() >= want })
}

// TestCrashCoordinator (issue 11, "Tests"): a devchain and 4 ordo serve
// processes; intents sent through ptx_sendTransaction (raw JSON-RPC over
// HTTP) to all four while the group's coordinator is killed with SIGKILL
// and restarted, then another node. Afterwards every acknowledged intent
// is final at its sender, Confirmed exactly once on chain or Reverted and
// not on chain; no state is spent twice; every member holds every state
// the confirmed intents created.
func TestCrashCoordinator(t *testing.T) {
	c := startCommittee(t, procs.Config{Nodes: 4, BlockTime: 200 * time.Millisecond, Coins: 100, RangeSize: 50})
	crashCoordinator(t, c, devchainAudit{c}, 60*time.Millisecond, 90*time.Second)
}

// chainAudit reads a group's confirmed intents from the chain.
type chainAudit interface {
	// confirmed reads every IntentConfirmed event of group.
	confirmed(ctx context.Context, group string) (onChain, error)
	// intent says whether the chain holds txID confirmed in group.
	intent(ctx context.Context, group, txID string) (bool, error)
}

// devchainAudit reads a devchain's privacygroup through its client.
type devchainAudit struct{ c *procs.Committee }

func (a devchainAudit) confirmed(ctx context.Context, group string) (onChain, error) {
	return readChain(ctx, a.c, group)
}

func (a devchainAudit) intent(ctx context.Context, group, txID string) (bool, error) {
	_, on, err := intentOnChain(ctx, a.c.Chain(), group, txID)
	return on, err
}

// crashCoordinator runs TestCrashCoordinator's load (one intent per node
// every interval), kills and audit on c, reading the chain through
// audit; every acknowledged intent must be final within settle of the
// load's end.
func crashCoordinator(t *testing.T, c *procs.Committee, audit chainAudit, interval, settle time.Duration) {
	ctx := t.Context()
	group := c.Config().Group
	var l load
	stop := make(chan struct{})
	l.run(ctx, c, interval, stop)
	stopLoad := sync.OnceFunc(func() { close(stop); l.wg.Wait() })
	defer stopLoad()

	// ORDO_PROCS_PHASE is how many intents are acknowledged in each phase
	// (twice that with a node down). Defaults to 150.
	phase := 150
	if v, err := strconv.Atoi(os.Getenv("ORDO_PROCS_PHASE")); err == nil && v > 0 {
		phase = v
	}
	kills := 0
	l.waitMore(t, phase, "before the first kill")
	first, id, agree, err := c.Coordinator(ctx, group)
	if err != nil || first < 0 {
		t.Fatalf("coordinator: %d %s: %v", first, id, err)
	}
	t.Logf("killing the coordinator node%d %s (%d of %d agree)", first+1, id, agree, c.Nodes())
	if err := c.Kill(first); err != nil {
		t.Fatal(err)
	}
	kills++
	l.waitMore(t, 2*phase, "with the coordinator down")
	if err := c.Start(ctx, first); err != nil {
		t.Fatal(err)
	}
	l.waitMore(t, phase, "after the coordinator's restart")

	second, id, _, err := c.Coordinator(ctx, group)
	if err != nil || second < 0 || second == first {
		second = (first + 1) % c.Nodes()
	}
	t.Logf("killing node%d %s (coordinator now %s)", second+1, c.NodeID(second), id)
	if err := c.Kill(second); err != nil {
		t.Fatal(err)
	}
	kills++
	l.waitMore(t, 2*phase, "with the second node down")
	if err := c.Start(ctx, second); err != nil {
		t.Fatal(err)
	}
	l.waitMore(t, phase, "after the second restart")
	stopLoad()

	acked := l.acked
	// Every acknowledged intent final at its sender.
	final := map[string]*receipt{}
	deadline := time.Now().Add(settle)
	for _, s := range acked {
		for {
			r, err := getReceipt(ctx, c, s.node, s.id)
			if err == nil && r != nil {
				final[s.id] = r
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("intent %s (key %s at node%d) not final within the deadline: %v (%d of %d final)", s.id, s.key, s.node+1, err, len(final), len(acked))
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	oc, err := audit.confirmed(ctx, group)
	if err != nil {
		t.Fatal(err)
	}
	confirmed, reverted := 0, 0
	reasons := map[string]int{}
	ids := map[string]bool{}
	for _, s := range acked {
		if ids[s.id] {
			t.Errorf("two sends acknowledged with one id %s", s.id)
		}
		ids[s.id] = true
		r := final[s.id]
		on, err := audit.intent(ctx, group, s.id)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case r.Success && (!on || oc.confirmed[s.id] != 1):
			t.Errorf("intent %s (node%d) Confirmed at its sender, on chain %v, %d IntentConfirmed events", s.id, s.node+1, on, oc.confirmed[s.id])
		case !r.Success && (on || oc.confirmed[s.id] != 0):
			t.Errorf("intent %s (node%d) Reverted at its sender (%s) yet on chain", s.id, s.node+1, r.FailureMessage)
		case r.Success:
			confirmed++
		default:
			reverted++
			reasons[r.FailureMessage]++
		}
	}
	for tx, n := range oc.confirmed {
		if n != 1 {
			t.Errorf("intent %s confirmed %d times on chain", tx, n)
		}
	}
	for _, d := range oc.doubleSpends() {
		t.Errorf("double spend: %s", d)
	}
	missing, err := missingStates(t, ctx, c, group, oc)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range missing {
		t.Errorf("states: %s", m)
	}
	t.Logf("acknowledged %d, confirmed %d, reverted %d, unacknowledged sends %d, intents on chain %d, kills %d",
		len(acked), confirmed, reverted, l.refused.Load(), len(oc.confirmed), kills)
	for r, n := range reasons {
		t.Logf("reverted %d: %s", n, r)
	}
}
