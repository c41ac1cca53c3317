package storetest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/store"
)

// ProcessorOpenFunc opens the processor store kept in dir (an empty
// directory the first time). The suite calls it again with the same dir to
// check that records survive a close and a reopen. If the value it returns
// implements io.Closer, the suite closes it (at the latest when the test
// ends).
type ProcessorOpenFunc func(t *testing.T, dir string) store.ProcessorStore

type procSuite struct {
	opener[store.ProcessorStore, *procHandle]
}

// RunProcessor runs the conformance suite of store.ProcessorStore against
// the stores that open returns. Subtests run in parallel, each with its own
// directory.
//
// Beyond the interface's comments, it pins down:
//   - every field round-trips; times to the nanosecond and in UTC, a zero
//     time (NextAt, DeliveredAt, …) comes back zero; Cursor values over the
//     whole uint64 range; bodies as equal JSON, an empty one comes back empty;
//   - ApplyProcessor refuses, with an error and writing nothing of the call:
//     a Processor with an empty Name; a ProcBatch with an empty Processor or
//     ID, or a State not one of the four; a Callback with an empty Processor,
//     a Seq below 1, or a State not one of the three; a Cursor with an empty
//     Name; a Callback whose non-empty Key another callback (another
//     Processor and Seq) holds, in the store or earlier in the same call;
//   - empty ProcChanges write nothing and succeed;
//   - a ctx already done makes every call return an error wrapping
//     ctx.Err(), and ApplyProcessor write nothing;
//   - QueuedBatches: limit 0 or less means 100, more than 1000 means 1000,
//     an offset past the end gives an empty page; Callbacks likewise;
//   - ProcessorCounts of an unknown processor is all zero, no error; the
//     maps may or may not hold entries for zero counts;
//   - GetProcessor and GetBatch of an unknown key wrap store.ErrNotFound;
//   - a store that is an io.Closer fails calls made after Close (they do
//     not hang).
func RunProcessor(t *testing.T, open ProcessorOpenFunc) {
	s := &procSuite{opener[store.ProcessorStore, *procHandle]{open: open,
		wrap: func(st store.ProcessorStore) *procHandle { return &procHandle{ProcessorStore: st} }}}
	runParallel(t, []subtest{
		{"RoundTrip", s.testRoundTrip},
		{"Upsert", s.testUpsert},
		{"Snapshot", s.testSnapshot},
		{"QueuedBatches", s.testQueued},
		{"QueuedBatchesLimits", s.testQueuedLimits},
		{"Counts", s.testCounts},
		{"CallbacksPaging", s.testCallbacksPaging},
		{"Cursor", s.testCursor},
		{"NotFound", s.testProcNotFound},
		{"Reopen", s.testProcReopen},
		{"Closed", s.testProcClosed},
		{"Atomic", s.testProcAtomic},
		{"Empty", s.testProcEmpty},
		{"Concurrent", s.testProcConcurrent},
		{"Cancelled", s.testProcCancelled},
	})
}

// procHandle is an opened processor store with an idempotent close.
type procHandle struct {
	store.ProcessorStore
	closeOnce
}

func (h *procHandle) close() error { return h.closeStore(h.ProcessorStore) }

// Fixtures.

func proc(name string, ms int) store.Processor {
	return store.Processor{
		Name: name, Owner: "B62qowner" + name, CallbackURL: "https://example.test/cb/" + name,
		AutoTick: 1500*time.Millisecond + 7, Lanes: 3, Paused: true, NextID: 42, NextCallback: 7,
		CreatedAt: at(ms), UpdatedAt: at(ms + 1),
	}
}

func pbatch(processor, id, priority string, state store.BatchState, key int64) store.ProcBatch {
	return store.ProcBatch{
		Processor: processor, ID: id, Priority: priority, State: state, Key: key,
		Body:      []byte(fmt.Sprintf(`{"id":%q,"messages":[{"to":"B62q","n":%d}]}`, id, key)),
		CreatedAt: at(int(key)), UpdatedAt: at(int(key) + 5),
	}
}

func pcallback(processor string, seq int64, state store.CallbackState) store.Callback {
	return store.Callback{
		Processor: processor, Seq: seq, BatchID: fmt.Sprintf("b%d", seq),
		Key:   fmt.Sprintf("%s/b%d/outcome", processor, seq),
		Body:  []byte(fmt.Sprintf(`{"batch":"b%d","success":true}`, seq)),
		State: state, Attempts: 2, NextAt: at(int(seq) + 100), LastError: "503 from receiver",
		DeliveredAt: at(int(seq) + 200), CreatedAt: at(int(seq)),
	}
}

func applyProc(t *testing.T, st store.ProcessorStore, c store.ProcChanges) {
	t.Helper()
	if err := st.ApplyProcessor(ctxT(t), c); err != nil {
		t.Fatalf("ApplyProcessor: %v", err)
	}
}

func snapshot(t *testing.T, st store.ProcessorStore) store.ProcSnapshot {
	t.Helper()
	snap, err := st.ProcessorSnapshot(ctxT(t))
	if err != nil {
		t.Fatalf("ProcessorSnapshot: %v", err)
	}
	return snap
}

func getProc(t *testing.T, st store.ProcessorStore, name string) store.Processor {
	t.Helper()
	p, err := st.GetProcessor(ctxT(t), name)
	if err != nil {
		t.Fatalf("GetProcessor(%s): %v", name, err)
	}
	return p
}

func getBatch(t *testing.T, st store.ProcessorStore, processor, id string) store.ProcBatch {
	t.Helper()
	b, err := st.GetBatch(ctxT(t), processor, id)
	if err != nil {
		t.Fatalf("GetBatch(%s, %s): %v", processor, id, err)
	}
	return b
}

func callbacks(t *testing.T, st store.ProcessorStore, processor string, after int64, limit int) []store.Callback {
	t.Helper()
	cs, err := st.Callbacks(ctxT(t), processor, after, limit)
	if err != nil {
		t.Fatalf("Callbacks(%s, %d, %d): %v", processor, after, limit, err)
	}
	return cs
}

func cursor(t *testing.T, st store.ProcessorStore, name string) uint64 {
	t.Helper()
	v, err := st.Cursor(ctxT(t), name)
	if err != nil {
		t.Fatalf("Cursor(%s): %v", name, err)
	}
	return v
}

func counts(t *testing.T, st store.ProcessorStore, processor string) store.ProcCounts {
	t.Helper()
	c, err := st.ProcessorCounts(ctxT(t), processor)
	if err != nil {
		t.Fatalf("ProcessorCounts(%s): %v", processor, err)
	}
	return c
}

// Comparisons.

func diffProcessor(got, want store.Processor) error {
	if err := timeEqual(got.CreatedAt, want.CreatedAt); err != nil {
		return fmt.Errorf("processor %s: CreatedAt %w", want.Name, err)
	}
	if err := timeEqual(got.UpdatedAt, want.UpdatedAt); err != nil {
		return fmt.Errorf("processor %s: UpdatedAt %w", want.Name, err)
	}
	got.CreatedAt, got.UpdatedAt, want.CreatedAt, want.UpdatedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	if got != want {
		return fmt.Errorf("processor %+v, want %+v", got, want)
	}
	return nil
}

func diffProcBatch(got, want store.ProcBatch) error {
	name := want.Processor + "/" + want.ID
	if !jsonEqual(got.Body, want.Body) {
		return fmt.Errorf("batch %s: Body %s, want %s", name, got.Body, want.Body)
	}
	if err := timeEqual(got.CreatedAt, want.CreatedAt); err != nil {
		return fmt.Errorf("batch %s: CreatedAt %w", name, err)
	}
	if err := timeEqual(got.UpdatedAt, want.UpdatedAt); err != nil {
		return fmt.Errorf("batch %s: UpdatedAt %w", name, err)
	}
	got.Body, want.Body = nil, nil
	got.CreatedAt, got.UpdatedAt, want.CreatedAt, want.UpdatedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	if !reflect.DeepEqual(got, want) {
		return fmt.Errorf("batch %+v, want %+v", got, want)
	}
	return nil
}

func diffCallback(got, want store.Callback) error {
	name := fmt.Sprintf("%s/%d", want.Processor, want.Seq)
	if !jsonEqual(got.Body, want.Body) {
		return fmt.Errorf("callback %s: Body %s, want %s", name, got.Body, want.Body)
	}
	for _, tm := range []struct {
		what      string
		got, want time.Time
	}{
		{"NextAt", got.NextAt, want.NextAt},
		{"DeliveredAt", got.DeliveredAt, want.DeliveredAt},
		{"CreatedAt", got.CreatedAt, want.CreatedAt},
	} {
		if err := timeEqual(tm.got, tm.want); err != nil {
			return fmt.Errorf("callback %s: %s %w", name, tm.what, err)
		}
	}
	got.Body, want.Body = nil, nil
	got.NextAt, got.DeliveredAt, got.CreatedAt = time.Time{}, time.Time{}, time.Time{}
	want.NextAt, want.DeliveredAt, want.CreatedAt = time.Time{}, time.Time{}, time.Time{}
	if !reflect.DeepEqual(got, want) {
		return fmt.Errorf("callback %+v, want %+v", got, want)
	}
	return nil
}

// diffList compares two lists element by element.
func diffList[T any](what string, got, want []T, diff func(got, want T) error) error {
	if len(got) != len(want) {
		return fmt.Errorf("%s: %d records %+v, want %d %+v", what, len(got), got, len(want), want)
	}
	for i := range got {
		if err := diff(got[i], want[i]); err != nil {
			return fmt.Errorf("%s[%d]: %w", what, i, err)
		}
	}
	return nil
}

func diffCursor(got, want store.Cursor) error {
	if got != want {
		return fmt.Errorf("cursor %+v, want %+v", got, want)
	}
	return nil
}

func diffSnapshot(got, want store.ProcSnapshot) error {
	return errors.Join(
		diffList("Processors", got.Processors, want.Processors, diffProcessor),
		diffList("Batches", got.Batches, want.Batches, diffProcBatch),
		diffList("Callbacks", got.Callbacks, want.Callbacks, diffCallback),
		diffList("Cursors", got.Cursors, want.Cursors, diffCursor),
	)
}

func checkSnapshot(t *testing.T, st store.ProcessorStore, want store.ProcSnapshot) {
	t.Helper()
	if err := diffSnapshot(snapshot(t, st), want); err != nil {
		t.Fatal(err)
	}
}

// nonZero drops a count map's zero entries: a store may report them or not.
func nonZero[K comparable](m map[K]int) map[K]int {
	out := map[K]int{}
	for k, v := range m {
		if v != 0 {
			out[k] = v
		}
	}
	return out
}

func diffCounts(got, want store.ProcCounts) error {
	if got.Executing != want.Executing || got.Pending != want.Pending || got.Done != want.Done ||
		!maps.Equal(nonZero(got.Queued), nonZero(want.Queued)) ||
		!maps.Equal(nonZero(got.Callbacks), nonZero(want.Callbacks)) {
		return fmt.Errorf("counts %+v, want %+v", got, want)
	}
	return nil
}

// wantCtxErr fails unless err wraps ctx's error.
func wantCtxErr(t *testing.T, what string, ctx context.Context, err error) {
	t.Helper()
	if err == nil || !errors.Is(err, ctx.Err()) {
		t.Fatalf("%s with a cancelled ctx: err = %v, want one wrapping %v", what, err, ctx.Err())
	}
}
