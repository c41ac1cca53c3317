package sequencer_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit"
)

// batchLog records every batch a node hands its store, in order.
type batchLog struct {
	mu      sync.Mutex
	batches []store.Batch
}

func (l *batchLog) add(b store.Batch) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.batches = append(l.batches, b)
}

// ends returns, for uid, the index of the batch that writes its end (DONE
// or FAILED) and of each batch that writes a result for it.
func (l *batchLog) ends(uid string) (end int, results []int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	end = -1
	for i, b := range l.batches {
		rows, _ := store.RowUpdates(b.Txs)
		for _, j := range rows {
			u := b.Txs[j]
			if u.UID != uid {
				continue
			}
			if end < 0 && (u.State == store.Done || u.State == store.Failed) {
				end = i
			}
			if u.Result != nil {
				results = append(results, i)
			}
		}
	}
	return end, results
}

// loggedStore records the batches it applies.
type loggedStore struct {
	store.Store
	log *batchLog
}

func (s loggedStore) Apply(ctx context.Context, b store.Batch) error {
	s.log.add(b)
	return s.Store.Apply(ctx, b)
}

// loggedPipeliner is a loggedStore of a store.Pipeliner, and one too.
type loggedPipeliner struct{ loggedStore }

func (s loggedPipeliner) StartApply(ctx context.Context, b store.Batch, after store.Started) store.Started {
	s.log.add(b)
	return s.Store.(store.Pipeliner).StartApply(ctx, b, after)
}

// pureZkApp is the rig's zkApp dispatcher with hooks that return the result
// with a mark, counted, and declared pure or not.
type pureZkApp struct {
	*dispatch.ZkAppDispatcher
	pure  bool
	calls *atomic.Int32
}

func (d pureZkApp) PureHooks() bool { return d.pure }

func (d pureZkApp) OnSuccess(_ context.Context, _ sequencer.RawTxnData, r sequencer.TxnResult, _ sequencer.Sender) (sequencer.TxnResult, error) {
	d.calls.Add(1)
	r.Done = []byte(`{"hook":"ran"}`)
	return r, nil
}

func (d pureZkApp) OnFailure(_ context.Context, _ sequencer.RawTxnData, r sequencer.TxnResult, _ sequencer.Sender) (sequencer.TxnResult, error) {
	d.calls.Add(1)
	return r, nil
}

// A dispatcher whose hooks are pure has them run on the loop: the result is
// committed in the batch that ends the transaction, and in no other. Hooks
// that are not pure run as effects after that commit, and their result is
// a later batch's.
func TestPureHooksCommitWithTheEnd(t *testing.T) {
	for _, pure := range []bool{true, false} {
		name := map[bool]string{true: "pure", false: "effect"}[pure]
		t.Run(name, func(t *testing.T) {
			log := &batchLog{}
			var calls atomic.Int32
			r := newRig(t, rigOptions{senders: 1, blockTime: 20 * time.Millisecond, tune: func(c *sequencer.Config) {
				zk, ok := c.Dispatchers[typ].(*dispatch.ZkAppDispatcher)
				if !ok {
					t.Fatalf("the rig's dispatcher is a %T", c.Dispatchers[typ])
				}
				c.Dispatchers[typ] = pureZkApp{ZkAppDispatcher: zk, pure: pure, calls: &calls}
				ls := loggedStore{Store: c.Store, log: log}
				c.Store = ls
				if _, ok := ls.Store.(store.Pipeliner); ok {
					c.Store = loggedPipeliner{ls}
				}
			}})
			var uids []string
			for i := range 3 {
				uids = append(uids, r.submit("q", typ, `{"zkapp":"hooks-`+string(rune('a'+i))+`"}`).UID)
			}
			for _, uid := range uids {
				waitFor(t, uid+"'s result", 20*time.Second, func() bool {
					got, err := r.store.Get(t.Context(), uid)
					return err == nil && got.State == store.Done && strings.Contains(string(got.Result), "ran")
				})
				end, results := log.ends(uid)
				if end < 0 || len(results) != 1 {
					t.Fatalf("%s: ended in batch %d, results in batches %v; want one result", uid, end, results)
				}
				if same := results[0] == end; same != pure {
					t.Fatalf("%s: ended in batch %d, its result in batch %d (pure hooks %v)", uid, end, results[0], pure)
				}
			}
			if n := calls.Load(); n != int32(len(uids)) {
				t.Fatalf("%d hook calls for %d transactions", n, len(uids))
			}
		})
	}
}

// gettingStore counts the node's reads of one record.
type gettingStore struct {
	store.Store
	gets *atomic.Int32
}

func (s gettingStore) Get(ctx context.Context, uid string) (store.Transaction, error) {
	s.gets.Add(1)
	return s.Store.Get(ctx, uid)
}

// A transaction that ends FAILED with a pure hook is logged and counted
// from the record the loop kept when the hook ran, not read back from the
// store: the failure line and metric name its type and queue, and the node
// never calls Get.
func TestPureHookFailureObservedWithoutRead(t *testing.T) {
	revert := 1.0
	var calls, gets atomic.Int32
	r := newRig(t, rigOptions{faults: devchain.FaultUpdate{RevertProb: &revert}, blockTime: 20 * time.Millisecond, maxRetries: 1, tune: func(c *sequencer.Config) {
		zk := c.Dispatchers[typ].(*dispatch.ZkAppDispatcher)
		c.Dispatchers[typ] = pureZkApp{ZkAppDispatcher: zk, pure: true, calls: &calls}
		c.Store = gettingStore{Store: c.Store, gets: &gets}
	}})
	tx := r.submit("q-revert", typ, `{}`)
	r.waitState(tx.UID, store.Failed)
	r.waitLog("transaction failed")
	failed := r.logs.Records(t, "transaction failed")
	if len(failed) != 1 || failed[0]["queue"] != "q-revert" || failed[0]["type"] != typ || str(failed[0]["sender"]) == "" {
		t.Fatalf("failed lines %v", failed)
	}
	if got := testkit.Metric(t, r.reg, "ordo_sequencer_failures_total", "type", typ, "reason", sequencer.ReasonFailedInclusion); got != 1 {
		t.Fatalf("failures_total{type=%s} %v", typ, got)
	}
	if n := gets.Load(); n != 0 {
		t.Fatalf("the node read %d records back from the store", n)
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("%d hook calls", n)
	}
}
