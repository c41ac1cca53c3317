package postgres

import (
	"context"
	"errors"
	"testing"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/storetest"
)

func TestLeaderConformance(t *testing.T) {
	storetest.RunLeader(t, func(t *testing.T, dir string) store.LeaderStore {
		return openIn(t, dir, Options{})
	})
}

// TestApplyLeaderRepeatedIDs: a call naming an id twice is written in its
// order: the later record wins, and a walk the first record of an id gave
// up may go to another id later in the call; a walk two ids hold at the
// end is refused.
func TestApplyLeaderRepeatedIDs(t *testing.T) {
	ctx := context.Background()
	ev := func(id int64, walk string, st store.EventStatus) store.LeaderEvent {
		return store.LeaderEvent{ID: id, Walk: walk, Status: st, Channel: -1}
	}
	for _, tc := range []struct {
		name    string
		events  []store.LeaderEvent
		want    map[string]int64 // walk → id
		refused bool
	}{
		{"later wins", []store.LeaderEvent{ev(1, "w1", store.EventQueued), ev(1, "w1", store.EventActive)},
			map[string]int64{"w1": 1}, false},
		{"walk handed over", []store.LeaderEvent{ev(1, "w1", store.EventQueued), ev(1, "w2", store.EventQueued), ev(2, "w1", store.EventQueued)},
			map[string]int64{"w1": 2, "w2": 1}, false},
		{"walk held twice", []store.LeaderEvent{ev(1, "w1", store.EventQueued), ev(1, "w1", store.EventActive), ev(2, "w1", store.EventQueued)},
			nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openIn(t, t.TempDir(), Options{})
			defer s.Close()
			err := s.ApplyLeader(ctx, store.LeaderChanges{Events: tc.events})
			if tc.refused {
				if !errors.Is(err, store.ErrWalkIndexed) {
					t.Fatalf("ApplyLeader: %v, want store.ErrWalkIndexed", err)
				}
				if evs, err := s.LeaderEvents(ctx, store.LeaderFilter{}); err != nil || len(evs) != 0 {
					t.Fatalf("the refused call wrote %d events (%v)", len(evs), err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for walk, id := range tc.want {
				e, err := s.LeaderEventByWalk(ctx, walk)
				if err != nil || e.ID != id {
					t.Fatalf("LeaderEventByWalk(%s) = id %d, %v; want %d", walk, e.ID, err, id)
				}
			}
			last := tc.events[len(tc.events)-1]
			if e, err := s.LeaderEvent(ctx, last.ID); err != nil || e.Status != last.Status {
				t.Fatalf("LeaderEvent(%d) = %+v, %v; want status %s", last.ID, e, err, last.Status)
			}
		})
	}
}
