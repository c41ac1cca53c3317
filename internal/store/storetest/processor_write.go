package storetest

import (
	"context"
	"fmt"
	"io"
	"math"
	"sync"
	"testing"

	"github.com/ordolabs/ordo/internal/store"
)

// roundTripFixture is one record of each kind, with every field set, and
// one with only its keys and required fields (zero times, empty bodies).
func roundTripFixture() store.ProcChanges {
	full := proc("alpha", 10)
	bare := store.Processor{Name: "bare"}
	cbBare := store.Callback{Processor: "bare", Seq: 1, State: store.CallbackStored}
	return store.ProcChanges{
		Processors: []store.Processor{full, bare},
		Batches: []store.ProcBatch{
			pbatch("alpha", "q1", "high", store.BatchQueued, 3),
			pbatch("alpha", "x1", "medium", store.BatchExecuting, -5),
			pbatch("alpha", "p1", "high", store.BatchPending, math.MaxInt64),
			pbatch("alpha", "d1", "medium", store.BatchDone, math.MinInt64),
			{Processor: "bare", ID: "1", State: store.BatchQueued},
		},
		Callbacks: []store.Callback{
			pcallback("alpha", 1, store.CallbackDelivered),
			pcallback("alpha", 2, store.CallbackPending),
			cbBare,
		},
		Cursors: []store.Cursor{{Name: "chain/events", Value: math.MaxUint64}, {Name: "zero", Value: 0}, {Name: "one", Value: 1}},
	}
}

func (s *procSuite) testRoundTrip(t *testing.T) {
	st := s.fresh(t)
	c := roundTripFixture()
	applyProc(t, st, c)

	for _, want := range c.Processors {
		if err := diffProcessor(getProc(t, st, want.Name), want); err != nil {
			t.Fatalf("GetProcessor: %v", err)
		}
	}
	for _, want := range c.Batches {
		if err := diffProcBatch(getBatch(t, st, want.Processor, want.ID), want); err != nil {
			t.Fatalf("GetBatch: %v", err)
		}
	}
	if err := diffList("Callbacks(alpha)", callbacks(t, st, "alpha", 0, 0), c.Callbacks[:2], diffCallback); err != nil {
		t.Fatal(err)
	}
	if err := diffList("Callbacks(bare)", callbacks(t, st, "bare", 0, 0), c.Callbacks[2:], diffCallback); err != nil {
		t.Fatal(err)
	}
	for _, cu := range c.Cursors {
		if got := cursor(t, st, cu.Name); got != cu.Value {
			t.Fatalf("Cursor(%s) = %d, want %d", cu.Name, got, cu.Value)
		}
	}
	checkSnapshot(t, st, store.ProcSnapshot{
		Processors: c.Processors,
		// processor, priority, then Key.
		Batches:   []store.ProcBatch{c.Batches[0], c.Batches[2], c.Batches[1], c.Batches[4]},
		Callbacks: []store.Callback{c.Callbacks[1]},
		Cursors:   []store.Cursor{c.Cursors[0], c.Cursors[2], c.Cursors[1]},
	})
}

func (s *procSuite) testUpsert(t *testing.T) {
	st := s.fresh(t)
	p1, p2 := proc("p", 1), proc("p", 2)
	p2.Paused, p2.NextID, p2.CallbackURL = false, 43, ""
	b1 := pbatch("p", "b", "high", store.BatchQueued, 1)
	b2 := pbatch("p", "b", "medium", store.BatchExecuting, 9)
	b2.Body = []byte(`{"progress":1}`)
	c1 := pcallback("p", 1, store.CallbackPending)
	c2 := c1
	c2.State, c2.Attempts, c2.LastError, c2.NextAt = store.CallbackDelivered, 3, "", at(999)
	// Within one call the later record of a key wins.
	applyProc(t, st, store.ProcChanges{
		Processors: []store.Processor{p1, p2},
		Batches:    []store.ProcBatch{b1, b2},
		Callbacks:  []store.Callback{c1, c2},
		Cursors:    []store.Cursor{{Name: "c", Value: 5}, {Name: "c", Value: 3}},
	})
	check := func(when string, p store.Processor, b store.ProcBatch, c store.Callback, cur uint64) {
		t.Helper()
		if err := diffProcessor(getProc(t, st, "p"), p); err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		if err := diffProcBatch(getBatch(t, st, "p", "b"), b); err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		if err := diffList(when+": Callbacks", callbacks(t, st, "p", 0, 0), []store.Callback{c}, diffCallback); err != nil {
			t.Fatal(err)
		}
		if got := cursor(t, st, "c"); got != cur {
			t.Fatalf("%s: Cursor = %d, want %d", when, got, cur)
		}
		snap := snapshot(t, st)
		if len(snap.Processors) != 1 || len(snap.Cursors) != 1 {
			t.Fatalf("%s: snapshot holds %d processors, %d cursors; want 1 each", when, len(snap.Processors), len(snap.Cursors))
		}
	}
	check("one call", p2, b2, c2, 3)

	// Across calls too: each record is overwritten whole.
	b3 := b1
	b3.Body = nil
	c3 := pcallback("p", 1, store.CallbackPending)
	c3.Key = "" // an empty key releases the old one
	applyProc(t, st, store.ProcChanges{
		Processors: []store.Processor{p1},
		Batches:    []store.ProcBatch{b3},
		Callbacks:  []store.Callback{c3},
		Cursors:    []store.Cursor{{Name: "c", Value: 0}},
	})
	check("second call", p1, b3, c3, 0)

	// A key released by one callback may go to another.
	c4 := pcallback("p", 2, store.CallbackPending)
	c4.Key = c1.Key
	applyProc(t, st, store.ProcChanges{Callbacks: []store.Callback{c4}})
	if err := diffList("Callbacks", callbacks(t, st, "p", 0, 0), []store.Callback{c3, c4}, diffCallback); err != nil {
		t.Fatal(err)
	}
}

func (s *procSuite) testProcReopen(t *testing.T) {
	dir := t.TempDir()
	st := s.openAt(t, dir)
	c := roundTripFixture()
	applyProc(t, st, c)
	want := snapshot(t, st)
	if err := st.close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	st = s.openAt(t, dir)
	if err := diffSnapshot(snapshot(t, st), want); err != nil {
		t.Fatalf("after reopen: %v", err)
	}
	if err := diffProcBatch(getBatch(t, st, "alpha", "d1"), c.Batches[3]); err != nil {
		t.Fatalf("after reopen: %v", err)
	}
	if err := diffList("Callbacks", callbacks(t, st, "alpha", 0, 0), c.Callbacks[:2], diffCallback); err != nil {
		t.Fatalf("after reopen: %v", err)
	}
	// The reopened store takes writes.
	applyProc(t, st, store.ProcChanges{Cursors: []store.Cursor{{Name: "after", Value: 9}}})
	if got := cursor(t, st, "after"); got != 9 {
		t.Fatalf("Cursor after reopen = %d, want 9", got)
	}
}

func (s *procSuite) testProcClosed(t *testing.T) {
	st := s.fresh(t)
	if _, ok := st.ProcessorStore.(io.Closer); !ok {
		t.Skip("the store is not an io.Closer")
	}
	applyProc(t, st, store.ProcChanges{Processors: []store.Processor{proc("p", 0)}})
	if err := st.close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := st.ApplyProcessor(ctxT(t), store.ProcChanges{Cursors: []store.Cursor{{Name: "c", Value: 1}}}); err == nil {
		t.Fatal("ApplyProcessor after Close succeeded")
	}
	if _, err := st.GetProcessor(ctxT(t), "p"); err == nil {
		t.Fatal("GetProcessor after Close succeeded")
	}
	if _, err := st.ProcessorSnapshot(ctxT(t)); err == nil {
		t.Fatal("ProcessorSnapshot after Close succeeded")
	}
}

func (s *procSuite) testProcAtomic(t *testing.T) {
	st := s.fresh(t)
	taken := pcallback("p", 1, store.CallbackPending)
	applyProc(t, st, store.ProcChanges{
		Processors: []store.Processor{proc("p", 0)},
		Callbacks:  []store.Callback{taken},
	})
	before := snapshot(t, st)

	stolen := pcallback("p", 2, store.CallbackPending)
	stolen.Key = taken.Key
	twin := pcallback("q", 1, store.CallbackPending)
	twin2 := pcallback("q", 2, store.CallbackPending)
	twin2.Key = twin.Key
	bad := []struct {
		name string
		mod  func(c *store.ProcChanges)
	}{
		{"processor without name", func(c *store.ProcChanges) { c.Processors = append(c.Processors, store.Processor{Owner: "o"}) }},
		{"batch without processor", func(c *store.ProcChanges) {
			c.Batches = append(c.Batches, pbatch("", "b", "high", store.BatchQueued, 1))
		}},
		{"batch without id", func(c *store.ProcChanges) {
			c.Batches = append(c.Batches, pbatch("new", "", "high", store.BatchQueued, 1))
		}},
		{"batch with a bad state", func(c *store.ProcChanges) {
			c.Batches = append(c.Batches, pbatch("new", "b", "high", "lost", 1))
		}},
		{"callback without processor", func(c *store.ProcChanges) {
			c.Callbacks = append(c.Callbacks, pcallback("", 1, store.CallbackPending))
		}},
		{"callback seq 0", func(c *store.ProcChanges) {
			c.Callbacks = append(c.Callbacks, pcallback("new", 0, store.CallbackPending))
		}},
		{"callback with a bad state", func(c *store.ProcChanges) {
			c.Callbacks = append(c.Callbacks, pcallback("new", 1, "sent"))
		}},
		{"cursor without name", func(c *store.ProcChanges) { c.Cursors = append(c.Cursors, store.Cursor{Value: 1}) }},
		{"callback key held in the store", func(c *store.ProcChanges) { c.Callbacks = append(c.Callbacks, stolen) }},
		{"callback key held in the call", func(c *store.ProcChanges) { c.Callbacks = append(c.Callbacks, twin, twin2) }},
	}
	for _, tc := range bad {
		// Valid records of every kind come first: none may land.
		c := store.ProcChanges{
			Processors: []store.Processor{proc("new", 5), proc("p", 6)},
			Batches:    []store.ProcBatch{pbatch("new", "ok", "high", store.BatchQueued, 1)},
			Callbacks:  []store.Callback{pcallback("new", 7, store.CallbackPending)},
			Cursors:    []store.Cursor{{Name: "new", Value: 1}},
		}
		tc.mod(&c)
		if err := st.ApplyProcessor(ctxT(t), c); err == nil {
			t.Fatalf("%s: ApplyProcessor succeeded, want an error", tc.name)
		}
		if err := diffSnapshot(snapshot(t, st), before); err != nil {
			t.Fatalf("%s: the refused call wrote: %v", tc.name, err)
		}
		if _, err := st.GetBatch(ctxT(t), "new", "ok"); err == nil {
			t.Fatalf("%s: the refused call wrote batch new/ok", tc.name)
		}
	}

	// A refused call among concurrent ones fails alone.
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			c := store.ProcChanges{Batches: []store.ProcBatch{pbatch("p", fmt.Sprintf("c%d", i), "high", store.BatchQueued, int64(i))}}
			if i%2 == 1 {
				c.Callbacks = []store.Callback{stolen}
			}
			errs[i] = st.ApplyProcessor(ctxT(t), c)
		})
	}
	wg.Wait()
	for i, err := range errs {
		_, gerr := st.GetBatch(ctxT(t), "p", fmt.Sprintf("c%d", i))
		if i%2 == 0 {
			if err != nil || gerr != nil {
				t.Fatalf("valid call %d: ApplyProcessor: %v; GetBatch: %v", i, err, gerr)
			}
			continue
		}
		if err == nil {
			t.Fatalf("refused call %d succeeded", i)
		}
		if gerr == nil {
			t.Fatalf("refused call %d wrote its batch", i)
		}
	}
}

func (s *procSuite) testProcEmpty(t *testing.T) {
	st := s.fresh(t)
	if err := st.ApplyProcessor(ctxT(t), store.ProcChanges{}); err != nil {
		t.Fatalf("ApplyProcessor(empty): %v", err)
	}
	checkSnapshot(t, st, store.ProcSnapshot{})
}

func (s *procSuite) testProcConcurrent(t *testing.T) {
	st := s.fresh(t)
	applyProc(t, st, store.ProcChanges{Processors: []store.Processor{proc("p", 0)}})
	const workers, each = 16, 25
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				n := int64(w*each + i + 1)
				c := store.ProcChanges{
					Batches:   []store.ProcBatch{pbatch("p", fmt.Sprintf("b%d", n), "high", store.BatchQueued, n)},
					Callbacks: []store.Callback{pcallback("p", n, store.CallbackStored)},
					Cursors:   []store.Cursor{{Name: fmt.Sprintf("w%d", w), Value: uint64(i + 1)}},
				}
				if err := st.ApplyProcessor(ctxT(t), c); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	const total = workers * each
	if err := diffCounts(counts(t, st, "p"), store.ProcCounts{
		Queued:    map[string]int{"high": total},
		Callbacks: map[store.CallbackState]int{store.CallbackStored: total},
	}); err != nil {
		t.Fatal(err)
	}
	cs := callbacks(t, st, "p", 0, 1000)
	if len(cs) != total {
		t.Fatalf("Callbacks: %d, want %d", len(cs), total)
	}
	for i, c := range cs {
		if c.Seq != int64(i+1) {
			t.Fatalf("Callbacks[%d].Seq = %d, want %d", i, c.Seq, i+1)
		}
	}
	for w := range workers {
		if got := cursor(t, st, fmt.Sprintf("w%d", w)); got != each {
			t.Fatalf("Cursor(w%d) = %d, want %d", w, got, each)
		}
	}
}

func (s *procSuite) testProcCancelled(t *testing.T) {
	st := s.fresh(t)
	applyProc(t, st, store.ProcChanges{
		Processors: []store.Processor{proc("p", 0)},
		Batches:    []store.ProcBatch{pbatch("p", "b", "high", store.BatchQueued, 1)},
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := st.ApplyProcessor(ctx, store.ProcChanges{Cursors: []store.Cursor{{Name: "c", Value: 1}}})
	wantCtxErr(t, "ApplyProcessor", ctx, err)
	if got := cursor(t, st, "c"); got != 0 {
		t.Fatalf("a cancelled ApplyProcessor wrote cursor c = %d", got)
	}
	_, err = st.ProcessorSnapshot(ctx)
	wantCtxErr(t, "ProcessorSnapshot", ctx, err)
	_, err = st.GetProcessor(ctx, "p")
	wantCtxErr(t, "GetProcessor", ctx, err)
	_, err = st.GetBatch(ctx, "p", "b")
	wantCtxErr(t, "GetBatch", ctx, err)
	_, err = st.QueuedBatches(ctx, "p", "high", 0, 0)
	wantCtxErr(t, "QueuedBatches", ctx, err)
	_, err = st.ProcessorCounts(ctx, "p")
	wantCtxErr(t, "ProcessorCounts", ctx, err)
	_, err = st.Callbacks(ctx, "p", 0, 0)
	wantCtxErr(t, "Callbacks", ctx, err)
	_, err = st.Cursor(ctx, "c")
	wantCtxErr(t, "Cursor", ctx, err)
}
