package leader

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/store"
)

// TestBurstDrainsAtTheEnginesPace: a burst of 1,000 requests over a run
// queue of capacity 256 runs at the pace of its tools (32 at once, 10 ms
// each, on the virtual clock), not at the retrier's one request per
// period: the run queue is refilled from the saved Queued records as room
// frees. Without the refill the 744 saved past the capacity would take 744
// retrier periods (12 minutes at 1s); the bound is 10 periods.
func TestBurstDrainsAtTheEnginesPace(t *testing.T) {
	t.Parallel()
	const (
		requests = 1000
		capacity = 256
		toolTime = 10 * time.Millisecond
	)
	cfg := CoreConfig{Accounts: []string{"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7"}, Capacity: capacity, MaxActive: 32,
		RetryEvery: time.Second}
	bound := 10 * cfg.RetryEvery
	c, err := NewCore(cfg, t0, store.LeaderSnapshot{})
	if err != nil {
		t.Fatal(err)
	}
	turn(t, c)
	reqs := make([]Request, requests)
	for i := range reqs {
		reqs[i] = Request{ID: int64(i + 1), Walk: fmt.Sprintf("w%d", i+1), Tool: "t"}
	}
	c.Step(Events(t0, requests, reqs))
	now := t0
	ran := map[int64]bool{}
	successful := map[int64]bool{}
	for step := uint64(0); len(successful) < requests; step++ {
		r := turn(t, c)
		for _, e := range r.Batch.Events {
			if e.Status == store.EventSuccessful {
				successful[e.ID] = true
			}
		}
		if now.Sub(t0) > bound {
			t.Fatalf("after %s (%d retrier periods): %d of %d requests ran, %d Successful", now.Sub(t0),
				now.Sub(t0)/cfg.RetryEvery, len(ran), requests, len(successful))
		}
		// The tools answer after toolTime; the results land at once.
		now = now.Add(toolTime)
		c.Step(Time(now, step))
		for _, e := range r.Effects {
			switch e.Kind {
			case EffectExecute:
				ran[e.ID] = true
				c.Step(Executed(now, e.ID, e.Attempt, OutcomeOK, json.RawMessage(`{"ok":true}`), ""))
			case EffectReport:
				c.Step(Reported(now, e.ID, fmt.Sprintf("u%d-%s", e.ID, e.Key), store.Done, ""))
			case EffectCheck:
				c.Step(Checked(now, e.ID, true))
			}
		}
	}
	if len(ran) != requests {
		t.Fatalf("%d of %d requests ran", len(ran), requests)
	}
	t.Logf("%d requests over a capacity of %d: all Successful after %s of virtual time (%.2f retrier periods)",
		requests, capacity, now.Sub(t0), float64(now.Sub(t0))/float64(cfg.RetryEvery))
}
