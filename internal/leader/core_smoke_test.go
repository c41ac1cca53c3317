package leader

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// turn checks the invariants, takes a Ready and advances.
func turn(t *testing.T, c *Core) Ready { t.Helper(); return testkit.Turn[Ready](t, c) }

func TestSmokeRequestToResult(t *testing.T) {
	c, err := NewCore(CoreConfig{Accounts: []string{"a0", "a1"}, MaxRetries: 1}, t0, store.LeaderSnapshot{})
	if err != nil {
		t.Fatal(err)
	}
	turn(t, c)
	c.Step(Events(t0, 7, []Request{{ID: 5, Walk: "w1", Tool: "t"}, {ID: 6, Walk: "w2", Tool: "t"}, {ID: 7, Walk: "w1", Tool: "t"}}))
	r := turn(t, c)
	if len(r.Batch.Events) != 2 || len(r.Batch.Cursors) != 1 || len(r.Effects) != 2 || r.Effects[0].Kind != EffectExecute {
		t.Fatalf("index: %+v", r)
	}
	c.Step(Executed(t0, 5, 1, OutcomeOK, json.RawMessage(`{"x":1}`), ""))
	c.Step(Executed(t0, 6, 1, OutcomeRetriable, nil, "503"))
	r = turn(t, c)
	if len(r.Effects) != 2 || r.Effects[0].Kind != EffectReport || r.Effects[0].Queue != "leader/0" || r.Effects[1].Kind != EffectExecute {
		t.Fatalf("report and re-execute: %+v", r.Effects)
	}
	c.Step(Reported(t0, 5, "u1", store.Waiting, ""))
	c.Step(Finished(t0, "u1", false, "call failed: reverted"))
	r = turn(t, c)
	if len(r.Batch.Channels) != 1 || r.Batch.Channels[0].BlockedUntil.IsZero() || len(r.Effects) != 1 || r.Effects[0].Queue != "leader/1" || r.Effects[0].Key != "leader/w1/2" {
		t.Fatalf("channel 0 blocked, resent over 1: %+v", r)
	}
	c.Step(Reported(t0, 5, "u2", store.Done, ""))
	c.Step(Executed(t0, 6, 2, OutcomeRetriable, nil, "503"))
	r = turn(t, c)
	var w1, w2 store.LeaderEvent
	for _, e := range r.Batch.Events {
		if e.ID == 5 {
			w1 = e
		} else {
			w2 = e
		}
	}
	if w1.Status != store.EventSuccessful || w2.Phase != PhaseSent || w2.OK {
		t.Fatalf("w1 %+v, w2 %+v", w1, w2)
	}
	c.Step(Reported(t0, 6, "u3", store.Failed, "call failed: already_reported"))
	r = turn(t, c)
	if len(r.Effects) != 1 || r.Effects[0].Kind != EffectCheck {
		t.Fatalf("already reported: %+v", r.Effects)
	}
	c.Step(Checked(t0, 6, true))
	r = turn(t, c)
	if r.Batch.Events[0].Status != store.EventDead {
		t.Fatalf("ours, a failure result: %+v", r.Batch.Events)
	}
}
