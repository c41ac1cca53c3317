package storetest

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/store"
)

// LeaderOpenFunc opens the leader store kept in dir (an empty directory the
// first time). The suite calls it again with the same dir to check that
// records survive a close and a reopen. If the value it returns implements
// io.Closer, the suite closes it (at the latest when the test ends).
type LeaderOpenFunc func(t *testing.T, dir string) store.LeaderStore

type leaderSuite struct {
	opener[store.LeaderStore, *leaderHandle]
}

// RunLeader runs the conformance suite of store.LeaderStore against the
// stores that open returns. Subtests run in parallel, each with its own
// directory.
//
// Beyond the interface's comments, it pins down:
//   - every field round-trips; times to the nanosecond and in UTC, a zero
//     time (ActiveAt, BlockedUntil, …) comes back zero; Height and Cursor
//     values over the whole uint64 range; JSON and Output as equal JSON, an
//     empty one comes back empty; a negative Channel;
//   - records are upserted whole: a later write of a key, in the same call
//     or a later one, replaces every field;
//   - a LeaderEvent whose Walk another ID holds, in the store or earlier in
//     the same call, makes ApplyLeader fail with an error wrapping
//     store.ErrWalkIndexed and write nothing of the call; an ID may rewrite
//     its own record, and a walk an ID gave up may go to another ID;
//   - ApplyLeader refuses, with an error (not ErrWalkIndexed) and writing
//     nothing of the call: a LeaderEvent with an ID below 1 (chain cursors
//     start at 1; LeaderFilter.After 0 lists from the start), an empty Walk
//     or a Status not one of the four; a LeaderChannel with a negative
//     Index; a Cursor with an empty Name;
//   - empty LeaderChanges write nothing and succeed;
//   - LeaderEvents: a Limit of 0 or less means 100, more than 1000 means
//     1000; a Status not one of the four is an error;
//   - LeaderCounts holds all four statuses, zero included;
//   - LeaderEvent and LeaderEventByWalk of an unknown key wrap
//     store.ErrNotFound;
//   - the snapshot's Cursors are the cursors written through ApplyLeader
//     (on a store the processor shares, its cursors too);
//   - a refused call among concurrent ones fails alone;
//   - a ctx already done makes every call return an error wrapping
//     ctx.Err(), and ApplyLeader write nothing;
//   - a store that is an io.Closer fails calls made after Close (they do
//     not hang).
func RunLeader(t *testing.T, open LeaderOpenFunc) {
	s := &leaderSuite{opener[store.LeaderStore, *leaderHandle]{open: open,
		wrap: func(st store.LeaderStore) *leaderHandle { return &leaderHandle{LeaderStore: st} }}}
	runParallel(t, []subtest{
		{"RoundTrip", s.testRoundTrip},
		{"Upsert", s.testUpsert},
		{"WalkIndexed", s.testWalkIndexed},
		{"Refused", s.testRefused},
		{"Empty", s.testEmpty},
		{"Snapshot", s.testSnapshot},
		{"Events", s.testEvents},
		{"EventsLimits", s.testEventsLimits},
		{"EventByWalk", s.testByWalk},
		{"Counts", s.testCounts},
		{"Channels", s.testChannels},
		{"Cursors", s.testCursors},
		{"NotFound", s.testNotFound},
		{"Reopen", s.testReopen},
		{"Closed", s.testClosed},
		{"Concurrent", s.testConcurrent},
		{"ConcurrentRefused", s.testConcurrentRefused},
		{"Cancelled", s.testCancelled},
	})
}

// leaderHandle is an opened leader store with an idempotent close.
type leaderHandle struct {
	store.LeaderStore
	closeOnce
}

func (h *leaderHandle) close() error { return h.closeStore(h.LeaderStore) }

// Fixtures.

// levent is an event record with every field set; the ones a status does
// not use are set anyway (the store keeps what it is given).
func levent(id int64, walk string, status store.EventStatus) store.LeaderEvent {
	ms := int(id)
	return store.LeaderEvent{
		ID: id, Walk: walk, Tool: "tool-" + walk, Digest: fmt.Sprintf("0x%064x", id),
		JSON:   []byte(fmt.Sprintf(`{"walkId":%q,"tool":"tool-%s","args":{"n":%d,"s":[1,2]}}`, walk, walk, id)),
		Height: uint64(id) * 3, Status: status, Retried: 2, Error: "tool timed out",
		Phase: "report", OK: true, Output: []byte(fmt.Sprintf(`{"result":%d}`, id)),
		Channel: int(id % 4), ResultUID: fmt.Sprintf("leader-result-%d", id), Reports: int(id % 3),
		ActiveAt: at(ms + 10), CreatedAt: at(ms), UpdatedAt: at(ms + 20),
	}
}

func lchannel(idx int, ms int) store.LeaderChannel {
	return store.LeaderChannel{
		Index: idx, Account: fmt.Sprintf("B62qchannel%d", idx), BlockedUntil: at(ms + 500),
		LastError: "result transaction failed: nonce", UpdatedAt: at(ms),
	}
}

func applyLeader(t *testing.T, st store.LeaderStore, c store.LeaderChanges) {
	t.Helper()
	if err := st.ApplyLeader(ctxT(t), c); err != nil {
		t.Fatalf("ApplyLeader: %v", err)
	}
}

func leaderSnapshot(t *testing.T, st store.LeaderStore) store.LeaderSnapshot {
	t.Helper()
	snap, err := st.LeaderSnapshot(ctxT(t))
	if err != nil {
		t.Fatalf("LeaderSnapshot: %v", err)
	}
	return snap
}

func leaderEvent(t *testing.T, st store.LeaderStore, id int64) store.LeaderEvent {
	t.Helper()
	e, err := st.LeaderEvent(ctxT(t), id)
	if err != nil {
		t.Fatalf("LeaderEvent(%d): %v", id, err)
	}
	return e
}

func leaderByWalk(t *testing.T, st store.LeaderStore, walk string) store.LeaderEvent {
	t.Helper()
	e, err := st.LeaderEventByWalk(ctxT(t), walk)
	if err != nil {
		t.Fatalf("LeaderEventByWalk(%q): %v", walk, err)
	}
	return e
}

func leaderEvents(t *testing.T, st store.LeaderStore, f store.LeaderFilter) []store.LeaderEvent {
	t.Helper()
	es, err := st.LeaderEvents(ctxT(t), f)
	if err != nil {
		t.Fatalf("LeaderEvents(%+v): %v", f, err)
	}
	return es
}

func leaderCounts(t *testing.T, st store.LeaderStore) map[store.EventStatus]int {
	t.Helper()
	c, err := st.LeaderCounts(ctxT(t))
	if err != nil {
		t.Fatalf("LeaderCounts: %v", err)
	}
	return c
}

func leaderChannels(t *testing.T, st store.LeaderStore) []store.LeaderChannel {
	t.Helper()
	cs, err := st.LeaderChannels(ctxT(t))
	if err != nil {
		t.Fatalf("LeaderChannels: %v", err)
	}
	return cs
}

// Comparisons.

func diffLeaderEvent(got, want store.LeaderEvent) error {
	name := fmt.Sprintf("event %d (%s)", want.ID, want.Walk)
	if !jsonEqual(got.JSON, want.JSON) {
		return fmt.Errorf("%s: JSON %s, want %s", name, got.JSON, want.JSON)
	}
	if !jsonEqual(got.Output, want.Output) {
		return fmt.Errorf("%s: Output %s, want %s", name, got.Output, want.Output)
	}
	for _, tm := range []struct {
		what      string
		got, want time.Time
	}{
		{"ActiveAt", got.ActiveAt, want.ActiveAt},
		{"CreatedAt", got.CreatedAt, want.CreatedAt},
		{"UpdatedAt", got.UpdatedAt, want.UpdatedAt},
	} {
		if err := timeEqual(tm.got, tm.want); err != nil {
			return fmt.Errorf("%s: %s %w", name, tm.what, err)
		}
	}
	got.JSON, got.Output, want.JSON, want.Output = nil, nil, nil, nil
	got.ActiveAt, got.CreatedAt, got.UpdatedAt = time.Time{}, time.Time{}, time.Time{}
	want.ActiveAt, want.CreatedAt, want.UpdatedAt = time.Time{}, time.Time{}, time.Time{}
	if !reflect.DeepEqual(got, want) {
		return fmt.Errorf("%+v, want %+v", got, want)
	}
	return nil
}

func diffLeaderChannel(got, want store.LeaderChannel) error {
	if err := timeEqual(got.BlockedUntil, want.BlockedUntil); err != nil {
		return fmt.Errorf("channel %d: BlockedUntil %w", want.Index, err)
	}
	if err := timeEqual(got.UpdatedAt, want.UpdatedAt); err != nil {
		return fmt.Errorf("channel %d: UpdatedAt %w", want.Index, err)
	}
	got.BlockedUntil, got.UpdatedAt, want.BlockedUntil, want.UpdatedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	if got != want {
		return fmt.Errorf("channel %+v, want %+v", got, want)
	}
	return nil
}

func diffLeaderSnapshot(got, want store.LeaderSnapshot) error {
	return errors.Join(
		diffList("Events", got.Events, want.Events, diffLeaderEvent),
		diffList("Channels", got.Channels, want.Channels, diffLeaderChannel),
		diffList("Cursors", got.Cursors, want.Cursors, diffCursor),
	)
}

func checkLeaderSnapshot(t *testing.T, st store.LeaderStore, want store.LeaderSnapshot) {
	t.Helper()
	if err := diffLeaderSnapshot(leaderSnapshot(t, st), want); err != nil {
		t.Fatal(err)
	}
}

// checkCounts compares LeaderCounts with want, whose missing statuses are
// zero; every status must be present in the store's answer.
func checkCounts(t *testing.T, st store.LeaderStore, want map[store.EventStatus]int) {
	t.Helper()
	got := leaderCounts(t, st)
	full := map[store.EventStatus]int{
		store.EventQueued: 0, store.EventActive: 0, store.EventSuccessful: 0, store.EventDead: 0,
	}
	maps.Copy(full, want)
	if !maps.Equal(got, full) {
		t.Fatalf("LeaderCounts = %v, want %v", got, full)
	}
}
