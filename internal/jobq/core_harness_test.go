package jobq

import (
	"context"

	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/memstore"
	"github.com/ordolabs/ordo/internal/testkit"
)

// harness drives a Core over a memstore on virtual time: each step is
// followed by CheckInvariants, Ready, the batch applied to the store, and
// Advance. runs holds the runs handed out and not yet answered (job ID →
// the job as handed out).
type harness struct {
	t       testing.TB
	cfg     CoreConfig
	now     time.Time
	core    *Core
	st      *memstore.Jobs
	runs    map[int64]store.Job
	replies []Reply
	nextReq uint64
	final   map[int64]store.JobState // jobs seen final in the store
	dig     *testkit.Digest          // every Ready, when a test wants it
}

func newHarness(t testing.TB, cfg CoreConfig) *harness {
	t.Helper()
	h := &harness{t: t, cfg: cfg, now: clock.Epoch, st: memstore.NewJobs(), runs: map[int64]store.Job{},
		final: map[int64]store.JobState{}}
	h.restart()
	return h
}

// restart drops the core (and its workers' runs, as a crash does) and
// builds a new one from the store.
func (h *harness) restart() {
	h.t.Helper()
	ctx := context.Background()
	jobs, err := h.st.LiveJobs(ctx)
	if err != nil {
		h.t.Fatal(err)
	}
	snap := Snapshot{Jobs: jobs, Periods: map[string]time.Time{}}
	full, _ := h.cfg.WithDefaults()
	for _, p := range full.Periodic {
		start := PeriodStart(h.now, p.Every)
		if _, err := h.st.JobByUniqueKey(ctx, PeriodicKey(p.Name, start)); err == nil {
			snap.Periods[p.Name] = start
		}
	}
	h.core, err = NewCore(h.cfg, h.now, snap)
	if err != nil {
		h.t.Fatal(err)
	}
	clear(h.runs)
	h.flush()
}

// step steps in at the harness's time and flushes.
func (h *harness) step(in Input) {
	h.t.Helper()
	in.At = h.now
	h.core.Step(in)
	h.flush()
}

// flush checks the invariants, takes the Ready, applies it to the store,
// checks it, and advances.
func (h *harness) flush() {
	h.t.Helper()
	if bad := h.core.CheckInvariants(); len(bad) > 0 {
		h.t.Fatalf("at %v: invariants broken:\n%s", h.now, strings.Join(bad, "\n"))
	}
	if !h.core.HasReady() {
		return
	}
	r := h.core.Ready()
	h.dig.Add(h.t, r)
	for _, j := range append(append([]store.Job(nil), r.Batch.Insert...), r.Batch.Update...) {
		if st, ok := h.final[j.ID]; ok {
			h.t.Fatalf("job %d written after it ended %s: %+v", j.ID, st, j)
		}
		if j.Attempt > j.MaxAttempts {
			h.t.Fatalf("job %d: attempt %d above max %d", j.ID, j.Attempt, j.MaxAttempts)
		}
	}
	res, err := h.st.ApplyJobs(context.Background(), r.Batch)
	if err != nil {
		h.t.Fatalf("apply: %v", err)
	}
	for _, ins := range res {
		if !ins.Created {
			h.t.Fatalf("the store did not add job %d", ins.Job.ID)
		}
	}
	for _, j := range r.Batch.Update {
		if !j.State.Live() {
			h.final[j.ID] = j.State
		}
	}
	h.core.Advance()
	for _, e := range r.Effects {
		if _, twice := h.runs[e.Job.ID]; twice {
			h.t.Fatalf("job %d handed out while a run of it is outstanding", e.Job.ID)
		}
		h.runs[e.Job.ID] = e.Job
	}
	h.replies = append(h.replies, r.Replies...)
	// Running jobs per queue, as the store sees them, within concurrency.
	counts, _ := h.st.JobCounts(context.Background())
	full, _ := h.cfg.WithDefaults()
	for _, q := range full.Queues {
		if n := counts[q.Name][store.JobRunning]; n > q.Concurrency {
			h.t.Fatalf("queue %s: %d running in the store, concurrency %d", q.Name, n, q.Concurrency)
		}
	}
}

// advance moves the clock by d and ticks.
func (h *harness) advance(d time.Duration) {
	h.t.Helper()
	h.now = h.now.Add(d)
	h.step(Tick(h.now))
}

// insert inserts j and returns the reply.
func (h *harness) insert(j store.Job) Reply {
	h.t.Helper()
	h.nextReq++
	in := Insert(j)
	in.Req = h.nextReq
	h.step(in)
	return h.reply(in.Req)
}

func (h *harness) cancel(id int64) Reply {
	h.t.Helper()
	h.nextReq++
	in := CancelJob(id)
	in.Req = h.nextReq
	h.step(in)
	return h.reply(in.Req)
}

func (h *harness) reply(req uint64) Reply {
	h.t.Helper()
	for _, r := range h.replies {
		if r.Req == req {
			return r
		}
	}
	h.t.Fatalf("no reply to request %d", req)
	return Reply{}
}

// finish answers job id's outstanding run.
func (h *harness) finish(id int64, o Outcome, err string, snooze time.Duration) {
	h.t.Helper()
	j, ok := h.runs[id]
	if !ok {
		h.t.Fatalf("job %d has no outstanding run", id)
	}
	delete(h.runs, id)
	h.step(Worked(id, j.Attempt, o, err, snooze))
}

func (h *harness) job(id int64) store.Job {
	h.t.Helper()
	j, err := h.st.Job(context.Background(), id)
	if err != nil {
		h.t.Fatalf("job %d: %v", id, err)
	}
	return j
}

func (h *harness) running() int { return len(h.runs) }

func (h *harness) isRunning(id int64) bool { _, ok := h.runs[id]; return ok }
