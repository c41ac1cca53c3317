package leader

import (
	"fmt"

	"github.com/ordolabs/ordo/internal/store"
)

// CheckInvariants walks the core and returns every broken invariant. Tests
// and simulations call it after each step.
func (c *Core) CheckInvariants() []string {
	var bad []string
	failf := func(format string, args ...any) { bad = append(bad, fmt.Sprintf(format, args...)) }
	waiting := map[int64]int{}
	for _, id := range c.waiting {
		if e := c.events[id]; e != nil && e.rec.Phase == PhaseReport {
			waiting[id]++
		}
	}
	running, outside := 0, 0
	for _, id := range ids(c.events) {
		e := c.events[id]
		r := e.rec
		if c.byWalk[r.Walk] != id {
			failf("event %d: walk %s is not found by it", id, r.Walk)
		}
		if e.running {
			running++
		}
		switch {
		case r.Status == store.EventQueued && (r.Phase != "" || e.running):
			failf("event %d: Queued in phase %q (running %t)", id, r.Phase, e.running)
		case r.Status == store.EventActive && r.Phase == PhaseReport && waiting[id] != 1:
			failf("event %d: waits for a channel %d times in the line", id, waiting[id])
		case r.Status == store.EventActive && r.Phase == PhaseSent && r.ResultUID != "" && c.byUID[r.ResultUID] != id:
			failf("event %d: its result %s is not found by it", id, r.ResultUID)
		case r.Status == store.EventActive && r.Phase == PhaseSent && (r.Channel < 0 || r.Channel >= len(c.chans)):
			failf("event %d: sent over channel %d of %d", id, r.Channel, len(c.chans))
		case r.Status != store.EventQueued && r.Status != store.EventActive:
			failf("event %d: in flight in status %s", id, r.Status)
		}
		if e.running && r.Phase != PhaseInvoke {
			failf("event %d: running in phase %q", id, r.Phase)
		}
		if r.Status == store.EventQueued && !c.inRunq[id] {
			outside++
			if !c.inStranded[id] {
				failf("event %d: Queued outside the run queue and not saved for its refill", id)
			}
		}
	}
	if outside > 0 && len(c.runq) < c.cfg.Capacity {
		failf("the run queue holds %d of %d while %d Queued records wait outside it", len(c.runq), c.cfg.Capacity, outside)
	}
	if len(c.stranded) != len(c.inStranded) {
		failf("%d stranded IDs, %d in their set", len(c.stranded), len(c.inStranded))
	}
	if running != c.running || c.running > c.cfg.MaxActive {
		failf("%d executions counted, %d running (at most %d)", c.running, running, c.cfg.MaxActive)
	}
	if len(c.runq) > c.cfg.Capacity || len(c.inRunq) != len(c.runq) {
		failf("run queue holds %d (set %d), capacity %d", len(c.runq), len(c.inRunq), c.cfg.Capacity)
	}
	for uid, id := range c.byUID {
		if e := c.events[id]; e == nil || e.rec.ResultUID != uid {
			failf("result %s names event %d, which does not hold it", uid, id)
		}
	}
	return bad
}
