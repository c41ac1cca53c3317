package postgres

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit"
)

// TestHeldConnGivenBack: a connection kept for the group that was waiting
// at the last COMMIT goes back to the pool when that group is dropped (its
// caller gave up), rather than stay idle in a transaction until the next
// write, which the server would end after idle_in_transaction_session_timeout.
func TestHeldConnGivenBack(t *testing.T) {
	dir := t.TempDir()
	s := openIn(t, dir, Options{})
	defer s.Close()
	ctx := context.Background()
	release := block(t, dir)
	defer release()
	commits, chained := s.commits.Load(), s.chained.Load()
	first := make(chan error, 1)
	go func() {
		_, err := s.Enqueue(ctx, []store.NewTransaction{{UID: "a", Queue: "q"}})
		first <- err
	}()
	testkit.WaitFor(t, 10*time.Second, time.Millisecond, "the first group started", func() bool { return s.commits.Load() == commits+1 })
	gaveUp, cancel := context.WithCancel(ctx)
	second := make(chan error, 1)
	go func() {
		_, err := s.Enqueue(gaveUp, []store.NewTransaction{{UID: "b", Queue: "q"}})
		second <- err
	}()
	testkit.WaitFor(t, 10*time.Second, time.Millisecond, "the second request queued", func() bool { return s.q.Waiting() == 1 })
	cancel()
	if err := <-second; !errors.Is(err, context.Canceled) {
		t.Fatalf("second Enqueue: %v, want context.Canceled", err)
	}
	release()
	if err := <-first; err != nil {
		t.Fatalf("first Enqueue: %v", err)
	}
	testkit.WaitFor(t, 10*time.Second, time.Millisecond, "every connection back in the pool", func() bool {
		return s.pool.Stat().AcquiredConns() == 0
	})
	if _, err := s.Get(ctx, "b"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get of the dropped request's transaction: %v, want ErrNotFound", err)
	}
	if _, err := s.Enqueue(ctx, []store.NewTransaction{{UID: "c", Queue: "q"}}); err != nil {
		t.Fatalf("Enqueue after: %v", err)
	}
	if c := s.chained.Load() - chained; c != 0 {
		t.Fatalf("%d groups begun with a held connection, want 0 (the held one was given back)", c)
	}
}

// TestHistoryNoteNotUTF8: a history note that is not UTF-8 is refused, as
// the history table's TEXT column refused it, not stored with its bytes
// replaced; the batch writes nothing.
func TestHistoryNoteNotUTF8(t *testing.T) {
	s := openIn(t, t.TempDir(), Options{})
	defer s.Close()
	ctx := context.Background()
	if _, err := s.Enqueue(ctx, []store.NewTransaction{{UID: "a", Queue: "q"}}); err != nil {
		t.Fatal(err)
	}
	err := s.Apply(ctx, store.Batch{
		Txs:     []store.TxUpdate{{UID: "a", State: store.Revision}},
		History: []store.HistoryEntry{{UID: "a", From: store.Waiting, To: store.Revision, Note: "bad \xff"}},
	})
	if !errors.Is(err, errRefused) {
		t.Fatalf("Apply: %v, want refused", err)
	}
	tx, err := s.Get(ctx, "a")
	if err != nil || tx.State != store.Waiting {
		t.Fatalf("Get: %v %v, want WAITING", tx.State, err)
	}
}
