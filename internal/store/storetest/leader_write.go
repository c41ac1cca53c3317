package storetest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"testing"

	"github.com/ordolabs/ordo/internal/store"
)

// leaderFixture is records of each kind with every field set, and ones
// with only their keys and required fields (zero times, empty bodies).
func leaderFixture() store.LeaderChanges {
	full := levent(7, "walk-7", store.EventActive)
	full.Height = math.MaxUint64
	huge := levent(math.MaxInt64, "walk-max", store.EventSuccessful)
	unsent := levent(3, "walk-3", store.EventQueued)
	unsent.Channel, unsent.OK, unsent.Phase = -1, false, ""
	dead := levent(12, "walk-12", store.EventDead)
	dead.Error, dead.OK = "retries used up: tool exited 2", false
	bare := store.LeaderEvent{ID: 1, Walk: "w", Status: store.EventQueued}
	return store.LeaderChanges{
		Events:   []store.LeaderEvent{full, huge, unsent, dead, bare},
		Channels: []store.LeaderChannel{lchannel(2, 40), lchannel(0, 30), {Index: 1}},
		Cursors: []store.Cursor{
			{Name: "leader/events", Value: math.MaxUint64}, {Name: "zero", Value: 0}, {Name: "one", Value: 1},
		},
	}
}

func (s *leaderSuite) testRoundTrip(t *testing.T) {
	st := s.fresh(t)
	c := leaderFixture()
	applyLeader(t, st, c)
	for _, want := range c.Events {
		if err := diffLeaderEvent(leaderEvent(t, st, want.ID), want); err != nil {
			t.Fatalf("LeaderEvent: %v", err)
		}
		if err := diffLeaderEvent(leaderByWalk(t, st, want.Walk), want); err != nil {
			t.Fatalf("LeaderEventByWalk: %v", err)
		}
	}
	if err := diffList("LeaderEvents", leaderEvents(t, st, store.LeaderFilter{}),
		[]store.LeaderEvent{c.Events[4], c.Events[2], c.Events[0], c.Events[3], c.Events[1]}, diffLeaderEvent); err != nil {
		t.Fatal(err)
	}
	wantChannels := []store.LeaderChannel{c.Channels[1], c.Channels[2], c.Channels[0]}
	if err := diffList("LeaderChannels", leaderChannels(t, st), wantChannels, diffLeaderChannel); err != nil {
		t.Fatal(err)
	}
	checkLeaderSnapshot(t, st, store.LeaderSnapshot{
		// Queued and Active only, in ID order.
		Events:   []store.LeaderEvent{c.Events[4], c.Events[2], c.Events[0]},
		Channels: wantChannels,
		Cursors:  []store.Cursor{c.Cursors[0], c.Cursors[2], c.Cursors[1]},
	})
}

func (s *leaderSuite) testUpsert(t *testing.T) {
	st := s.fresh(t)
	e1 := levent(5, "walk-5", store.EventQueued)
	e2 := levent(5, "walk-5", store.EventActive)
	e2.Phase, e2.Retried, e2.Tool = "invoke", 1, "other-tool"
	ch1 := lchannel(0, 1)
	ch2 := lchannel(0, 2)
	ch2.Account, ch2.LastError = "B62qnew", ""
	// Within one call the later record of a key wins.
	applyLeader(t, st, store.LeaderChanges{
		Events:   []store.LeaderEvent{e1, e2},
		Channels: []store.LeaderChannel{ch1, ch2},
		Cursors:  []store.Cursor{{Name: "c", Value: 5}, {Name: "c", Value: 3}},
	})
	check := func(when string, e store.LeaderEvent, ch store.LeaderChannel, cur uint64) {
		t.Helper()
		if err := diffLeaderEvent(leaderEvent(t, st, e.ID), e); err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		if err := diffList(when+": LeaderChannels", leaderChannels(t, st), []store.LeaderChannel{ch}, diffLeaderChannel); err != nil {
			t.Fatal(err)
		}
		snap := leaderSnapshot(t, st)
		if len(snap.Cursors) != 1 || snap.Cursors[0] != (store.Cursor{Name: "c", Value: cur}) {
			t.Fatalf("%s: snapshot cursors %+v, want c = %d", when, snap.Cursors, cur)
		}
		if all := leaderEvents(t, st, store.LeaderFilter{}); len(all) != 1 {
			t.Fatalf("%s: %d event records, want 1", when, len(all))
		}
	}
	check("one call", e2, ch2, 3)

	// Across calls too: each record is overwritten whole (zero times and
	// empty bodies included).
	e3 := store.LeaderEvent{ID: 5, Walk: "walk-5", Status: store.EventDead, Error: "stale", Channel: -1}
	ch3 := store.LeaderChannel{Index: 0, Account: "B62qbare"}
	applyLeader(t, st, store.LeaderChanges{
		Events:   []store.LeaderEvent{e3},
		Channels: []store.LeaderChannel{ch3},
		Cursors:  []store.Cursor{{Name: "c", Value: 0}},
	})
	check("second call", e3, ch3, 0)

	// An ID may take another walk; the walk it gave up is free for another
	// ID, in a later call or later in the same call.
	moved := levent(5, "walk-5b", store.EventQueued)
	taker := levent(6, "walk-5", store.EventQueued)
	applyLeader(t, st, store.LeaderChanges{Events: []store.LeaderEvent{moved, taker}})
	if err := diffLeaderEvent(leaderByWalk(t, st, "walk-5"), taker); err != nil {
		t.Fatalf("walk given up: %v", err)
	}
	if err := diffLeaderEvent(leaderByWalk(t, st, "walk-5b"), moved); err != nil {
		t.Fatalf("walk taken: %v", err)
	}
}

// leaderValid is a call with valid records of every kind: none may land
// when a record added to it is refused.
func leaderValid() store.LeaderChanges {
	return store.LeaderChanges{
		Events:   []store.LeaderEvent{levent(100, "walk-new", store.EventQueued), levent(1, "walk-1", store.EventActive)},
		Channels: []store.LeaderChannel{lchannel(9, 9), lchannel(0, 99)},
		Cursors:  []store.Cursor{{Name: "new", Value: 1}, {Name: "c", Value: 99}},
	}
}

// checkUnchanged fails if anything a leaderValid call writes is in st, or
// the snapshot moved from before.
func checkUnchanged(t *testing.T, st store.LeaderStore, what string, before store.LeaderSnapshot) {
	t.Helper()
	if err := diffLeaderSnapshot(leaderSnapshot(t, st), before); err != nil {
		t.Fatalf("%s: the refused call wrote: %v", what, err)
	}
	if _, err := st.LeaderEvent(ctxT(t), 100); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("%s: the refused call wrote event 100 (err %v)", what, err)
	}
}

func (s *leaderSuite) testWalkIndexed(t *testing.T) {
	st := s.fresh(t)
	held := levent(1, "walk-1", store.EventQueued)
	done := levent(2, "walk-2", store.EventSuccessful)
	applyLeader(t, st, store.LeaderChanges{
		Events:   []store.LeaderEvent{held, done},
		Channels: []store.LeaderChannel{lchannel(0, 0)},
		Cursors:  []store.Cursor{{Name: "c", Value: 2}},
	})
	before := leaderSnapshot(t, st)
	for _, tc := range []struct {
		name  string
		extra []store.LeaderEvent
	}{
		{"walk of a live record", []store.LeaderEvent{levent(3, "walk-1", store.EventQueued)}},
		{"walk of an ended record", []store.LeaderEvent{levent(3, "walk-2", store.EventQueued)}},
		{"walk held earlier in the call", []store.LeaderEvent{
			levent(4, "walk-x", store.EventQueued), levent(5, "walk-x", store.EventQueued),
		}},
		{"an ID taking the walk another ID keeps", []store.LeaderEvent{levent(2, "walk-1", store.EventDead)}},
	} {
		c := leaderValid()
		c.Events = append(c.Events, tc.extra...)
		err := st.ApplyLeader(ctxT(t), c)
		if !errors.Is(err, store.ErrWalkIndexed) {
			t.Fatalf("%s: ApplyLeader err = %v, want one wrapping store.ErrWalkIndexed", tc.name, err)
		}
		checkUnchanged(t, st, tc.name, before)
		if _, err := st.LeaderEvent(ctxT(t), 4); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("%s: the refused call wrote event 4 (err %v)", tc.name, err)
		}
	}
	if err := diffLeaderEvent(leaderByWalk(t, st, "walk-1"), held); err != nil {
		t.Fatalf("after the refused calls: %v", err)
	}
	// The record's own ID may write it again, walk and all.
	again := held
	again.Status, again.Phase = store.EventActive, "invoke"
	applyLeader(t, st, store.LeaderChanges{Events: []store.LeaderEvent{again, again}})
	if err := diffLeaderEvent(leaderByWalk(t, st, "walk-1"), again); err != nil {
		t.Fatalf("rewritten by its own ID: %v", err)
	}
}

func (s *leaderSuite) testRefused(t *testing.T) {
	st := s.fresh(t)
	applyLeader(t, st, store.LeaderChanges{
		Events:   []store.LeaderEvent{levent(1, "walk-1", store.EventQueued)},
		Channels: []store.LeaderChannel{lchannel(0, 0)},
		Cursors:  []store.Cursor{{Name: "c", Value: 2}},
	})
	before := leaderSnapshot(t, st)
	ev := func(mod func(e *store.LeaderEvent)) func(c *store.LeaderChanges) {
		return func(c *store.LeaderChanges) {
			e := levent(50, "walk-50", store.EventQueued)
			mod(&e)
			c.Events = append(c.Events, e)
		}
	}
	for _, tc := range []struct {
		name string
		mod  func(c *store.LeaderChanges)
	}{
		{"event id 0", ev(func(e *store.LeaderEvent) { e.ID = 0 })},
		{"event id below 0", ev(func(e *store.LeaderEvent) { e.ID = -3 })},
		{"event without walk", ev(func(e *store.LeaderEvent) { e.Walk = "" })},
		{"event without status", ev(func(e *store.LeaderEvent) { e.Status = "" })},
		{"event with a bad status", ev(func(e *store.LeaderEvent) { e.Status = "queued" })},
		{"channel with a negative index", func(c *store.LeaderChanges) {
			c.Channels = append(c.Channels, lchannel(-1, 0))
		}},
		{"cursor without name", func(c *store.LeaderChanges) { c.Cursors = append(c.Cursors, store.Cursor{Value: 1}) }},
	} {
		c := leaderValid()
		tc.mod(&c)
		err := st.ApplyLeader(ctxT(t), c)
		if err == nil {
			t.Fatalf("%s: ApplyLeader succeeded, want an error", tc.name)
		}
		if errors.Is(err, store.ErrWalkIndexed) {
			t.Fatalf("%s: ApplyLeader err = %v, which wraps store.ErrWalkIndexed", tc.name, err)
		}
		checkUnchanged(t, st, tc.name, before)
	}
}

func (s *leaderSuite) testEmpty(t *testing.T) {
	st := s.fresh(t)
	if err := st.ApplyLeader(ctxT(t), store.LeaderChanges{}); err != nil {
		t.Fatalf("ApplyLeader(empty): %v", err)
	}
	checkLeaderSnapshot(t, st, store.LeaderSnapshot{})
	checkCounts(t, st, nil)
}

func (s *leaderSuite) testCursors(t *testing.T) {
	st := s.fresh(t)
	cur := func() map[string]uint64 {
		out := map[string]uint64{}
		for _, c := range leaderSnapshot(t, st).Cursors {
			out[c.Name] = c.Value
		}
		return out
	}
	// A cursor commits with what its events produced, or not at all.
	for i, v := range []uint64{1, 1 << 63, 1<<64 - 1, 7} {
		applyLeader(t, st, store.LeaderChanges{
			Events:  []store.LeaderEvent{levent(int64(i+1), fmt.Sprintf("walk-%d", i+1), store.EventQueued)},
			Cursors: []store.Cursor{{Name: "leader/events", Value: v}},
		})
		if got := cur()["leader/events"]; got != v {
			t.Fatalf("cursor = %d, want %d", got, v)
		}
	}
	err := st.ApplyLeader(ctxT(t), store.LeaderChanges{
		Events:  []store.LeaderEvent{levent(9, "walk-1", store.EventQueued)},
		Cursors: []store.Cursor{{Name: "leader/events", Value: 9}, {Name: "other", Value: 9}},
	})
	if !errors.Is(err, store.ErrWalkIndexed) {
		t.Fatalf("ApplyLeader of a taken walk: %v", err)
	}
	if got := cur(); len(got) != 1 || got["leader/events"] != 7 {
		t.Fatalf("after a refused call: cursors %v, want only leader/events = 7", got)
	}
}

func (s *leaderSuite) testReopen(t *testing.T) {
	dir := t.TempDir()
	st := s.openAt(t, dir)
	c := leaderFixture()
	applyLeader(t, st, c)
	want := leaderSnapshot(t, st)
	all := leaderEvents(t, st, store.LeaderFilter{})
	if err := st.close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	st = s.openAt(t, dir)
	if err := diffLeaderSnapshot(leaderSnapshot(t, st), want); err != nil {
		t.Fatalf("after reopen: %v", err)
	}
	if err := diffList("LeaderEvents after reopen", leaderEvents(t, st, store.LeaderFilter{}), all, diffLeaderEvent); err != nil {
		t.Fatal(err)
	}
	checkCounts(t, st, map[store.EventStatus]int{
		store.EventQueued: 2, store.EventActive: 1, store.EventSuccessful: 1, store.EventDead: 1,
	})
	// The reopened store still holds each walk to its ID, and takes writes.
	if err := st.ApplyLeader(ctxT(t), store.LeaderChanges{
		Events: []store.LeaderEvent{levent(99, "walk-7", store.EventQueued)},
	}); !errors.Is(err, store.ErrWalkIndexed) {
		t.Fatalf("ApplyLeader of a taken walk after reopen: %v", err)
	}
	applyLeader(t, st, store.LeaderChanges{
		Events:  []store.LeaderEvent{levent(99, "walk-99", store.EventQueued)},
		Cursors: []store.Cursor{{Name: "after", Value: 9}},
	})
	if e := leaderEvent(t, st, 99); e.Walk != "walk-99" {
		t.Fatalf("event 99 after reopen: %+v", e)
	}
}

func (s *leaderSuite) testClosed(t *testing.T) {
	st := s.fresh(t)
	if _, ok := st.LeaderStore.(io.Closer); !ok {
		t.Skip("the store is not an io.Closer")
	}
	applyLeader(t, st, store.LeaderChanges{Events: []store.LeaderEvent{levent(1, "w", store.EventQueued)}})
	if err := st.close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	ctx := ctxT(t)
	if err := st.ApplyLeader(ctx, store.LeaderChanges{Cursors: []store.Cursor{{Name: "c", Value: 1}}}); err == nil {
		t.Fatal("ApplyLeader after Close succeeded")
	}
	if _, err := st.LeaderSnapshot(ctx); err == nil {
		t.Fatal("LeaderSnapshot after Close succeeded")
	}
	if _, err := st.LeaderEvent(ctx, 1); err == nil {
		t.Fatal("LeaderEvent after Close succeeded")
	}
	if _, err := st.LeaderEventByWalk(ctx, "w"); err == nil {
		t.Fatal("LeaderEventByWalk after Close succeeded")
	}
	if _, err := st.LeaderEvents(ctx, store.LeaderFilter{}); err == nil {
		t.Fatal("LeaderEvents after Close succeeded")
	}
	if _, err := st.LeaderCounts(ctx); err == nil {
		t.Fatal("LeaderCounts after Close succeeded")
	}
	if _, err := st.LeaderChannels(ctx); err == nil {
		t.Fatal("LeaderChannels after Close succeeded")
	}
}

func (s *leaderSuite) testConcurrent(t *testing.T) {
	st := s.fresh(t)
	const workers, each = 16, 25
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				id := int64(w*each + i + 1)
				// Each event is written twice: indexed, then taken.
				for _, status := range []store.EventStatus{store.EventQueued, store.EventActive} {
					c := store.LeaderChanges{
						Events:   []store.LeaderEvent{levent(id, fmt.Sprintf("walk-%d", id), status)},
						Channels: []store.LeaderChannel{lchannel(w, i)},
						Cursors:  []store.Cursor{{Name: fmt.Sprintf("w%02d", w), Value: uint64(i + 1)}},
					}
					if err := st.ApplyLeader(ctxT(t), c); err != nil {
						t.Error(err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	const total = workers * each
	checkCounts(t, st, map[store.EventStatus]int{store.EventActive: total})
	es := leaderEvents(t, st, store.LeaderFilter{Limit: 1000})
	if len(es) != total {
		t.Fatalf("LeaderEvents: %d, want %d", len(es), total)
	}
	for i, e := range es {
		if want := levent(int64(i+1), fmt.Sprintf("walk-%d", i+1), store.EventActive); diffLeaderEvent(e, want) != nil {
			t.Fatalf("LeaderEvents[%d]: %v", i, diffLeaderEvent(e, want))
		}
	}
	snap := leaderSnapshot(t, st)
	if len(snap.Events) != total || len(snap.Channels) != workers || len(snap.Cursors) != workers {
		t.Fatalf("snapshot: %d events, %d channels, %d cursors; want %d, %d, %d",
			len(snap.Events), len(snap.Channels), len(snap.Cursors), total, workers, workers)
	}
	for w := range workers {
		if err := diffLeaderChannel(snap.Channels[w], lchannel(w, each-1)); err != nil {
			t.Fatal(err)
		}
		if c := snap.Cursors[w]; c != (store.Cursor{Name: fmt.Sprintf("w%02d", w), Value: each}) {
			t.Fatalf("cursor %+v, want w%02d = %d", c, w, each)
		}
	}
}

// testConcurrentRefused: a refused call among concurrent ones fails alone
// (they may share a group commit).
func (s *leaderSuite) testConcurrentRefused(t *testing.T) {
	st := s.fresh(t)
	applyLeader(t, st, store.LeaderChanges{Events: []store.LeaderEvent{levent(1, "taken", store.EventQueued)}})
	const calls = 16
	var wg sync.WaitGroup
	errs := make([]error, calls)
	for i := range calls {
		wg.Go(func() {
			id := int64(10 + i)
			c := store.LeaderChanges{
				Events:  []store.LeaderEvent{levent(id, fmt.Sprintf("walk-%d", id), store.EventQueued)},
				Cursors: []store.Cursor{{Name: fmt.Sprintf("c%d", i), Value: 1}},
			}
			if i%2 == 1 {
				c.Events = append(c.Events, levent(100+id, "taken", store.EventQueued))
			}
			errs[i] = st.ApplyLeader(ctxT(t), c)
		})
	}
	wg.Wait()
	for i, err := range errs {
		_, gerr := st.LeaderEvent(ctxT(t), int64(10+i))
		if i%2 == 0 {
			if err != nil || gerr != nil {
				t.Fatalf("valid call %d: ApplyLeader: %v; LeaderEvent: %v", i, err, gerr)
			}
			continue
		}
		if !errors.Is(err, store.ErrWalkIndexed) {
			t.Fatalf("refused call %d: err = %v, want one wrapping store.ErrWalkIndexed", i, err)
		}
		if gerr == nil {
			t.Fatalf("refused call %d wrote its event", i)
		}
	}
	if n := len(leaderSnapshot(t, st).Cursors); n != calls/2 {
		t.Fatalf("%d cursors, want %d (the valid calls')", n, calls/2)
	}
}

func (s *leaderSuite) testCancelled(t *testing.T) {
	st := s.fresh(t)
	applyLeader(t, st, store.LeaderChanges{
		Events:   []store.LeaderEvent{levent(1, "w", store.EventQueued)},
		Channels: []store.LeaderChannel{lchannel(0, 0)},
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := st.ApplyLeader(ctx, store.LeaderChanges{
		Events:  []store.LeaderEvent{levent(2, "w2", store.EventQueued)},
		Cursors: []store.Cursor{{Name: "c", Value: 1}},
	})
	wantCtxErr(t, "ApplyLeader", ctx, err)
	if snap := leaderSnapshot(t, st); len(snap.Events) != 1 || len(snap.Cursors) != 0 {
		t.Fatalf("a cancelled ApplyLeader wrote: %+v", snap)
	}
	_, err = st.LeaderSnapshot(ctx)
	wantCtxErr(t, "LeaderSnapshot", ctx, err)
	_, err = st.LeaderEvent(ctx, 1)
	wantCtxErr(t, "LeaderEvent", ctx, err)
	_, err = st.LeaderEventByWalk(ctx, "w")
	wantCtxErr(t, "LeaderEventByWalk", ctx, err)
	_, err = st.LeaderEvents(ctx, store.LeaderFilter{})
	wantCtxErr(t, "LeaderEvents", ctx, err)
	_, err = st.LeaderEvents(ctx, store.LeaderFilter{Status: store.EventQueued})
	wantCtxErr(t, "LeaderEvents(Queued)", ctx, err)
	_, err = st.LeaderCounts(ctx)
	wantCtxErr(t, "LeaderCounts", ctx, err)
	_, err = st.LeaderChannels(ctx)
	wantCtxErr(t, "LeaderChannels", ctx, err)
}
