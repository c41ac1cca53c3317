package storetest

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/store"
)

var eventStatuses = []store.EventStatus{store.EventQueued, store.EventActive, store.EventSuccessful, store.EventDead}

func (s *leaderSuite) testSnapshot(t *testing.T) {
	st := s.fresh(t)
	checkLeaderSnapshot(t, st, store.LeaderSnapshot{})

	// Written out of order, in two calls.
	applyLeader(t, st, store.LeaderChanges{
		Events: []store.LeaderEvent{
			levent(30, "w30", store.EventQueued),
			levent(10, "w10", store.EventActive),
			levent(20, "w20", store.EventSuccessful),
			levent(5, "w5", store.EventDead),
			levent(40, "w40", store.EventQueued),
		},
		Channels: []store.LeaderChannel{lchannel(3, 3), lchannel(1, 1)},
		Cursors:  []store.Cursor{{Name: "y", Value: 2}, {Name: "x", Value: 1}},
	})
	applyLeader(t, st, store.LeaderChanges{
		Events: []store.LeaderEvent{
			levent(25, "w25", store.EventActive),
			levent(1, "w1", store.EventQueued),
			// records that end leave the snapshot.
			levent(30, "w30", store.EventSuccessful),
			levent(40, "w40", store.EventDead),
			// an ended one that comes back returns to it.
			levent(20, "w20", store.EventActive),
		},
		Channels: []store.LeaderChannel{lchannel(0, 0)},
		Cursors:  []store.Cursor{{Name: "a", Value: 3}},
	})
	checkLeaderSnapshot(t, st, store.LeaderSnapshot{
		Events: []store.LeaderEvent{
			levent(1, "w1", store.EventQueued),
			levent(10, "w10", store.EventActive),
			levent(20, "w20", store.EventActive),
			levent(25, "w25", store.EventActive),
		},
		Channels: []store.LeaderChannel{lchannel(0, 0), lchannel(1, 1), lchannel(3, 3)},
		Cursors:  []store.Cursor{{Name: "a", Value: 3}, {Name: "x", Value: 1}, {Name: "y", Value: 2}},
	})
}

// eventsFixture writes n event records with distinct, shuffled, gapped IDs
// and random statuses (the seed is printed), in calls of at most 500. It
// returns them in ID order.
func eventsFixture(t *testing.T, st store.LeaderStore, n int) []store.LeaderEvent {
	t.Helper()
	seed := seedFor(t)
	rng := rand.New(rand.NewPCG(seed, seed))
	ids := rng.Perm(3 * n)[:n]
	all := make([]store.LeaderEvent, n)
	for i, id := range ids {
		all[i] = levent(int64(id+1), fmt.Sprintf("walk-%d", id+1), eventStatuses[rng.IntN(len(eventStatuses))])
	}
	for lo := 0; lo < n; lo += 500 {
		applyLeader(t, st, store.LeaderChanges{Events: all[lo:min(lo+500, n)]})
	}
	slices.SortFunc(all, func(a, b store.LeaderEvent) int { return cmp.Compare(a.ID, b.ID) })
	return all
}

// wantEvents is what a filter selects from all (in ID order).
func wantEvents(all []store.LeaderEvent, f store.LeaderFilter) []store.LeaderEvent {
	limit := f.Limit
	switch {
	case limit <= 0:
		limit = 100
	case limit > 1000:
		limit = 1000
	}
	out := []store.LeaderEvent{}
	for _, e := range all {
		if e.ID > f.After && (f.Status == "" || e.Status == f.Status) && len(out) < limit {
			out = append(out, e)
		}
	}
	return out
}

func (s *leaderSuite) testEvents(t *testing.T) {
	st := s.fresh(t)
	if es := leaderEvents(t, st, store.LeaderFilter{}); len(es) != 0 {
		t.Fatalf("LeaderEvents of an empty store: %+v", es)
	}
	all := eventsFixture(t, st, 200)
	mid := all[len(all)/2].ID
	for _, status := range append([]store.EventStatus{""}, eventStatuses...) {
		for _, f := range []store.LeaderFilter{
			{}, {Limit: 1}, {Limit: 7}, {After: mid}, {After: mid - 1, Limit: 5}, {After: -5, Limit: 3},
			{After: all[len(all)-1].ID}, {After: all[len(all)-1].ID - 1}, {Limit: 300},
		} {
			f.Status = status
			what := fmt.Sprintf("LeaderEvents(%+v)", f)
			if err := diffList(what, leaderEvents(t, st, f), wantEvents(all, f), diffLeaderEvent); err != nil {
				t.Fatal(err)
			}
		}
		// Paging with After walks every record of the status once.
		var paged []store.LeaderEvent
		for f := (store.LeaderFilter{Status: status, Limit: 30}); ; {
			page := leaderEvents(t, st, f)
			paged = append(paged, page...)
			if len(page) < f.Limit {
				break
			}
			f.After = page[len(page)-1].ID
		}
		want := wantEvents(all, store.LeaderFilter{Status: status, Limit: 1000})
		if err := diffList(fmt.Sprintf("LeaderEvents(%q) paged", status), paged, want, diffLeaderEvent); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.LeaderEvents(ctxT(t), store.LeaderFilter{Status: "queued"}); err == nil {
		t.Fatal(`LeaderEvents(Status "queued") succeeded, want an error`)
	}
	// A record that moves is listed under its new status only.
	moved := all[0]
	moved.Status = store.EventDead
	if all[0].Status == store.EventDead {
		moved.Status = store.EventQueued
	}
	applyLeader(t, st, store.LeaderChanges{Events: []store.LeaderEvent{moved}})
	all[0] = moved
	for _, status := range eventStatuses {
		f := store.LeaderFilter{Status: status, Limit: 1000}
		if err := diffList(fmt.Sprintf("after a move: LeaderEvents(%q)", status), leaderEvents(t, st, f), wantEvents(all, f), diffLeaderEvent); err != nil {
			t.Fatal(err)
		}
	}
}

func (s *leaderSuite) testEventsLimits(t *testing.T) {
	st := s.fresh(t)
	var c store.LeaderChanges
	for id := int64(1); id <= 1100; id++ {
		c.Events = append(c.Events, levent(id, fmt.Sprintf("walk-%d", id), store.EventQueued))
	}
	for lo := 0; lo < len(c.Events); lo += 500 {
		applyLeader(t, st, store.LeaderChanges{Events: c.Events[lo:min(lo+500, len(c.Events))]})
	}
	for _, status := range []store.EventStatus{"", store.EventQueued} {
		for _, tc := range []struct {
			f    store.LeaderFilter
			want int
		}{
			{store.LeaderFilter{}, 100}, {store.LeaderFilter{Limit: -1}, 100}, {store.LeaderFilter{Limit: 1000}, 1000},
			{store.LeaderFilter{Limit: 5000}, 1000}, {store.LeaderFilter{After: 50, Limit: 5000}, 1000},
			{store.LeaderFilter{After: 1050, Limit: 1000}, 50}, {store.LeaderFilter{After: 1100}, 0},
		} {
			tc.f.Status = status
			got := leaderEvents(t, st, tc.f)
			if len(got) != tc.want {
				t.Fatalf("LeaderEvents(%+v): %d records, want %d", tc.f, len(got), tc.want)
			}
			if len(got) > 0 && got[0].ID != tc.f.After+1 {
				t.Fatalf("LeaderEvents(%+v): first ID %d, want %d", tc.f, got[0].ID, tc.f.After+1)
			}
		}
	}
	if got := leaderEvents(t, st, store.LeaderFilter{Status: store.EventActive, Limit: 5000}); len(got) != 0 {
		t.Fatalf("LeaderEvents(Active): %d records, want 0", len(got))
	}
}

func (s *leaderSuite) testByWalk(t *testing.T) {
	st := s.fresh(t)
	all := eventsFixture(t, st, 50)
	for _, want := range all {
		if err := diffLeaderEvent(leaderByWalk(t, st, want.Walk), want); err != nil {
			t.Fatalf("LeaderEventByWalk(%q): %v", want.Walk, err)
		}
	}
	_, err := st.LeaderEventByWalk(ctxT(t), "walk-none")
	wantNotFound(t, "LeaderEventByWalk(walk-none)", err)
	_, err = st.LeaderEventByWalk(ctxT(t), "")
	wantNotFound(t, `LeaderEventByWalk("")`, err)
	// A walk follows its record through every status.
	e := all[0]
	for _, status := range eventStatuses {
		e.Status = status
		applyLeader(t, st, store.LeaderChanges{Events: []store.LeaderEvent{e}})
		if err := diffLeaderEvent(leaderByWalk(t, st, e.Walk), e); err != nil {
			t.Fatalf("in status %s: %v", status, err)
		}
	}
}

func (s *leaderSuite) testCounts(t *testing.T) {
	st := s.fresh(t)
	checkCounts(t, st, nil)
	all := eventsFixture(t, st, 300)
	want := map[store.EventStatus]int{}
	for _, e := range all {
		want[e.Status]++
	}
	checkCounts(t, st, want)
	// A record that moves is counted once, in its new status.
	moved := all[0]
	want[moved.Status]--
	moved.Status = store.EventSuccessful
	if all[0].Status == store.EventSuccessful {
		moved.Status = store.EventDead
	}
	want[moved.Status]++
	applyLeader(t, st, store.LeaderChanges{Events: []store.LeaderEvent{moved}})
	checkCounts(t, st, want)
	// Channels and cursors count for nothing.
	applyLeader(t, st, store.LeaderChanges{
		Channels: []store.LeaderChannel{lchannel(0, 0)},
		Cursors:  []store.Cursor{{Name: "c", Value: 1}},
	})
	checkCounts(t, st, want)
}

func (s *leaderSuite) testChannels(t *testing.T) {
	st := s.fresh(t)
	if cs := leaderChannels(t, st); len(cs) != 0 {
		t.Fatalf("LeaderChannels of an empty store: %+v", cs)
	}
	var want []store.LeaderChannel
	var c store.LeaderChanges
	for _, idx := range []int{5, 0, 17, 2, 1} {
		ch := lchannel(idx, idx*10)
		c.Channels = append(c.Channels, ch)
		want = append(want, ch)
	}
	applyLeader(t, st, c)
	slices.SortFunc(want, func(a, b store.LeaderChannel) int { return a.Index - b.Index })
	if err := diffList("LeaderChannels", leaderChannels(t, st), want, diffLeaderChannel); err != nil {
		t.Fatal(err)
	}
	// A channel blocked after a failed result, then free again.
	blocked := want[1]
	blocked.BlockedUntil, blocked.LastError = at(9999), "result transaction failed on chain"
	applyLeader(t, st, store.LeaderChanges{Channels: []store.LeaderChannel{blocked}})
	want[1] = blocked
	if err := diffList("LeaderChannels (blocked)", leaderChannels(t, st), want, diffLeaderChannel); err != nil {
		t.Fatal(err)
	}
	free := blocked
	free.BlockedUntil, free.LastError = time.Time{}, ""
	applyLeader(t, st, store.LeaderChanges{Channels: []store.LeaderChannel{free}})
	want[1] = free
	if err := diffList("LeaderChannels (freed)", leaderChannels(t, st), want, diffLeaderChannel); err != nil {
		t.Fatal(err)
	}
	if err := diffList("snapshot Channels", leaderSnapshot(t, st).Channels, want, diffLeaderChannel); err != nil {
		t.Fatal(err)
	}
}

func (s *leaderSuite) testNotFound(t *testing.T) {
	st := s.fresh(t)
	_, err := st.LeaderEvent(ctxT(t), 1)
	wantNotFound(t, "LeaderEvent(1) of an empty store", err)
	applyLeader(t, st, store.LeaderChanges{Events: []store.LeaderEvent{levent(2, "w", store.EventQueued)}})
	for _, id := range []int64{1, 3, 0, -1} {
		_, err := st.LeaderEvent(ctxT(t), id)
		wantNotFound(t, fmt.Sprintf("LeaderEvent(%d)", id), err)
	}
	_, err = st.LeaderEventByWalk(ctxT(t), "W")
	wantNotFound(t, "LeaderEventByWalk(W)", err)
}
