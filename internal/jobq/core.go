package jobq

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/ordolabs/ordo/internal/store"
)

// Core is the job queue's sans-I/O state machine: every live job (waiting
// or running) by queue, the live unique keys, the periodic jobs' last
// periods. It does no I/O, reads no clock and draws no random number: job
// IDs come in inputs (inserts) or from the period (PeriodicID), jitter from
// the job's ID.
type Core struct {
	cfg    CoreConfig
	now    time.Time
	queues []*queue
	byName map[string]*queue
	jobs   map[int64]*store.Job // live jobs
	uniq   map[string]int64     // live unique key → job ID
	period map[string]time.Time // periodic job name → start of the last period inserted

	// The Ready being built: records in the order first changed, the
	// latest version of each; inserted marks the new ones.
	order     []int64
	pending   map[int64]store.Job
	inserted  map[int64]bool
	effects   []Effect
	replies   []Reply
	handedOut bool
}

// queue is one named queue's live jobs.
type queue struct {
	cfg QueueConfig
	// waiting: available, scheduled and retryable jobs, by (RunAt, ID).
	waiting []*store.Job
	// running: the IDs of its running jobs.
	running map[int64]bool
}

// EffectKind names an effect.
type EffectKind uint8

// The effects a Ready asks for.
const (
	// EffectWork: run Job (its Attempt is this run) with the worker of its
	// kind; answer with Worked naming Job.ID and Job.Attempt.
	EffectWork EffectKind = iota + 1
)

// Effect is I/O the core asks for, performed after its batch commits.
type Effect struct {
	Kind EffectKind `json:"kind"`
	Job  store.Job  `json:"job"`
}

// Ready is what the core hands its driver, whose duties are, in order:
// step inputs stamped with the clock; take Ready (no Step until Advance);
// commit Batch in one store transaction (a failed commit, or an insert the
// store did not add, retires the core: rebuild it from the store);
// Advance; then send Replies and perform Effects, in any order and
// concurrently, stepping each answer. The same inputs give the same
// Readys.
type Ready struct {
	Batch   store.JobBatch
	Effects []Effect
	Replies []Reply
}

// Snapshot is what a core is rebuilt from after a restart.
type Snapshot struct {
	// Jobs are the live jobs (store.JobStore.LiveJobs).
	Jobs []store.Job
	// Periods is, per periodic job, the start of the last period whose job
	// the store holds (the driver reads it with JobByUniqueKey and
	// PeriodicKey for the current period); absent: none.
	Periods map[string]time.Time
	// Working is, by job ID, the attempt of each run whose worker the
	// driver still has (a rebuild after a failed commit): those jobs stay
	// running. Every other running job is rescued.
	Working map[int64]int
}

// NewCore builds a core from a snapshot at now. Jobs found running with no
// live worker (not in Working: their node stopped while they ran) are rescued
// as a failed attempt (retryable after its backoff, or dead), and its
// first Ready writes that and starts what is due.
func NewCore(cfg CoreConfig, now time.Time, snap Snapshot) (*Core, error) {
	cfg, err := cfg.WithDefaults()
	if err != nil {
		return nil, err
	}
	c := &Core{
		cfg:      cfg,
		now:      now,
		byName:   map[string]*queue{},
		jobs:     map[int64]*store.Job{},
		uniq:     map[string]int64{},
		period:   map[string]time.Time{},
		pending:  map[int64]store.Job{},
		inserted: map[int64]bool{},
	}
	for _, qc := range cfg.Queues {
		q := &queue{cfg: qc, running: map[int64]bool{}}
		c.queues = append(c.queues, q)
		c.byName[qc.Name] = q
	}
	for name, at := range snap.Periods {
		c.period[name] = at
	}
	jobs := slices.Clone(snap.Jobs)
	slices.SortFunc(jobs, func(a, b store.Job) int { return cmp.Compare(a.ID, b.ID) })
	for i := range jobs {
		j := jobs[i]
		if !j.State.Live() {
			return nil, fmt.Errorf("jobq: snapshot job %d is %s, not live", j.ID, j.State)
		}
		if _, dup := c.jobs[j.ID]; dup {
			return nil, fmt.Errorf("jobq: snapshot job %d twice", j.ID)
		}
		if j.UniqueKey != "" {
			if other, held := c.uniq[j.UniqueKey]; held {
				return nil, fmt.Errorf("jobq: snapshot jobs %d and %d hold key %q", other, j.ID, j.UniqueKey)
			}
			c.uniq[j.UniqueKey] = j.ID
		}
		jp := &j
		c.jobs[j.ID] = jp
		q := c.queue(j.Queue)
		if j.State == store.JobRunning {
			q.running[j.ID] = true
			if a, ok := snap.Working[j.ID]; !ok || a != j.Attempt {
				c.fail(jp, ErrRescued.Error())
			}
		} else {
			q.add(jp)
		}
	}
	c.pump()
	return c, nil
}

// queue returns the named queue; a queue the config does not name (its
// jobs came from the store) runs nothing: concurrency 0.
func (c *Core) queue(name string) *queue {
	if q := c.byName[name]; q != nil {
		return q
	}
	q := &queue{cfg: QueueConfig{Name: name}, running: map[int64]bool{}}
	c.byName[name] = q
	return q
}

// add places a waiting job in its order.
func (q *queue) add(j *store.Job) {
	i, _ := slices.BinarySearchFunc(q.waiting, j, byDue)
	q.waiting = slices.Insert(q.waiting, i, j)
}

// remove takes a waiting job out.
func (q *queue) remove(j *store.Job) {
	if i, ok := slices.BinarySearchFunc(q.waiting, j, byDue); ok {
		q.waiting = slices.Delete(q.waiting, i, i+1)
	}
}

func byDue(a, b *store.Job) int { return cmp.Or(a.RunAt.Compare(b.RunAt), cmp.Compare(a.ID, b.ID)) }

// Step takes one input. It panics on an unknown kind and when called
// between Ready and Advance.
func (c *Core) Step(in Input) {
	if c.handedOut {
		panic("jobq: Step between Ready and Advance")
	}
	if in.At.After(c.now) {
		c.now = in.At
	}
	switch in.Kind {
	case InputTick:
	case InputInsert:
		c.insert(in)
	case InputWorked:
		c.worked(in)
	case InputCancel:
		c.cancel(in)
	default:
		panic(fmt.Sprintf("jobq: unknown input kind %v", in.Kind))
	}
	c.pump()
	for _, q := range c.queues {
		if len(q.running) > q.cfg.Concurrency {
			panic(fmt.Sprintf("jobq: queue %s runs %d jobs, above its concurrency %d", q.cfg.Name, len(q.running), q.cfg.Concurrency))
		}
	}
}

// HasReady reports whether a Ready would carry anything.
func (c *Core) HasReady() bool {
	return len(c.order) > 0 || len(c.effects) > 0 || len(c.replies) > 0
}

// Ready hands over what the steps since the last Advance produced.
func (c *Core) Ready() Ready {
	var r Ready
	for _, id := range c.order {
		j := c.pending[id]
		if c.inserted[id] {
			r.Batch.Insert = append(r.Batch.Insert, j)
		} else {
			r.Batch.Update = append(r.Batch.Update, j)
		}
	}
	r.Effects = slices.Clone(c.effects)
	r.Replies = slices.Clone(c.replies)
	c.handedOut = true
	return r
}

// Advance tells the core its last Ready is committed.
func (c *Core) Advance() {
	c.order = c.order[:0]
	clear(c.pending)
	clear(c.inserted)
	c.effects = c.effects[:0]
	c.replies = c.replies[:0]
	c.handedOut = false
}

// Counts returns, per configured queue, its running and waiting jobs.
func (c *Core) Counts() map[string][2]int {
	out := map[string][2]int{}
	for _, q := range c.queues {
		out[q.cfg.Name] = [2]int{len(q.running), len(q.waiting)}
	}
	return out
}

// NextDeadline is when the core next has something to do without an
// input: the earliest RunAt of a queue's first waiting job while it has a
// free slot, or a periodic job's next period; zero for none.
func (c *Core) NextDeadline() time.Time {
	var d time.Time
	earlier := func(t time.Time) {
		if d.IsZero() || t.Before(d) {
			d = t
		}
	}
	for _, q := range c.queues {
		if len(q.running) < q.cfg.Concurrency && len(q.waiting) > 0 {
			earlier(q.waiting[0].RunAt)
		}
	}
	for _, p := range c.cfg.Periodic {
		earlier(PeriodStart(c.now, p.Every).Add(p.Every))
	}
	return d
}
