package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/store"
)

func (s *suite) testCancelBefore(t *testing.T) {
	st := s.fresh(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := st.Enqueue(ctx, []store.NewTransaction{ntx("a", "q")})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Enqueue with a cancelled ctx: err = %v, want context.Canceled", err)
	}
	_, err = st.Get(ctxT(t), "a")
	wantNotFound(t, "Get after a cancelled Enqueue", err)
}

func (s *suite) testCancelBlocked(t *testing.T) {
	if s.cfg.blocker == nil {
		t.Skip("no WithBlocker option")
	}
	dir := t.TempDir()
	st := s.openAt(t, dir)
	enqueue(t, st, ntx("before", "q"))
	release := s.cfg.blocker(t, dir)
	released := false
	defer func() {
		if !released {
			release()
		}
	}()

	const wait = 200 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	var wall clock.Real
	start := wall.Now()
	_, err := st.Enqueue(ctx, []store.NewTransaction{keyed("blocked", "q", "kb")})
	elapsed := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("blocked Enqueue: err = %v, want context.DeadlineExceeded", err)
	}
	if elapsed > wait+2*time.Second {
		t.Fatalf("blocked Enqueue returned %v after its deadline", elapsed-wait)
	}
	release()
	released = true

	// The store recovers: a new call commits, and a retry of the abandoned
	// one with its key yields one record, whether or not it had committed.
	enqueue(t, st, ntx("after", "q"))
	r := enqueue(t, st, keyed("blocked-retry", "q", "kb"))[0]
	if r.Transaction.State != store.Waiting {
		t.Fatalf("retried transaction: %+v", r.Transaction)
	}
	all := listAll(t, st, store.Filter{})
	if len(all) != 3 {
		t.Fatalf("after the retry: %v, want 3 records", uids(all))
	}
}

func (s *suite) testClosed(t *testing.T) {
	st := s.fresh(t)
	enqueue(t, st, ntx("a", "q"))
	if err := st.close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := st.Enqueue(ctxT(t), []store.NewTransaction{ntx("b", "q")}); err == nil {
		t.Fatal("Enqueue after Close succeeded")
	}
	if err := st.Apply(ctxT(t), store.Batch{Txs: []store.TxUpdate{update("a", store.Done, nil, 1)}}); err == nil {
		t.Fatal("Apply after Close succeeded")
	}
	if _, err := st.Get(ctxT(t), "a"); err == nil {
		t.Fatal("Get after Close succeeded")
	}
}

// testNotifierOrder: the store reports every
// created transaction exactly once, in strictly increasing Seq, however
// many callers enqueue at once; known idempotency keys are not reported.
func (s *suite) testNotifierOrder(t *testing.T) {
	h := s.fresh(t)
	var mu sync.Mutex
	var seen []int64
	h.SetOnEnqueued(func(txs []store.Transaction) {
		mu.Lock()
		defer mu.Unlock()
		for _, tx := range txs {
			seen = append(seen, tx.Seq)
		}
	})
	const workers, each = 16, 25
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				n := keyed(fmt.Sprintf("n-%d-%d", w, i), fmt.Sprintf("q%d", i%3), fmt.Sprintf("k-%d-%d", w, i%20))
				if _, err := h.Enqueue(ctxT(t), []store.NewTransaction{n}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	all := listAll(t, h.Store, store.Filter{})
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != len(all) {
		t.Fatalf("notified %d transactions, store holds %d", len(seen), len(all))
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] <= seen[i-1] {
			t.Fatalf("notification %d has seq %d after %d", i, seen[i], seen[i-1])
		}
	}
}
