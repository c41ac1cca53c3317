package sequencer_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

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
