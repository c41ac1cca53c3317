package jobq

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/store"
)

func job(id int64, queue string) store.Job {
	return store.Job{ID: id, Queue: queue, Kind: "k"}
}

func want[T comparable](t *testing.T, what string, got, exp T) {
	t.Helper()
	if got != exp {
		t.Fatalf("%s = %v, want %v", what, got, exp)
	}
}

func TestCore(t *testing.T) {
	one := CoreConfig{Queues: []QueueConfig{{Name: "q"}}, BackoffBase: time.Second, BackoffMax: time.Minute}
	for _, tc := range []struct {
		name string
		cfg  CoreConfig
		run  func(t *testing.T, h *harness)
	}{
		{"runs and completes", one, func(t *testing.T, h *harness) {
			r := h.insert(job(1, "q"))
			want(t, "created", r.Created, true)
			want(t, "running", h.isRunning(1), true)
			want(t, "state", h.job(1).State, store.JobRunning)
			want(t, "attempt", h.job(1).Attempt, 1)
			h.finish(1, OutcomeDone, "", 0)
			j := h.job(1)
			want(t, "state", j.State, store.JobCompleted)
			want(t, "finalized", j.FinalizedAt, h.now)
		}},
		{"unique key live once, free when final", one, func(t *testing.T, h *harness) {
			a := job(1, "q")
			a.UniqueKey = "u"
			b := job(2, "q")
			b.UniqueKey = "u"
			h.insert(a)
			r := h.insert(b)
			want(t, "second created", r.Created, false)
			want(t, "answered", r.Job.ID, int64(1))
			r = h.insert(a) // the same ID again
			want(t, "same id created", r.Created, false)
			h.finish(1, OutcomeDone, "", 0)
			r = h.insert(b)
			want(t, "after final created", r.Created, true)
		}},
		{"scheduled runs at RunAt", one, func(t *testing.T, h *harness) {
			j := job(1, "q")
			j.RunAt = h.now.Add(time.Minute)
			h.insert(j)
			want(t, "state", h.job(1).State, store.JobScheduled)
			want(t, "deadline", h.core.NextDeadline(), j.RunAt)
			h.advance(time.Minute - time.Nanosecond)
			want(t, "running early", h.isRunning(1), false)
			h.advance(time.Nanosecond)
			want(t, "running at RunAt", h.isRunning(1), true)
		}},
		{"retry with backoff then dead", CoreConfig{Queues: one.Queues, BackoffBase: time.Second, BackoffMax: time.Minute, MaxAttempts: 3}, func(t *testing.T, h *harness) {
			h.insert(job(7, "q"))
			for attempt := 1; attempt <= 2; attempt++ {
				h.finish(7, OutcomeFailed, "boom", 0)
				j := h.job(7)
				want(t, "state", j.State, store.JobRetryable)
				back := Backoff(time.Second, time.Minute, 7, attempt)
				want(t, "run at", j.RunAt, h.now.Add(back))
				if back < time.Second<<(attempt-1) || back > (time.Second<<(attempt-1))*11/10 {
					t.Fatalf("backoff %v after attempt %d", back, attempt)
				}
				h.advance(back - time.Nanosecond)
				want(t, "early", h.isRunning(7), false)
				h.advance(time.Nanosecond)
				want(t, "retried", h.isRunning(7), true)
				want(t, "attempt", h.job(7).Attempt, attempt+1)
			}
			h.finish(7, OutcomeFailed, "last", 0)
			j := h.job(7)
			want(t, "state", j.State, store.JobDead)
			want(t, "errors", len(j.Errors), 3)
			want(t, "last error", j.Errors[2], store.JobError{Attempt: 3, At: h.now, Error: "last"})
		}},
		{"errors kept", CoreConfig{Queues: one.Queues, ErrorsKept: 2, MaxAttempts: 4}, func(t *testing.T, h *harness) {
			h.insert(job(1, "q"))
			for i := 0; i < 4; i++ {
				h.finish(1, OutcomeFailed, "e", 0)
				h.advance(2 * time.Hour)
			}
			j := h.job(1)
			want(t, "state", j.State, store.JobDead)
			want(t, "errors", len(j.Errors), 2)
			want(t, "oldest kept", j.Errors[0].Attempt, 3)
		}},
		{"snooze does not count", one, func(t *testing.T, h *harness) {
			h.insert(job(1, "q"))
			h.finish(1, OutcomeSnooze, "", 10*time.Second)
			j := h.job(1)
			want(t, "state", j.State, store.JobScheduled)
			want(t, "attempt", j.Attempt, 0)
			h.advance(10 * time.Second)
			want(t, "attempt after", h.job(1).Attempt, 1)
		}},
		{"cancel", one, func(t *testing.T, h *harness) {
			h.insert(job(1, "q"))
			s := job(2, "q")
			s.RunAt = h.now.Add(time.Hour)
			h.insert(s)
			want(t, "cancel running", h.cancel(1).Code, CodeRunning)
			h.finish(1, OutcomeCancel, "no longer wanted", 0)
			j := h.job(1)
			want(t, "state", j.State, store.JobCancelled)
			want(t, "why", j.Errors[0].Error, "no longer wanted")
			r := h.cancel(2)
			want(t, "cancel waiting", r.Code, CodeNone)
			want(t, "cancelled", h.job(2).State, store.JobCancelled)
			want(t, "cancel again", h.cancel(2).Code, CodeNotLive)
			h.advance(2 * time.Hour)
			want(t, "ran", h.isRunning(2), false)
		}},
		{"stale answer ignored", one, func(t *testing.T, h *harness) {
			h.insert(job(1, "q"))
			h.step(Worked(1, 5, OutcomeDone, "", 0))
			want(t, "state", h.job(1).State, store.JobRunning)
		}},
		{"concurrency", CoreConfig{Queues: []QueueConfig{{Name: "q", Concurrency: 2}, {Name: "r"}}}, func(t *testing.T, h *harness) {
			for id := int64(1); id <= 5; id++ {
				h.insert(job(id, "q"))
			}
			h.insert(job(9, "r"))
			want(t, "running", h.running(), 3)
			want(t, "first two", h.isRunning(1) && h.isRunning(2), true)
			h.finish(1, OutcomeDone, "", 0)
			want(t, "third started", h.isRunning(3), true)
			want(t, "running", h.running(), 3)
		}},
		{"cap on waiting", CoreConfig{Queues: []QueueConfig{{Name: "q", MaxWaiting: 2}}}, func(t *testing.T, h *harness) {
			h.insert(job(1, "q")) // runs: not waiting
			want(t, "2", h.insert(job(2, "q")).Code, CodeNone)
			want(t, "3", h.insert(job(3, "q")).Code, CodeNone)
			want(t, "4", h.insert(job(4, "q")).Code, CodeQueueFull)
			h.finish(1, OutcomeDone, "", 0)
			want(t, "4 again", h.insert(job(4, "q")).Code, CodeNone)
		}},
		{"refusals", one, func(t *testing.T, h *harness) {
			want(t, "unknown queue", h.insert(job(1, "nope")).Code, CodeUnknownQueue)
			want(t, "id 0", h.insert(job(0, "q")).Code, CodeInvalid)
			want(t, "no kind", h.insert(store.Job{ID: 3, Queue: "q"}).Code, CodeInvalid)
		}},
		{"periodic once per period", CoreConfig{Queues: one.Queues, Periodic: []PeriodicJob{{Name: "p", Queue: "q", Kind: "k", Every: time.Minute}}}, func(t *testing.T, h *harness) {
			start := PeriodStart(h.now, time.Minute)
			id := PeriodicID("p", start)
			want(t, "first period running", h.isRunning(id), true)
			want(t, "key", h.job(id).UniqueKey, PeriodicKey("p", start))
			h.finish(id, OutcomeDone, "", 0)
			h.advance(30 * time.Second)
			want(t, "nothing new in the period", h.running(), 0)
			h.restart() // a restart within the period does not insert it again
			want(t, "nothing after restart", h.running(), 0)
			h.advance(30 * time.Second)
			next := PeriodicID("p", start.Add(time.Minute))
			want(t, "next period", h.isRunning(next), true)
		}},
		{"periodic slower than its period: no backlog", CoreConfig{Queues: one.Queues, Periodic: []PeriodicJob{{Name: "p", Queue: "q", Kind: "k", Every: time.Minute}}}, func(t *testing.T, h *harness) {
			start := PeriodStart(h.now, time.Minute)
			id := PeriodicID("p", start)
			want(t, "first period running", h.isRunning(id), true)
			h.advance(3 * time.Minute) // it runs on through three more periods
			live, err := h.st.LiveJobs(context.Background())
			want(t, "no job for the periods it ran through", len(live), 1)
			want(t, "live read", err, error(nil))
			h.finish(id, OutcomeDone, "", 0)
			h.advance(time.Second)
			now := PeriodStart(h.now, time.Minute)
			want(t, "the current period's job once it is done", h.isRunning(PeriodicID("p", now)), true)
			want(t, "one job", h.running(), 1)
		}},
		{"crash rescues running jobs", CoreConfig{Queues: one.Queues, MaxAttempts: 2}, func(t *testing.T, h *harness) {
			h.insert(job(1, "q"))
			h.restart()
			j := h.job(1)
			want(t, "state", j.State, store.JobRetryable)
			want(t, "attempt counted", j.Attempt, 1)
			want(t, "error", j.Errors[0].Error, ErrRescued.Error())
			h.advance(time.Hour)
			want(t, "run again", h.isRunning(1), true)
			h.restart()
			want(t, "dead after max", h.job(1).State, store.JobDead)
		}},
		{"rebuild keeps live workers' jobs", one, func(t *testing.T, h *harness) {
			h.insert(job(1, "q"))
			jobs, _ := h.st.LiveJobs(t.Context())
			c, err := NewCore(h.cfg, h.now, Snapshot{Jobs: jobs, Working: map[int64]int{1: 1}})
			if err != nil {
				t.Fatal(err)
			}
			if c.HasReady() {
				t.Fatalf("a rebuild with the run still working wrote %+v", c.Ready())
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.run(t, newHarness(t, tc.cfg))
		})
	}
}

func TestBackoff(t *testing.T) {
	for _, tc := range []struct {
		attempt  int
		min, max time.Duration
	}{
		{1, time.Second, 1100 * time.Millisecond},
		{2, 2 * time.Second, 2200 * time.Millisecond},
		{5, 16 * time.Second, 17600 * time.Millisecond},
		{30, time.Minute, 66 * time.Second},
	} {
		for id := int64(1); id < 50; id++ {
			d := Backoff(time.Second, time.Minute, id, tc.attempt)
			if d < tc.min || d > tc.max {
				t.Fatalf("Backoff(id %d, attempt %d) = %v, want in [%v, %v]", id, tc.attempt, d, tc.min, tc.max)
			}
			if d != Backoff(time.Second, time.Minute, id, tc.attempt) {
				t.Fatal("Backoff is not deterministic")
			}
		}
	}
	if Backoff(time.Second, time.Minute, 1, 1) == Backoff(time.Second, time.Minute, 2, 1) &&
		Backoff(time.Second, time.Minute, 3, 1) == Backoff(time.Second, time.Minute, 4, 1) {
		t.Fatal("no jitter between jobs")
	}
}

func TestConfigRefused(t *testing.T) {
	for _, cfg := range []CoreConfig{
		{Queues: []QueueConfig{{Name: ""}}},
		{Queues: []QueueConfig{{Name: "a"}, {Name: "a"}}},
		{Queues: []QueueConfig{{Name: "a", Concurrency: -1}}},
		{Queues: []QueueConfig{{Name: "a"}}, Periodic: []PeriodicJob{{Name: "p", Queue: "b", Kind: "k", Every: time.Second}}},
		{Queues: []QueueConfig{{Name: "a"}}, Periodic: []PeriodicJob{{Name: "p", Queue: "a", Kind: "k"}}},
		{BackoffBase: time.Hour, BackoffMax: time.Second},
	} {
		if _, err := cfg.WithDefaults(); err == nil || !strings.HasPrefix(err.Error(), "jobq:") {
			t.Fatalf("%+v: %v", cfg, err)
		}
	}
	c, err := CoreConfig{Queues: SMMQueues()}.WithDefaults()
	if err != nil || c.Queues[1].Concurrency != 15 || c.MaxAttempts != DefaultMaxAttempts {
		t.Fatalf("SMM queues: %+v, %v", c, err)
	}
}
