package sim

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/ordolabs/ordo/internal/leader"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit"
)

// TestLeaderSeeds runs the leader simulation over a few seeds; a broken
// invariant prints the seed and the shortest failing trace.
func TestLeaderSeeds(t *testing.T) {
	steps, seeds := 300, 4
	if !testkit.Long() {
		steps, seeds = 120, 2
	}
	for seed := uint64(1); seed <= uint64(simSeeds(t, seeds)); seed++ {
		res, err := RunLeader(context.Background(), LeaderConfig{Seed: seed, Steps: steps, Dir: t.TempDir(), ShrinkBudget: 20e9})
		var v *LeadViolation
		if errors.As(err, &v) {
			t.Errorf("%v\nreplay: go run ./cmd/ordo sim leader --seed %d --steps %d\nshortest trace (%d actions):", v, seed, steps, len(v.Trace))
			for i, a := range v.Trace {
				t.Logf("  %4d %s", i+1, a)
			}
			continue
		}
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if res.Successful == 0 || res.Dead == 0 || res.Ours == 0 {
			t.Errorf("seed %d: %+v: the run did too little", seed, res)
		}
		t.Logf("seed %d: %+v", seed, res)
	}
}

// TestLeaderDigestRepeats runs one seed twice: the same digest; another
// seed, another digest.
func TestLeaderDigestRepeats(t *testing.T) {
	cfg := LeaderConfig{Seed: 7, Steps: 150, Dir: t.TempDir(), ShrinkBudget: -1}
	a, err := RunLeader(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := RunLeader(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if a.Digest != b.Digest || !reflect.DeepEqual(a, b) {
		t.Fatalf("same seed, two runs:\n%+v\n%+v", a, b)
	}
	cfg.Seed = 8
	c, err := RunLeader(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if c.Digest == a.Digest {
		t.Fatalf("seeds 7 and 8 gave one digest %s", a.Digest)
	}
}

// TestLeaderSimCatchesMutants plants faults the checker must find: a
// record marked Successful with no result of ours on chain, a Dead record
// without a reason, and the seed's Redis edge case (the cursor saved past
// events that were never indexed, then a crash). Each must break its
// invariant, with a failing trace no longer than the run.
func TestLeaderSimCatchesMutants(t *testing.T) {
	ctx := context.Background()
	// openRecord is an indexed record still in flight, if any.
	openRecord := func(t *testing.T, w *leadWorld) (store.LeaderEvent, bool) {
		snap, err := w.st.LeaderSnapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(snap.Events) == 0 {
			return store.LeaderEvent{}, false
		}
		return snap.Events[0], true
	}
	tests := []struct {
		name   string
		inv    string
		mutate func(t *testing.T, w *leadWorld) bool // reports whether it planted its fault
	}{
		{"successful without a result", InvLeadSuccess, func(t *testing.T, w *leadWorld) bool {
			r, ok := openRecord(t, w)
			if !ok {
				return false
			}
			r.Status, r.Phase = store.EventSuccessful, ""
			if err := w.st.ApplyLeader(ctx, store.LeaderChanges{Events: []store.LeaderEvent{r}}); err != nil {
				t.Fatal(err)
			}
			return true
		}},
		{"dead without a reason", InvLeadDead, func(t *testing.T, w *leadWorld) bool {
			r, ok := openRecord(t, w)
			if !ok {
				return false
			}
			r.Status, r.Phase, r.Error = store.EventDead, "", ""
			if err := w.st.ApplyLeader(ctx, store.LeaderChanges{Events: []store.LeaderEvent{r}}); err != nil {
				t.Fatal(err)
			}
			return true
		}},
		{"cursor saved past unindexed events", InvLeadLost, func(t *testing.T, w *leadWorld) bool {
			evs, err := w.dc.Events(ctx, w.lloop.Core().Cursor(), 256)
			if err != nil {
				t.Fatal(err)
			}
			var last uint64
			for _, e := range evs {
				if e.Name == "RequestWalkExecution" {
					last = e.Cursor
				}
			}
			if last == 0 {
				return false
			}
			if err := w.st.ApplyLeader(ctx, store.LeaderChanges{Cursors: []store.Cursor{{Name: leader.CursorName, Value: last}}}); err != nil {
				t.Fatal(err)
			}
			if err := w.crash(ctx); err != nil {
				t.Fatal(err)
			}
			return true
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			planted := false
			cfg := LeaderConfig{Seed: 3, Steps: 150, Dir: t.TempDir(), ShrinkBudget: 10e9, mutate: func(w *leadWorld) {
				if !planted {
					planted = tc.mutate(t, w)
				}
			}}
			_, err := RunLeader(ctx, cfg)
			var v *LeadViolation
			if !errors.As(err, &v) || v.Invariant != tc.inv {
				t.Fatalf("planted %s: %v, want a violation of %q", tc.name, err, tc.inv)
			}
			if len(v.Trace) == 0 || len(v.Trace) > v.Step {
				t.Fatalf("trace of %d actions for a break at step %d", len(v.Trace), v.Step)
			}
			t.Logf("%v; shortest trace %d actions (of %d)", v, len(v.Trace), v.Step)
		})
	}
}

// TestLeadActionsRoundTrip: every action drawn prints to a line that reads
// back as the same action, so a printed failing trace can be run again.
func TestLeadActionsRoundTrip(t *testing.T) {
	kinds := map[LeadKind]int{}
	for _, a := range genLeadActions(5, 5000, 3) {
		kinds[a.Kind]++
		got, err := ParseLeadAction(" 17 " + a.String())
		if err != nil || !reflect.DeepEqual(got, a) {
			t.Fatalf("%q read back as %+v (%v), want %+v", a.String(), got, err, a)
		}
	}
	if len(kinds) != 7 {
		t.Fatalf("5000 actions drew kinds %v, want all 7", kinds)
	}
	for _, bad := range []string{"", "request {", "nope", `advance {"x":1}`, "17"} {
		if a, err := ParseLeadAction(bad); err == nil {
			t.Errorf("%q read as %+v", bad, a)
		}
	}
}
