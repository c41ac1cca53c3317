package storetest

import (
	"errors"
	"testing"

	"github.com/ordolabs/ordo/internal/store"
)

// engineWrite is one engine's write of a marker value, and its read back.
type engineWrite struct {
	name  string
	write func(f *store.Fence, v uint64) error
	read  func() (uint64, error)
}

// engineWrites are the engines' writes that st makes: ApplyProcessor and
// ApplyLeader write a cursor each, ApplyDistseq a group's height.
func engineWrites(t *testing.T, st any) []engineWrite {
	var ws []engineWrite
	if ps, ok := st.(store.ProcessorStore); ok {
		ws = append(ws, engineWrite{"ApplyProcessor", func(f *store.Fence, v uint64) error {
			return ps.ApplyProcessor(ctxT(t), store.ProcChanges{Cursors: []store.Cursor{{Name: "proc", Value: v}}, Fence: f})
		}, func() (uint64, error) { return ps.Cursor(ctxT(t), "proc") }})
	}
	if ls, ok := st.(store.LeaderStore); ok {
		ws = append(ws, engineWrite{"ApplyLeader", func(f *store.Fence, v uint64) error {
			return ls.ApplyLeader(ctxT(t), store.LeaderChanges{Cursors: []store.Cursor{{Name: "lead", Value: v}}, Fence: f})
		}, func() (uint64, error) {
			ps, ok := st.(store.ProcessorStore) // cursors are shared
			if !ok {
				t.Skip("a LeaderStore that is no ProcessorStore: no cursor read")
			}
			return ps.Cursor(ctxT(t), "lead")
		}})
	}
	if ds, ok := st.(store.DistseqStore); ok {
		ws = append(ws, engineWrite{"ApplyDistseq", func(f *store.Fence, v uint64) error {
			g := dsGroup("fenced", "m")
			g.Height = v
			return ds.ApplyDistseq(ctxT(t), store.DistseqBatch{Groups: []store.DistseqGroup{g}, Fence: f})
		}, func() (uint64, error) {
			g, err := ds.DistseqGroup(ctxT(t), "fenced")
			if errors.Is(err, store.ErrNotFound) {
				return 0, nil
			}
			return g.Height, err
		}})
	}
	return ws
}

// testEngineFence: the engines' writes honour a Fence as Apply does. A
// write with the engine lease's current fence is applied; one with a stale
// token, another holder's, or a lease never taken fails with an error
// wrapping store.ErrFenced and writes nothing; a write without a fence
// (a node that holds its store alone) is applied.
func (s *leaseSuite) testEngineFence(t *testing.T) {
	st := s.fresh(t)
	ws := engineWrites(t, st.Leased) // the store itself: the handle has only Leased's methods
	if len(ws) == 0 {
		t.Skip("the store has no engine records")
	}
	held := leaseOf(t, acquire(t, st, "n1", leaseLong, "engine/e"), "engine/e")
	for _, w := range ws {
		t.Run(w.name, func(t *testing.T) {
			if err := w.write(&store.Fence{Holder: "n1", Leases: map[string]int64{held.Name: held.Token}}, 5); err != nil {
				t.Fatalf("write with the held lease's fence: %v", err)
			}
			for _, f := range []store.Fence{
				{Holder: "n1", Leases: map[string]int64{held.Name: held.Token - 1}},
				{Holder: "n2", Leases: map[string]int64{held.Name: held.Token}},
				{Holder: "n1", Leases: map[string]int64{"engine/none": 1}},
				{Holder: "n1", Leases: map[string]int64{held.Name: 0}},
			} {
				if err := w.write(&f, 9); !errors.Is(err, store.ErrFenced) {
					t.Fatalf("write with fence %+v: %v, want one wrapping store.ErrFenced", f, err)
				}
				if v, err := w.read(); err != nil || v != 5 {
					t.Fatalf("after a fenced write: %d, %v; want 5", v, err)
				}
			}
			if err := w.write(nil, 7); err != nil {
				t.Fatalf("write without a fence: %v", err)
			}
			if v, err := w.read(); err != nil || v != 7 {
				t.Fatalf("after a write without a fence: %d, %v; want 7", v, err)
			}
		})
	}
}

// testFenceChained: on a store.Pipeliner, a batch chained to a fenced one
// is not applied (store.ErrEarlierFailed), whether the two share a group
// commit (the blocker holds the writer while both are queued) or not.
func (s *leaseSuite) testFenceChained(t *testing.T) {
	dir := t.TempDir()
	st := s.openAt(t, dir)
	pl, ok := st.Leased.(store.Pipeliner)
	if !ok {
		t.Skip("the store is no store.Pipeliner")
	}
	enqueue(t, st, ntx("f", "qf"), ntx("g", "qg"))
	held := leaseOf(t, acquire(t, st, "n1", leaseLong, "queue/held"), "queue/held")
	stale := &store.Fence{Holder: "n1", Leases: map[string]int64{held.Name: held.Token + 1}}
	release := func() {}
	if s.cfg.blocker != nil {
		release = s.cfg.blocker(t, dir)
	}
	ctx := ctxT(t)
	fenced := pl.StartApply(ctx, fencedBatch("f", "qf", stale), nil)
	chained := pl.StartApply(ctx, fencedBatch("g", "qg", nil), fenced)
	release()
	if err := fenced.Wait(ctx); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("fenced batch: %v, want ErrFenced", err)
	}
	if err := chained.Wait(ctx); !errors.Is(err, store.ErrEarlierFailed) {
		t.Fatalf("batch chained to a fenced one: %v, want ErrEarlierFailed", err)
	}
	wantUnfenced(t, st, "g", "qg")
}
