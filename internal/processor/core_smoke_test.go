package processor

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

func TestSmokeAtomicRetriesThenExecuted(t *testing.T) {
	c, err := NewCore(CoreConfig{}, t0, 1, store.ProcSnapshot{})
	if err != nil {
		t.Fatal(err)
	}
	c.Step(Create(t0, 1, "admin", CreateSpec{Name: "p", Owner: "alice", CallbackURL: "http://x/cb"}))
	r := turn(t, c)
	if len(r.Replies) != 1 || r.Replies[0].Code != "" || len(r.Batch.Processors) != 1 {
		t.Fatalf("create: %+v", r)
	}
	var spec BatchSpec
	if err := json.Unmarshal([]byte(`{"msgs":[{"contract":"library","method":"a"},{"contract":"library","method":"b"}],
		"actionsConfig":{"atomic":{"actions":[{},{}],"retryLogic":{"times":{"amount":1},"interval":{"blocks":2}}}},"priority":"medium"}`), &spec); err != nil {
		t.Fatal(err)
	}
	c.Step(Add(t0, 2, "bob", "p", spec, false))
	if r = turn(t, c); r.Replies[0].Code != CodeForbidden {
		t.Fatalf("stranger add: %+v", r.Replies)
	}
	c.Step(Add(t0, 3, "alice", "p", spec, false))
	r = turn(t, c)
	if r.Replies[0].Code != "" || r.Replies[0].Body.(AddResult).ID != "auto-1" {
		t.Fatalf("add: %+v", r.Replies)
	}
	c.Step(Tick(t0, 4, "p"))
	r = turn(t, c)
	tr := r.Replies[0].Body.(TickResult)
	if tr.Outcome != TickStarted || len(r.Effects) != 1 || r.Effects[0].Kind != EffectSubmit {
		t.Fatalf("tick: %+v %+v", tr, r.Effects)
	}
	exec := r.Effects[0].Exec
	c.Step(Submitted(t0, exec, "uid1", store.Revision, ""))
	c.Step(Finished(t0, "uid1", false, "library: configured failure"))
	turn(t, c)
	// Cooling down for 2 blocks: a tick rotates.
	c.Step(Tick(t0, 5, "p"))
	if r = turn(t, c); r.Replies[0].Body.(TickResult).Outcome != TickRotated {
		t.Fatalf("tick in cooldown: %+v", r.Replies[0].Body)
	}
	c.Step(Head(t0, 3))
	c.Step(Tick(t0, 6, "p"))
	r = turn(t, c)
	if tr = r.Replies[0].Body.(TickResult); tr.Outcome != TickStarted || tr.Attempt != 2 {
		t.Fatalf("second attempt: %+v", tr)
	}
	c.Step(Submitted(t0, r.Effects[0].Exec, "uid2", store.Done, ""))
	r = turn(t, c)
	if len(r.Batch.Callbacks) != 1 || len(r.Effects) != 1 || r.Effects[0].Kind != EffectDeliver {
		t.Fatalf("executed: %+v", r)
	}
	var body CallbackBody
	_ = json.Unmarshal(r.Batch.Callbacks[0].Body, &body)
	if body.Outcome.Status != Executed || body.Key != "p/auto-1" {
		t.Fatalf("callback: %+v", body)
	}
	c.Step(Delivered(t0, "p", 1, false, "503"))
	r = turn(t, c)
	if !c.NextDeadline().Equal(t0.Add(time.Second)) {
		t.Fatalf("next deadline %v", c.NextDeadline())
	}
	c.Step(Time(t0.Add(time.Second)))
	r = turn(t, c)
	if len(r.Effects) != 1 || r.Effects[0].Kind != EffectDeliver {
		t.Fatalf("redelivery: %+v", r.Effects)
	}
	c.Step(Delivered(t0.Add(time.Second), "p", 1, true, ""))
	r = turn(t, c)
	if r.Batch.Callbacks[0].State != store.CallbackDelivered || r.Batch.Callbacks[0].Attempts != 2 {
		t.Fatalf("delivered: %+v", r.Batch.Callbacks)
	}
}
