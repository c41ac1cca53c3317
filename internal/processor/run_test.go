package processor_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/processor"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/sqlite"
)

// noSubmits is a sequencer that takes nothing (no batch is executed here).
type noSubmits struct{}

func (noSubmits) Submit(context.Context, []sequencer.Intake) ([]store.EnqueueResult, error) {
	return nil, errors.New("no sequencer here")
}

// awayStore is a store whose processor writes fail, and whose snapshot
// fails after the first, once away is set: a database that went away.
type awayStore struct {
	*sqlite.Store
	away, snapped atomic.Bool
}

func (s *awayStore) ApplyProcessor(ctx context.Context, c store.ProcChanges) error {
	if s.away.Load() {
		return errors.New("the database is away")
	}
	return s.Store.ApplyProcessor(ctx, c)
}

func (s *awayStore) ProcessorSnapshot(ctx context.Context) (store.ProcSnapshot, error) {
	if s.snapped.Swap(true) && s.away.Load() {
		return store.ProcSnapshot{}, errors.New("the database is away")
	}
	return s.Store.ProcessorSnapshot(ctx)
}

// TestRunReturnsWhenItsLoopFails: a loop that fails (a commit failed and
// the core could not be built again) ends Run with its error while Run's
// context is alive, so that the node's lease keeper can stand the engine by
// and run it again; Run used to wait for its head watcher and listener,
// which end only with that context. Then Run runs again on the same Node.
func TestRunReturnsWhenItsLoopFails(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	dc, quiet := runDevchain(ctx, t)
	sq, err := sqlite.Open(ctx, t.TempDir()+"/ordo.db", sqlite.Options{Synchronous: "NORMAL"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sq.Close() })
	st := &awayStore{Store: sq}
	pn, err := processor.New(processor.Config{Store: st, Sequencer: noSubmits{}, Chain: dc, Logger: quiet, PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	run := func() <-chan error {
		out := make(chan error, 1)
		go func() { out <- pn.Run(ctx) }()
		return out
	}
	first := run()
	<-pn.Started()
	l, err := pn.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st.away.Store(true)
	if _, err := l.Do(ctx, processor.Create(time.Time{}, 0, "ops", processor.CreateSpec{Name: "p", Owner: "ops"})); !errors.Is(err, processor.ErrRetired) {
		t.Fatalf("Create on an away store: %v, want ErrRetired", err)
	}
	select {
	case err := <-first:
		if err == nil {
			t.Fatal("Run returned nil after its loop failed, want the error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return 10s after its loop failed")
	}
	st.away.Store(false)
	second := run()
	l2, err := pn.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if l2 == l {
		t.Fatal("Open after Run returned gave the stopped Loop")
	}
	if _, err := l2.Do(ctx, processor.Create(time.Time{}, 0, "ops", processor.CreateSpec{Name: "p", Owner: "ops"})); err != nil {
		t.Fatalf("Create after running again: %v", err)
	}
	if _, err := st.GetProcessor(ctx, "p"); err != nil {
		t.Fatalf("processor p: %v", err)
	}
	cancel()
	if err := <-second; err != nil {
		t.Fatalf("second Run: %v", err)
	}
}
