package sequencer_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/store"
)

// fullStore is a store whose writes fail as on a full disk while its
// switches are on: Apply (the loop's commits) and Enqueue (intake) apart.
type fullStore struct {
	store.Store
	applyFull, enqueueFull atomic.Bool
	refused                atomic.Int64
}

func (s *fullStore) Apply(ctx context.Context, b store.Batch) error {
	if s.applyFull.Load() {
		s.refused.Add(1)
		return fmt.Errorf("test: apply: %w", store.ErrStorageFull)
	}
	return s.Store.Apply(ctx, b)
}

func (s *fullStore) Enqueue(ctx context.Context, txs []store.NewTransaction) ([]store.EnqueueResult, error) {
	if s.enqueueFull.Load() {
		return nil, fmt.Errorf("test: enqueue: %w", store.ErrStorageFull)
	}
	return s.Store.Enqueue(ctx, txs)
}

// TestStorageFullIsWeathered: a commit of the loop refused for want of
// room does not stop the sequencer: it loads again from the store after a
// wait, as long as the store refuses, and carries on once it takes writes;
// intake refuses with store.ErrStorageFull meanwhile (StorageFull says so),
// and every intent acknowledged before, during and after ends DONE.
func TestStorageFullIsWeathered(t *testing.T) {
	var fs *fullStore
	r := newRig(t, rigOptions{blockTime: 20 * time.Millisecond, tune: func(c *sequencer.Config) {
		fs = &fullStore{Store: c.Store}
		c.Store = fs
	}})
	a := r.submit("qa", typ, `{}`)
	r.waitState(a.UID, store.Done)

	fs.applyFull.Store(true)
	b := r.submit("qb", typ, `{}`) // intake commits; the loop's commit of its dispatch is refused
	r.waitLog("sequencer: the store is full: nothing of the turn was committed; intake answers storage_full; loading again from the store after a wait (free space on the store's disk)")
	waitFor(t, "the loop tries again (a reload refused too)", 10*time.Second, func() bool { return fs.refused.Load() >= 3 })
	select {
	case <-r.seq.Stopped():
		t.Fatalf("the sequencer stopped on a full store: %v", r.seq.Err())
	default:
	}
	fs.enqueueFull.Store(true)
	_, err := r.seq.Submit(context.Background(), []sequencer.Intake{{Queue: "qc", Type: typ, Data: []byte(`{}`), IdempotencyKey: "c"}})
	if !errors.Is(err, store.ErrStorageFull) || !r.seq.StorageFull() {
		t.Fatalf("intake on a full store: %v (StorageFull %v), want store.ErrStorageFull", err, r.seq.StorageFull())
	}

	fs.enqueueFull.Store(false)
	fs.applyFull.Store(false)
	res, err := r.seq.Submit(context.Background(), []sequencer.Intake{{Queue: "qc", Type: typ, Data: []byte(`{}`), IdempotencyKey: "c"}})
	if err != nil || !res[0].Created {
		t.Fatalf("intake once the store takes writes: %+v, %v", res, err)
	}
	r.waitState(b.UID, store.Done)
	r.waitState(res[0].Transaction.UID, store.Done)
	waitFor(t, "StorageFull clears", 5*time.Second, func() bool { return !r.seq.StorageFull() })
	if n := r.count(store.Done); n != 3 {
		t.Fatalf("%d DONE, want 3 (a, b, c)", n)
	}
}

// downChain is a chain whose reads of accounts and heads fail, as a
// refused connection does, while down is set.
type downChain struct {
	chain.Chain
	down  atomic.Bool
	tries atomic.Int64
}

var errConnRefused = errors.New("dial tcp 127.0.0.1:7545: connect: connection refused")

func (c *downChain) Account(ctx context.Context, a chain.Address) (chain.Account, error) {
	if c.down.Load() {
		c.tries.Add(1)
		return chain.Account{}, errConnRefused
	}
	return c.Chain.Account(ctx, a)
}

func (c *downChain) Head(ctx context.Context) (chain.BlockHeader, error) {
	if c.down.Load() {
		return chain.BlockHeader{}, errConnRefused
	}
	return c.Chain.Head(ctx)
}

// TestLoadWaitsForTheChain: a sequencer whose chain does not answer as it
// loads does not stop: it tries again on the clock while intake commits,
// and starts once the chain answers; what was taken meanwhile ends DONE.
func TestLoadWaitsForTheChain(t *testing.T) {
	r := newRig(t, rigOptions{blockTime: 20 * time.Millisecond})
	r.stop()
	dc := &downChain{Chain: r.cfg.Chain}
	dc.down.Store(true)
	cfg := r.cfg
	cfg.Chain = dc
	cfg.Logger = slog.New(slog.NewJSONHandler(r.logs, nil))
	seq, done := runNode(t, cfg)
	res, err := seq.Submit(context.Background(), []sequencer.Intake{{Queue: "q-down", Type: typ, Data: []byte(`{}`)}})
	if err != nil {
		t.Fatalf("intake while the chain is down: %v", err)
	}
	waitFor(t, "three loads tried", 10*time.Second, func() bool { return dc.tries.Load() >= 3 })
	select {
	case err := <-done:
		t.Fatalf("the sequencer stopped while its chain was down: %v", err)
	case <-seq.Started():
		t.Fatal("the sequencer started without its chain")
	default:
	}
	dc.down.Store(false)
	select {
	case <-seq.Started():
	case <-time.After(20 * time.Second):
		t.Fatal("the sequencer did not start once the chain answered")
	}
	r.waitState(res[0].Transaction.UID, store.Done)
}

// TestStartOnAFullStore: a sequencer started on a store that refuses
// writes for want of room (a restart on a full disk) does not stop: it
// loads again after a wait, and starts once the store takes writes.
func TestStartOnAFullStore(t *testing.T) {
	r := newRig(t, rigOptions{blockTime: 20 * time.Millisecond})
	a := r.submit("qa", typ, `{}`)
	r.waitState(a.UID, store.Done)
	r.stop()
	fs := &fullStore{Store: r.cfg.Store}
	fs.applyFull.Store(true)
	cfg := r.cfg
	cfg.Store = fs
	cfg.Logger = slog.New(slog.DiscardHandler)
	seq, done := runNode(t, cfg)
	b, err := seq.Submit(context.Background(), []sequencer.Intake{{Queue: "qb", Type: typ, Data: []byte(`{}`)}})
	if err != nil {
		t.Fatalf("intake: %v", err)
	}
	waitFor(t, "three loads refused", 10*time.Second, func() bool { return fs.refused.Load() >= 3 })
	select {
	case err := <-done:
		t.Fatalf("the sequencer stopped on a full store at start: %v", err)
	default:
	}
	fs.applyFull.Store(false)
	select {
	case <-seq.Started():
	case <-time.After(20 * time.Second):
		t.Fatal("the sequencer did not start once the store took writes")
	}
	r.waitState(b[0].Transaction.UID, store.Done)
}

// runNode builds a sequencer node of cfg and runs it until the test ends;
// done receives Run's error.
func runNode(t *testing.T, cfg sequencer.Config) (*sequencer.Node, chan error) {
	t.Helper()
	seq, err := sequencer.NewNode(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- seq.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("sequencer: %v", err)
		}
	})
	return seq, done
}
