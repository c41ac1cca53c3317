package jobq

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/ordolabs/ordo/internal/store"
)

// CheckInvariants walks the core and returns every broken invariant: every
// live job is in exactly one place (its queue's waiting list when waiting,
// its queue's running set when running), waiting lists are in due order,
// no queue runs more jobs than its concurrency, each live unique key is
// held by exactly one live job and names it, and no job has run more times
// than its MaxAttempts. Tests and simulations call it after each step.
func (c *Core) CheckInvariants() []string {
	var bad []string
	failf := func(format string, args ...any) { bad = append(bad, fmt.Sprintf(format, args...)) }
	seen := map[int64]string{}
	names := slices.Sorted(maps.Keys(c.byName))
	for _, name := range names {
		q := c.byName[name]
		if len(q.running) > q.cfg.Concurrency {
			failf("queue %s: %d running, concurrency %d", name, len(q.running), q.cfg.Concurrency)
		}
		for i, j := range q.waiting {
			if i > 0 && byDue(q.waiting[i-1], j) >= 0 {
				failf("queue %s: waiting job %d out of order", name, j.ID)
			}
			if !j.State.Waiting() {
				failf("queue %s: job %d waits in state %s", name, j.ID, j.State)
			}
			if c.jobs[j.ID] != j {
				failf("queue %s: waiting job %d is not the live record", name, j.ID)
			}
			if where, dup := seen[j.ID]; dup {
				failf("job %d is in %s and waiting in %s", j.ID, where, name)
			}
			seen[j.ID] = "waiting in " + name
		}
		for _, id := range slices.Sorted(maps.Keys(q.running)) {
			j := c.jobs[id]
			switch {
			case j == nil:
				failf("queue %s: running job %d is not live", name, id)
				continue
			case j.State != store.JobRunning:
				failf("queue %s: running job %d in state %s", name, id, j.State)
			case j.Queue != name:
				failf("job %d of queue %s runs in %s", id, j.Queue, name)
			}
			if where, dup := seen[id]; dup {
				failf("job %d is in %s and running in %s (running twice)", id, where, name)
			}
			seen[id] = "running in " + name
		}
	}
	ids := slices.SortedFunc(maps.Keys(c.jobs), cmp.Compare[int64])
	for _, id := range ids {
		j := c.jobs[id]
		if _, ok := seen[id]; !ok {
			failf("live job %d (%s) is in no queue", id, j.State)
		}
		if !j.State.Live() {
			failf("job %d in memory is %s", id, j.State)
		}
		if j.Attempt > j.MaxAttempts {
			failf("job %d: attempt %d above max %d", id, j.Attempt, j.MaxAttempts)
		}
		if j.UniqueKey != "" && c.uniq[j.UniqueKey] != id {
			failf("job %d: key %q held by %d", id, j.UniqueKey, c.uniq[j.UniqueKey])
		}
	}
	for _, key := range slices.Sorted(maps.Keys(c.uniq)) {
		id := c.uniq[key]
		if j := c.jobs[id]; j == nil || j.UniqueKey != key {
			failf("key %q names job %d, which does not hold it", key, id)
		}
	}
	return bad
}
