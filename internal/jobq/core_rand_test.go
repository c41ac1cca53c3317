package jobq

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit"
)

// TestCoreRandomized drives a core over a memstore with random inserts
// (unique keys from a small set, some scheduled), cancels, worker answers
// (done, failed, snooze, cancel; some stale), clock
// moves, periodic jobs and crashes (the core and its workers' runs dropped,
// a new core built from the store). After every step the harness checks
// CheckInvariants, that no job is handed out while a run of it is
// outstanding, that no queue runs more than its concurrency in the store,
// that no final job is written again and no job runs past MaxAttempts (the
// store refuses a second live holder of a key). A final drain without
// crashes checks every job ends. Each seed runs twice and must give the
// same digest.
//
// ORDO_SEED replays a run; ORDO_SEEDS sets how many seeds run (from it).
func TestCoreRandomized(t *testing.T) {
	testkit.Seeds(t, func(t *testing.T, seed uint64, steps int) {
		testkit.SameTwice(t, func() string { return runRandom(t, seed, steps) })
	})
}

func runRandom(t *testing.T, seed uint64, steps int) string {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	cfg := CoreConfig{
		Queues: []QueueConfig{
			{Name: "a", Concurrency: 1, MaxWaiting: 5},
			{Name: "b", Concurrency: 3, MaxWaiting: 20},
			{Name: "c", Concurrency: 2, MaxWaiting: 8},
		},
		Periodic: []PeriodicJob{
			{Name: "p1", Queue: "a", Kind: "tick", Every: 45 * time.Second},
			{Name: "p2", Queue: "c", Kind: "tick", Every: 2 * time.Minute, MaxAttempts: 2},
		},
		MaxAttempts: 4, BackoffBase: time.Second, BackoffMax: 20 * time.Second, ErrorsKept: 3,
	}
	h := newHarness(t, cfg)
	h.dig = testkit.NewDigest()
	queues := []string{"a", "b", "c"}
	nextID := int64(1)
	pick := func() (int64, bool) { // an outstanding run, in ID order for determinism
		if len(h.runs) == 0 {
			return 0, false
		}
		ids := make([]int64, 0, len(h.runs))
		for id := range h.runs {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		return ids[rng.IntN(len(ids))], true
	}
	for range steps {
		switch r := rng.IntN(100); {
		case r < 30:
			j := store.Job{ID: nextID, Queue: queues[rng.IntN(len(queues))], Kind: "k"}
			nextID++
			if rng.IntN(3) == 0 {
				j.UniqueKey = fmt.Sprintf("u%d", rng.IntN(4))
			}
			if rng.IntN(4) == 0 {
				j.RunAt = h.now.Add(time.Duration(rng.IntN(90)) * time.Second)
			}
			if rng.IntN(5) == 0 {
				j.MaxAttempts = 1 + rng.IntN(3)
			}
			h.insert(j)
		case r < 60:
			id, ok := pick()
			if !ok {
				continue
			}
			switch o := rng.IntN(10); {
			case o < 5:
				h.finish(id, OutcomeDone, "", 0)
			case o < 8:
				h.finish(id, OutcomeFailed, "boom", 0)
			case o < 9:
				h.finish(id, OutcomeSnooze, "", time.Duration(rng.IntN(30))*time.Second)
			default:
				h.finish(id, OutcomeCancel, "enough", 0)
			}
		case r < 64:
			if id, ok := pick(); ok { // a stale answer (an earlier attempt's)
				h.step(Worked(id, h.runs[id].Attempt-1, OutcomeDone, "", 0))
			}
		case r < 68:
			h.cancel(1 + rng.Int64N(nextID))
		case r < 95:
			h.advance(time.Duration(rng.IntN(20_000)) * time.Millisecond)
		default:
			h.restart()
		}
	}
	// Drain: no crashes, every run answered done; every job ends (the
	// periodic ones of the last period included).
	for i := 0; ; i++ {
		if i > 10_000 {
			live, _ := h.st.LiveJobs(context.Background())
			t.Fatalf("the drain did not end: %d runs, live %+v, counts %v", len(h.runs), live[:min(len(live), 5)], h.core.Counts())
		}
		if id, ok := pick(); ok {
			h.finish(id, OutcomeDone, "", 0)
			continue
		}
		live, err := h.st.LiveJobs(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(live, func(j store.Job) bool { return j.Kind != "tick" || j.State == store.JobRunning }) {
			break
		}
		h.advance(time.Second)
	}
	live, _ := h.st.LiveJobs(context.Background())
	for _, j := range live {
		if j.Kind != "tick" || j.State == store.JobRunning {
			t.Fatalf("after the drain job %d is %s", j.ID, j.State)
		}
	}
	return h.dig.String()
}
