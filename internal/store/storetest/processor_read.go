package storetest

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/store"
)

// seedFor is a random seed for a randomised fixture, or ORDO_SEED's; it is
// logged so that a failure can be replayed.
func seedFor(t *testing.T) uint64 {
	t.Helper()
	var wall clock.Real
	seed := uint64(wall.Now().UnixNano())
	if s := os.Getenv("ORDO_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("ORDO_SEED: %v", err)
		}
		seed = v
	}
	t.Logf("seed %d (replay: ORDO_SEED=%d)", seed, seed)
	return seed
}

func (s *procSuite) testSnapshot(t *testing.T) {
	st := s.fresh(t)
	checkSnapshot(t, st, store.ProcSnapshot{})

	// Written out of order, in two calls.
	applyProc(t, st, store.ProcChanges{
		Processors: []store.Processor{proc("zeta", 1), proc("alpha", 2)},
		Batches: []store.ProcBatch{
			pbatch("zeta", "z1", "high", store.BatchQueued, 2),
			pbatch("alpha", "a3", "medium", store.BatchQueued, 1),
			pbatch("alpha", "a2", "high", store.BatchPending, 7),
			pbatch("alpha", "a1", "high", store.BatchDone, 0),
		},
		Callbacks: []store.Callback{
			pcallback("zeta", 2, store.CallbackPending),
			pcallback("alpha", 3, store.CallbackPending),
			pcallback("alpha", 1, store.CallbackDelivered),
		},
		Cursors: []store.Cursor{{Name: "y", Value: 2}, {Name: "x", Value: 1}},
	})
	applyProc(t, st, store.ProcChanges{
		Processors: []store.Processor{proc("mid", 3)},
		Batches: []store.ProcBatch{
			pbatch("alpha", "a4", "high", store.BatchExecuting, 5),
			pbatch("alpha", "a5", "high", store.BatchQueued, 6),
			pbatch("zeta", "z0", "high", store.BatchQueued, 1),
			// a batch done after it was queued leaves the snapshot.
			pbatch("zeta", "z1", "high", store.BatchDone, 2),
		},
		Callbacks: []store.Callback{
			pcallback("alpha", 2, store.CallbackPending),
			pcallback("zeta", 1, store.CallbackStored),
			// a delivered callback leaves it too.
			pcallback("zeta", 2, store.CallbackDelivered),
		},
		Cursors: []store.Cursor{{Name: "a", Value: 3}},
	})
	checkSnapshot(t, st, store.ProcSnapshot{
		Processors: []store.Processor{proc("alpha", 2), proc("mid", 3), proc("zeta", 1)},
		Batches: []store.ProcBatch{
			pbatch("alpha", "a4", "high", store.BatchExecuting, 5),
			pbatch("alpha", "a5", "high", store.BatchQueued, 6),
			pbatch("alpha", "a2", "high", store.BatchPending, 7),
			pbatch("alpha", "a3", "medium", store.BatchQueued, 1),
			pbatch("zeta", "z0", "high", store.BatchQueued, 1),
		},
		Callbacks: []store.Callback{
			pcallback("alpha", 2, store.CallbackPending),
			pcallback("alpha", 3, store.CallbackPending),
		},
		Cursors: []store.Cursor{{Name: "a", Value: 3}, {Name: "x", Value: 1}, {Name: "y", Value: 2}},
	})
	// The processors listed a page at a time, in name order.
	for _, c := range []struct {
		after string
		limit int
		want  []string
	}{
		{"", 0, []string{"alpha", "mid", "zeta"}},
		{"", 2, []string{"alpha", "mid"}},
		{"mid", 2, []string{"zeta"}},
		{"alpha", 1, []string{"mid"}},
		{"zeta", 10, nil},
	} {
		ps, err := st.ListProcessors(ctxT(t), c.after, c.limit)
		if err != nil {
			t.Fatalf("ListProcessors(%q, %d): %v", c.after, c.limit, err)
		}
		var got []string
		for _, p := range ps {
			got = append(got, p.Name)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("ListProcessors(%q, %d) = %v, want %v", c.after, c.limit, got, c.want)
		}
		for _, p := range ps {
			if err := diffProcessor(p, proc(p.Name, map[string]int{"alpha": 2, "mid": 3, "zeta": 1}[p.Name])); err != nil {
				t.Errorf("ListProcessors: %v", err)
			}
		}
	}
}

// queueFixture writes n queued "high" batches of processor p with shuffled
// distinct keys (the seed is printed), mixed with batches that must not
// show: the same queue's executing and done ones, another priority's,
// another processor's. It returns the queued ones in queue order.
func queueFixture(t *testing.T, st store.ProcessorStore, n int) []store.ProcBatch {
	t.Helper()
	seed := seedFor(t)
	rng := rand.New(rand.NewPCG(seed, seed))
	keys := rng.Perm(3 * n)
	var c store.ProcChanges
	var want []store.ProcBatch
	for i, k := range keys {
		key := int64(k) - int64(n) // some negative
		id := fmt.Sprintf("b%05d", i)
		switch i % 3 {
		case 0:
			b := pbatch("p", id, "high", store.BatchQueued, key)
			want = append(want, b)
			c.Batches = append(c.Batches, b)
		case 1:
			state := []store.BatchState{store.BatchExecuting, store.BatchDone, store.BatchPending}[rng.IntN(3)]
			c.Batches = append(c.Batches, pbatch("p", id, "high", state, key))
		default:
			if rng.IntN(2) == 0 {
				c.Batches = append(c.Batches, pbatch("p", id, "medium", store.BatchQueued, key))
			} else {
				c.Batches = append(c.Batches, pbatch("other", id, "high", store.BatchQueued, key))
			}
		}
	}
	// In calls of at most 500 records.
	for lo := 0; lo < len(c.Batches); lo += 500 {
		applyProc(t, st, store.ProcChanges{Batches: c.Batches[lo:min(lo+500, len(c.Batches))]})
	}
	slices.SortFunc(want, func(a, b store.ProcBatch) int { return cmp.Compare(a.Key, b.Key) })
	return want[:min(n, len(want))]
}

func queued(t *testing.T, st store.ProcessorStore, offset, limit int) []store.ProcBatch {
	t.Helper()
	bs, err := st.QueuedBatches(ctxT(t), "p", "high", offset, limit)
	if err != nil {
		t.Fatalf("QueuedBatches(p, high, %d, %d): %v", offset, limit, err)
	}
	return bs
}

func (s *procSuite) testQueued(t *testing.T) {
	st := s.fresh(t)
	want := queueFixture(t, st, 40)
	if err := diffList("QueuedBatches", queued(t, st, 0, 0), want, diffProcBatch); err != nil {
		t.Fatal(err)
	}
	for _, pg := range []struct{ offset, limit int }{{0, 1}, {0, 7}, {5, 10}, {35, 10}, {39, 1}, {40, 5}, {100, 5}, {-3, 2}} {
		lo := min(max(pg.offset, 0), len(want))
		hi := min(lo+pg.limit, len(want))
		what := fmt.Sprintf("QueuedBatches(offset %d, limit %d)", pg.offset, pg.limit)
		if err := diffList(what, queued(t, st, pg.offset, pg.limit), want[lo:hi], diffProcBatch); err != nil {
			t.Fatal(err)
		}
	}
	if bs, err := st.QueuedBatches(ctxT(t), "p", "low", 0, 0); err != nil || len(bs) != 0 {
		t.Fatalf("QueuedBatches of an empty priority: %v, %v", bs, err)
	}
	if bs, err := st.QueuedBatches(ctxT(t), "nobody", "high", 0, 0); err != nil || len(bs) != 0 {
		t.Fatalf("QueuedBatches of an unknown processor: %v, %v", bs, err)
	}
	// Dequeued (executing) batches leave the queue; requeued ones return at
	// their Key's place.
	first, second := want[0], want[1]
	first.State, second.State = store.BatchExecuting, store.BatchExecuting
	applyProc(t, st, store.ProcChanges{Batches: []store.ProcBatch{first, second}})
	if err := diffList("after dequeuing two", queued(t, st, 0, 3), want[2:5], diffProcBatch); err != nil {
		t.Fatal(err)
	}
	applyProc(t, st, store.ProcChanges{Batches: []store.ProcBatch{want[1]}})
	if err := diffList("after requeuing one", queued(t, st, 0, 3), want[1:4], diffProcBatch); err != nil {
		t.Fatal(err)
	}
}

func (s *procSuite) testQueuedLimits(t *testing.T) {
	st := s.fresh(t)
	want := queueFixture(t, st, 1100)
	if got := queued(t, st, 0, 0); len(got) != 100 {
		t.Fatalf("QueuedBatches(limit 0): %d batches, want 100", len(got))
	}
	if got := queued(t, st, 0, -1); len(got) != 100 {
		t.Fatalf("QueuedBatches(limit -1): %d batches, want 100", len(got))
	}
	got := queued(t, st, 50, 5000)
	if err := diffList("QueuedBatches(offset 50, limit 5000)", got, want[50:1050], diffProcBatch); err != nil {
		t.Fatal(err)
	}
	if got := queued(t, st, 1050, 1000); len(got) != 50 {
		t.Fatalf("QueuedBatches(offset 1050): %d batches, want 50", len(got))
	}
}

func (s *procSuite) testCounts(t *testing.T) {
	st := s.fresh(t)
	if err := diffCounts(counts(t, st, "nobody"), store.ProcCounts{}); err != nil {
		t.Fatalf("unknown processor: %v", err)
	}
	var c store.ProcChanges
	add := func(processor, priority string, state store.BatchState, n int) {
		for range n {
			id := fmt.Sprintf("b%d", len(c.Batches))
			c.Batches = append(c.Batches, pbatch(processor, id, priority, state, int64(len(c.Batches))))
		}
	}
	add("p", "high", store.BatchQueued, 3)
	add("p", "medium", store.BatchQueued, 2)
	add("p", "high", store.BatchExecuting, 4)
	add("p", "medium", store.BatchPending, 1)
	add("p", "medium", store.BatchDone, 5)
	add("other", "high", store.BatchQueued, 6)
	for i, state := range []store.CallbackState{
		store.CallbackPending, store.CallbackDelivered, store.CallbackDelivered, store.CallbackStored,
	} {
		c.Callbacks = append(c.Callbacks, pcallback("p", int64(i+1), state))
	}
	c.Callbacks = append(c.Callbacks, pcallback("other", 1, store.CallbackPending))
	applyProc(t, st, c)
	if err := diffCounts(counts(t, st, "p"), store.ProcCounts{
		Queued:    map[string]int{"high": 3, "medium": 2},
		Executing: 4, Pending: 1, Done: 5,
		Callbacks: map[store.CallbackState]int{store.CallbackPending: 1, store.CallbackDelivered: 2, store.CallbackStored: 1},
	}); err != nil {
		t.Fatal(err)
	}
	// A batch that moves is counted once, in its new state.
	moved := c.Batches[0]
	moved.State = store.BatchDone
	applyProc(t, st, store.ProcChanges{Batches: []store.ProcBatch{moved}})
	if got := counts(t, st, "p"); got.Queued["high"] != 2 || got.Done != 6 {
		t.Fatalf("after a move: %+v, want queued high 2, done 6", got)
	}
}

func (s *procSuite) testCallbacksPaging(t *testing.T) {
	st := s.fresh(t)
	var want []store.Callback
	var c store.ProcChanges
	for seq := int64(1); seq <= 1100; seq++ {
		cb := pcallback("p", seq, []store.CallbackState{store.CallbackPending, store.CallbackDelivered, store.CallbackStored}[seq%3])
		want = append(want, cb)
		c.Callbacks = append(c.Callbacks, cb)
		c.Callbacks = append(c.Callbacks, pcallback("other", seq, store.CallbackPending))
	}
	for lo := 0; lo < len(c.Callbacks); lo += 500 {
		applyProc(t, st, store.ProcChanges{Callbacks: c.Callbacks[lo:min(lo+500, len(c.Callbacks))]})
	}
	for _, pg := range []struct {
		after      int64
		limit, len int
	}{
		{0, 0, 100}, {0, -1, 100}, {0, 5000, 1000}, {0, 7, 7}, {10, 5, 5}, {1095, 10, 5}, {1100, 10, 0}, {-5, 3, 3},
	} {
		lo := int(max(pg.after, 0))
		what := fmt.Sprintf("Callbacks(after %d, limit %d)", pg.after, pg.limit)
		if err := diffList(what, callbacks(t, st, "p", pg.after, pg.limit), want[lo:lo+pg.len], diffCallback); err != nil {
			t.Fatal(err)
		}
	}
	// Paging with after walks every callback once.
	var all []store.Callback
	for after := int64(0); ; {
		page := callbacks(t, st, "p", after, 300)
		all = append(all, page...)
		if len(page) < 300 {
			break
		}
		after = page[len(page)-1].Seq
	}
	if err := diffList("Callbacks paged", all, want, diffCallback); err != nil {
		t.Fatal(err)
	}
	if cs := callbacks(t, st, "nobody", 0, 0); len(cs) != 0 {
		t.Fatalf("Callbacks of an unknown processor: %+v", cs)
	}
}

func (s *procSuite) testCursor(t *testing.T) {
	st := s.fresh(t)
	if got := cursor(t, st, "never"); got != 0 {
		t.Fatalf("Cursor(never) = %d, want 0", got)
	}
	for _, v := range []uint64{1, 1 << 63, 1<<64 - 1, 7} {
		applyProc(t, st, store.ProcChanges{Cursors: []store.Cursor{{Name: "c", Value: v}}})
		if got := cursor(t, st, "c"); got != v {
			t.Fatalf("Cursor(c) = %d, want %d", got, v)
		}
	}
	if got := cursor(t, st, "never"); got != 0 {
		t.Fatalf("Cursor(never) = %d, want 0", got)
	}
}

func (s *procSuite) testProcNotFound(t *testing.T) {
	st := s.fresh(t)
	applyProc(t, st, store.ProcChanges{
		Processors: []store.Processor{proc("p", 0)},
		Batches:    []store.ProcBatch{pbatch("p", "b", "high", store.BatchQueued, 1)},
	})
	_, err := st.GetProcessor(ctxT(t), "q")
	wantNotFound(t, "GetProcessor(q)", err)
	_, err = st.GetBatch(ctxT(t), "p", "c")
	wantNotFound(t, "GetBatch(p, c)", err)
	_, err = st.GetBatch(ctxT(t), "q", "b")
	wantNotFound(t, "GetBatch(q, b)", err)
}
