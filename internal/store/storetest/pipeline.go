package storetest

import (
	"errors"
	"testing"

	"github.com/ordolabs/ordo/internal/store"
)

// testStartApply: a store.Pipeliner applies started batches in the order
// they were started, and a batch chained to one that failed (refused by
// the store, invalid on its face, or itself failed so) is not applied and
// fails with store.ErrEarlierFailed; an unchained batch started after a
// failure is applied; an empty batch succeeds and may be chained to.
func (s *suite) testStartApply(t *testing.T) {
	st := s.fresh(t)
	pl, ok := st.Store.(store.Pipeliner)
	if !ok {
		t.Skip("the store is no store.Pipeliner")
	}
	enqueue(t, st, ntx("a", "qa"), ntx("b", "qb"), ntx("c", "qc"))
	ctx := ctxT(t)
	one := func(u store.TxUpdate) store.Batch { return store.Batch{Txs: []store.TxUpdate{u}} }

	// In order: the later update of a wins, chained or not.
	s1 := pl.StartApply(ctx, one(update("a", store.Revision, nil, 1)), nil)
	s2 := pl.StartApply(ctx, one(store.TxUpdate{UID: "a", State: store.Revision, Retries: 2, At: at(2)}), s1)
	s3 := pl.StartApply(ctx, one(store.TxUpdate{UID: "a", State: store.Revision, Retries: 3, At: at(3)}), nil)
	for i, s := range []store.Started{s1, s2, s3} {
		if err := s.Wait(ctx); err != nil {
			t.Fatalf("batch %d: %v", i+1, err)
		}
	}
	if tx := get(t, st, "a"); tx.Retries != 3 || !tx.UpdatedAt.Equal(at(3)) {
		t.Fatalf("a after three started batches: retries %d at %v, want 3 at %v", tx.Retries, tx.UpdatedAt, at(3))
	}

	// A refused batch fails the batches chained to it, transitively.
	bad := pl.StartApply(ctx, one(update("ghost", store.Done, nil, 4)), nil)
	next := pl.StartApply(ctx, one(update("b", store.Done, nil, 4)), bad)
	third := pl.StartApply(ctx, one(update("c", store.Done, nil, 4)), next)
	if err := bad.Wait(ctx); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("batch of an unknown uid: %v, want ErrNotFound", err)
	}
	for what, s := range map[string]store.Started{"chained": next, "chained to a chained one": third} {
		if err := s.Wait(ctx); !errors.Is(err, store.ErrEarlierFailed) {
			t.Fatalf("batch %s after a refused one: %v, want ErrEarlierFailed", what, err)
		}
	}
	for _, uid := range []string{"b", "c"} {
		if tx := get(t, st, uid); tx.State != store.Waiting {
			t.Fatalf("%s after its batch failed for an earlier one: %s, want WAITING", uid, tx.State)
		}
	}

	// Invalid on its face: the same.
	invalid := pl.StartApply(ctx, one(store.TxUpdate{UID: "b", State: "BOGUS"}), nil)
	after := pl.StartApply(ctx, one(update("b", store.Done, nil, 5)), invalid)
	if err := invalid.Wait(ctx); err == nil || errors.Is(err, store.ErrEarlierFailed) {
		t.Fatalf("invalid batch: %v, want its own error", err)
	}
	if err := after.Wait(ctx); !errors.Is(err, store.ErrEarlierFailed) {
		t.Fatalf("batch after an invalid one: %v, want ErrEarlierFailed", err)
	}

	// An empty batch stands for the one it is chained to.
	bad2 := pl.StartApply(ctx, one(update("ghost", store.Done, nil, 5)), nil)
	gap := pl.StartApply(ctx, store.Batch{}, bad2)
	behind := pl.StartApply(ctx, one(update("c", store.Done, nil, 5)), gap)
	if err := gap.Wait(ctx); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("empty batch chained to a refused one: %v, want the refused one's error", err)
	}
	if err := behind.Wait(ctx); !errors.Is(err, store.ErrEarlierFailed) {
		t.Fatalf("batch chained to an empty one after a refused one: %v, want ErrEarlierFailed", err)
	}
	if tx := get(t, st, "c"); tx.State != store.Waiting {
		t.Fatalf("c: %s, want WAITING", tx.State)
	}

	// Unchained after the failures, and chained to an empty batch: applied.
	empty := pl.StartApply(ctx, store.Batch{}, nil)
	fresh := pl.StartApply(ctx, one(update("b", store.Done, nil, 6)), empty)
	if err := empty.Wait(ctx); err != nil {
		t.Fatalf("empty batch: %v", err)
	}
	if err := fresh.Wait(ctx); err != nil {
		t.Fatalf("batch after an empty one: %v", err)
	}
	if tx := get(t, st, "b"); tx.State != store.Done {
		t.Fatalf("b: %s, want DONE", tx.State)
	}
}
