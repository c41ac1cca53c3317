package jobq

import (
	"encoding/binary"
	"errors"
	"hash/fnv"
	"strconv"
	"time"

	"github.com/ordolabs/ordo/internal/store"
)

// ErrRescued is the error a job found running at a restart gets: its node
// stopped while it ran, and no worker has it any more.
var ErrRescued = errors.New("rescued: its node stopped while it ran")

// touch records j's current version for the Ready.
func (c *Core) touch(j *store.Job, inserted bool) {
	j.UpdatedAt = c.now
	if _, seen := c.pending[j.ID]; !seen {
		c.order = append(c.order, j.ID)
		if inserted {
			c.inserted[j.ID] = true
		}
	}
	c.pending[j.ID] = *j
}

func (c *Core) reply(r Reply) {
	if r.Req != 0 {
		c.replies = append(c.replies, r)
	}
}

// insert adds a caller's job, or answers the live job holding its ID or
// unique key, or refuses it.
func (c *Core) insert(in Input) {
	j := in.Job
	switch {
	case j.ID < 1 || j.Kind == "" || j.MaxAttempts < 0:
		c.reply(Reply{Req: in.Req, Code: CodeInvalid})
		return
	case c.cfg.queue(j.Queue) == nil:
		c.reply(Reply{Req: in.Req, Code: CodeUnknownQueue})
		return
	}
	q := c.byName[j.Queue]
	if old, ok := c.jobs[j.ID]; ok {
		c.reply(Reply{Req: in.Req, Job: *old})
		return
	}
	if id, ok := c.uniq[j.UniqueKey]; ok && j.UniqueKey != "" {
		c.reply(Reply{Req: in.Req, Job: *c.jobs[id]})
		return
	}
	if len(q.waiting) >= q.cfg.MaxWaiting {
		c.reply(Reply{Req: in.Req, Code: CodeQueueFull})
		return
	}
	if j.MaxAttempts == 0 {
		j.MaxAttempts = c.cfg.MaxAttempts
	}
	c.add(j)
	c.reply(Reply{Req: in.Req, Job: *c.jobs[j.ID], Created: true})
}

// queue returns the configured queue named name, or nil.
func (c *CoreConfig) queue(name string) *QueueConfig {
	for i := range c.Queues {
		if c.Queues[i].Name == name {
			return &c.Queues[i]
		}
	}
	return nil
}

// add makes j (not yet known) a live waiting job of its queue.
func (c *Core) add(j store.Job) {
	if j.RunAt.IsZero() || !j.RunAt.After(c.now) {
		if j.RunAt.IsZero() {
			j.RunAt = c.now
		}
		j.State = store.JobAvailable
	} else {
		j.State = store.JobScheduled
	}
	j.Args = append([]byte(nil), j.Args...)
	if len(j.Args) == 0 {
		j.Args = nil
	}
	j.Attempt, j.Errors, j.FinalizedAt = 0, nil, time.Time{}
	j.CreatedAt = c.now
	jp := &j
	c.jobs[j.ID] = jp
	if j.UniqueKey != "" {
		c.uniq[j.UniqueKey] = j.ID
	}
	c.queue(j.Queue).add(jp)
	c.touch(jp, true)
}

// worked ends a run; an answer for a job not running that attempt is stale
// and ignored.
func (c *Core) worked(in Input) {
	j := c.jobs[in.ID]
	if j == nil || j.State != store.JobRunning || j.Attempt != in.Attempt {
		return
	}
	switch in.Outcome {
	case OutcomeDone:
		c.finish(j, store.JobCompleted)
	case OutcomeFailed:
		c.fail(j, in.Err)
	case OutcomeSnooze:
		q := c.queue(j.Queue)
		delete(q.running, j.ID)
		j.Attempt--
		j.RunAt = c.now.Add(max(in.Snooze, 0))
		j.State = store.JobScheduled
		if !j.RunAt.After(c.now) {
			j.State = store.JobAvailable
		}
		q.add(j)
		c.touch(j, false)
	case OutcomeCancel:
		c.record(j, in.Err)
		c.finish(j, store.JobCancelled)
	default:
		panic("jobq: worked with unknown outcome " + in.Outcome.String())
	}
}

// cancel ends a waiting job for good.
func (c *Core) cancel(in Input) {
	j := c.jobs[in.ID]
	switch {
	case j == nil:
		c.reply(Reply{Req: in.Req, Code: CodeNotLive})
	case j.State == store.JobRunning:
		c.reply(Reply{Req: in.Req, Code: CodeRunning, Job: *j})
	default:
		c.queue(j.Queue).remove(j)
		c.finish(j, store.JobCancelled)
		c.reply(Reply{Req: in.Req, Job: c.pending[j.ID]})
	}
}

// record keeps a failed attempt's error (the last ErrorsKept).
func (c *Core) record(j *store.Job, msg string) {
	if msg == "" {
		return
	}
	j.Errors = append(append([]store.JobError(nil), j.Errors...), store.JobError{Attempt: j.Attempt, At: c.now, Error: msg})
	if n := len(j.Errors) - c.cfg.ErrorsKept; n > 0 {
		j.Errors = j.Errors[n:]
	}
}

// fail ends a running job's attempt as failed: retryable after its
// backoff, or dead once it has run MaxAttempts times.
func (c *Core) fail(j *store.Job, msg string) {
	if msg == "" {
		msg = "failed"
	}
	c.record(j, msg)
	if j.Attempt >= j.MaxAttempts {
		c.finish(j, store.JobDead)
		return
	}
	q := c.queue(j.Queue)
	delete(q.running, j.ID)
	j.State = store.JobRetryable
	j.RunAt = c.now.Add(Backoff(c.cfg.BackoffBase, c.cfg.BackoffMax, j.ID, j.Attempt))
	q.add(j)
	c.touch(j, false)
}

// finish makes a live job final (it is no longer waiting).
func (c *Core) finish(j *store.Job, st store.JobState) {
	delete(c.queue(j.Queue).running, j.ID)
	j.State = st
	j.FinalizedAt = c.now
	delete(c.jobs, j.ID)
	if j.UniqueKey != "" && c.uniq[j.UniqueKey] == j.ID {
		delete(c.uniq, j.UniqueKey)
	}
	c.touch(j, false)
}

// pump inserts the periodic jobs whose period has come and starts the due
// jobs of each queue, in the config's order, up to its concurrency.
func (c *Core) pump() {
	for _, p := range c.cfg.Periodic {
		start := PeriodStart(c.now, p.Every)
		last, ok := c.period[p.Name]
		if ok && !start.After(last) {
			continue
		}
		if ok && c.jobs[PeriodicID(p.Name, last)] != nil {
			continue // the last period's job is still live: one at a time, no backlog
		}
		c.period[p.Name] = start
		id, key := PeriodicID(p.Name, start), PeriodicKey(p.Name, start)
		if _, ok := c.jobs[id]; ok {
			continue
		}
		if _, ok := c.uniq[key]; ok {
			continue
		}
		c.add(store.Job{ID: id, Queue: p.Queue, Kind: p.Kind, Args: p.Args, UniqueKey: key,
			MaxAttempts: p.MaxAttempts, RunAt: start})
	}
	for _, q := range c.queues {
		for len(q.running) < q.cfg.Concurrency && len(q.waiting) > 0 && !q.waiting[0].RunAt.After(c.now) {
			j := q.waiting[0]
			q.waiting = q.waiting[1:]
			q.running[j.ID] = true
			j.State = store.JobRunning
			j.Attempt++
			c.touch(j, false)
			c.effects = append(c.effects, Effect{Kind: EffectWork, Job: *j})
		}
	}
}

// Backoff is the wait after a job's failed attempt (1-based): base doubled
// per earlier failure, capped at limit, plus a jitter of up to a tenth of
// it drawn from the job's ID and attempt (so it is the same on every
// replay and differs between jobs failing together).
func Backoff(base, limit time.Duration, id int64, attempt int) time.Duration {
	d := base
	for i := 1; i < attempt && d < limit; i++ {
		d *= 2
	}
	d = min(d, limit)
	if span := d / 10; span > 0 {
		var b [16]byte
		binary.BigEndian.PutUint64(b[:8], uint64(id))
		binary.BigEndian.PutUint64(b[8:], uint64(attempt))
		h := fnv.New64a()
		_, _ = h.Write(b[:])
		d += time.Duration(h.Sum64() % uint64(span+1))
	}
	return d
}

// PeriodStart is the start of the period of length every holding at: a
// multiple of every since the Unix epoch.
func PeriodStart(at time.Time, every time.Duration) time.Time {
	n := at.UnixNano()
	r := n % int64(every)
	if r < 0 {
		r += int64(every)
	}
	return time.Unix(0, n-r).UTC()
}

// PeriodicKey is the unique key of periodic job name's period starting at
// start.
func PeriodicKey(name string, start time.Time) string {
	return "periodic/" + name + "/" + strconv.FormatInt(start.UnixNano(), 10)
}

// PeriodicID is the ID of periodic job name's period starting at start: a
// positive hash of its key, the same at every inserter.
func PeriodicID(name string, start time.Time) int64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(PeriodicKey(name, start)))
	id := int64(h.Sum64() >> 1)
	if id == 0 {
		id = 1
	}
	return id
}
