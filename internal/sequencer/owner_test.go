package sequencer_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/sqlite"
)

// testOwner holds the leases a test gives it.
type testOwner struct {
	mu      sync.Mutex
	queues  map[string]bool
	ids     []string // the senders it holds
	lapse   bool     // Until is in the past: nothing may be sent
	changed chan struct{}
}

func newTestOwner(queues ...string) *testOwner {
	o := &testOwner{queues: map[string]bool{}, changed: make(chan struct{}, 1)}
	for _, q := range queues {
		o.queues[q] = true
	}
	return o
}

func (o *testOwner) Held() sequencer.Held {
	o.mu.Lock()
	defer o.mu.Unlock()
	h := sequencer.Held{Queues: map[string]bool{}, Senders: map[string]bool{}}
	for q := range o.queues {
		h.Queues[q] = true
	}
	for _, id := range o.ids {
		h.Senders[id] = true
	}
	return h
}

func (o *testOwner) Changed() <-chan struct{} { return o.changed }

// Until: the test's leases never lapse unless lapse is set.
func (o *testOwner) Until(uint64) time.Time {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.lapse {
		return time.Time{}
	}
	return time.Now().Add(time.Hour)
}

// with gives the owner every sender of c.
func (o *testOwner) with(c *sequencer.Config) *testOwner {
	for _, s := range c.Senders {
		o.ids = append(o.ids, string(s.ID))
	}
	return o
}

// take gives the owner a queue's lease and signals the change.
func (o *testOwner) take(q string) {
	o.mu.Lock()
	o.queues[q] = true
	o.mu.Unlock()
	select {
	case o.changed <- struct{}{}:
	default:
	}
}

// A node with an Owner processes only the queues it owns: intake for
// another queue is committed and waits; once the owner takes that queue's
// lease the loop starts over from the store and works it too.
func TestNodeOwnerLimitsQueues(t *testing.T) {
	owner := newTestOwner("q-mine")
	r := newRig(t, rigOptions{senders: 2, blockTime: 20 * time.Millisecond, tune: func(c *sequencer.Config) { c.Owner = owner.with(c) }})
	var mine, theirs []store.Transaction
	for i := range 3 {
		mine = append(mine, r.submit("q-mine", typ, fmt.Sprintf(`{"zkapp":"mine-%d"}`, i)))
		theirs = append(theirs, r.submit("q-theirs", typ, fmt.Sprintf(`{"zkapp":"theirs-%d"}`, i)))
	}
	for _, tx := range mine {
		r.waitState(tx.UID, store.Done)
	}
	for _, tx := range theirs {
		got, err := r.store.Get(t.Context(), tx.UID)
		if err != nil {
			t.Fatal(err)
		}
		if got.State != store.Waiting || len(got.Attempts) != 0 {
			t.Fatalf("%s of a queue the node does not own: %s with %d attempts", tx.UID, got.State, len(got.Attempts))
		}
	}
	owner.take("q-theirs")
	for _, tx := range theirs {
		r.waitState(tx.UID, store.Done)
	}
}

// Notify hands the loop intake committed by another node: the queue's
// WAITING transactions are read from the store.
func TestNodeNotifyOtherNodesIntake(t *testing.T) {
	owner := newTestOwner("q")
	r := newRig(t, rigOptions{senders: 1, blockTime: 20 * time.Millisecond, tune: func(c *sequencer.Config) { c.Owner = owner.with(c) }})
	// Another node's intake: committed in the shared database through a
	// store of its own (so this node's store notifies nothing).
	other, err := sqlite.Open(t.Context(), r.dbPath, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	res, err := other.Enqueue(t.Context(), []store.NewTransaction{{UID: "tx_elsewhere", Queue: "q", Type: typ, Data: []byte(`{"zkapp":"q-0"}`)}})
	if err != nil || !res[0].Created {
		t.Fatalf("enqueue: %v %+v", err, res)
	}
	r.seq.Notify("q")
	r.waitState("tx_elsewhere", store.Done)
}

// Intake by another node, not notified, is still taken in Seq order: a
// later local intake makes the core read the queue from the store (Shared),
// so it does not overtake the earlier one.
func TestNodeOtherNodesIntakeKeepsOrder(t *testing.T) {
	owner := newTestOwner("q")
	r := newRig(t, rigOptions{senders: 1, blockTime: 20 * time.Millisecond, tune: func(c *sequencer.Config) { c.Owner = owner.with(c) }})
	other, err := sqlite.Open(t.Context(), r.dbPath, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Enqueue(t.Context(), []store.NewTransaction{{UID: "tx_unseen", Queue: "q", Type: typ, Data: []byte(`{"zkapp":"q-0"}`)}}); err != nil {
		t.Fatal(err)
	}
	later := r.submit("q", typ, `{"zkapp":"q-1"}`)
	first := r.waitState("tx_unseen", store.Done)
	second := r.waitState(later.UID, store.Done)
	if first.Attempts[len(first.Attempts)-1].Height >= second.Attempts[len(second.Attempts)-1].Height {
		t.Fatalf("the later intake landed at height %d, before the earlier one at %d", second.Attempts[len(second.Attempts)-1].Height, first.Attempts[len(first.Attempts)-1].Height)
	}
}

// A sender whose lease another node holds is never used here.
func TestNodeOwnerLimitsSenders(t *testing.T) {
	owner := newTestOwner("q1", "q2", "q3")
	var mine string
	r := newRig(t, rigOptions{senders: 2, blockTime: 20 * time.Millisecond, tune: func(c *sequencer.Config) {
		mine = string(c.Senders[1].ID)
		owner.ids = []string{mine}
		c.Owner = owner
	}})
	var txs []store.Transaction
	for i, q := range []string{"q1", "q2", "q3"} {
		txs = append(txs, r.submit(q, typ, fmt.Sprintf(`{"zkapp":"s-%d"}`, i)))
	}
	for _, tx := range txs {
		got := r.waitState(tx.UID, store.Done)
		for _, a := range got.Attempts {
			if a.Sender != mine {
				t.Fatalf("%s sent by %s, a sender this node does not hold (it holds %s)", tx.UID, a.Sender, mine)
			}
		}
	}
}

// A node whose leases may have lapsed (it stalled, or cannot renew them)
// sends nothing to the chain: the attempt fails "not sent" and waits;
// once the leases are renewed it is sent.
func TestNodeOwnerLapsedSendsNothing(t *testing.T) {
	owner := newTestOwner("q")
	owner.lapse = true
	r := newRig(t, rigOptions{senders: 1, blockTime: 20 * time.Millisecond, tune: func(c *sequencer.Config) { c.Owner = owner.with(c) }})
	tx := r.submit("q", typ, `{"zkapp":"lapse-0"}`)
	waitFor(t, "a refused send", 10*time.Second, func() bool {
		got, err := r.store.Get(t.Context(), tx.UID)
		return err == nil && len(got.Attempts) > 0 && strings.Contains(got.Attempts[0].Error, "not sent")
	})
	if st := r.chain.Stats(); st.Mempool != 0 {
		t.Fatalf("%d transactions reached the chain while the leases had lapsed", st.Mempool)
	}
	owner.mu.Lock()
	owner.lapse = false
	owner.mu.Unlock()
	r.waitState(tx.UID, store.Done)
}
