package leader

import (
	"fmt"
	"time"

	"github.com/ordolabs/ordo/internal/store"
)

var zero time.Time

// afterStep does what the step made possible or due: the sweeper and
// checks of result transactions, then executions for the run queue (those
// the sweeper put back too), then results over free channels.
func (c *Core) afterStep() {
	c.sweep()
	c.refill()
	c.execute()
	c.refill()
	c.send()
}

// execute starts executions while fewer than MaxActive run (the
// high-integrity channel's receive: move to the active set, process).
func (c *Core) execute() {
	for c.running < c.cfg.MaxActive && len(c.runq) > 0 {
		id := c.runq[0]
		c.runq = c.runq[1:]
		delete(c.inRunq, id)
		e := c.events[id]
		if e == nil || e.rec.Status != store.EventQueued {
			continue
		}
		e.rec.Status, e.rec.Phase, e.rec.ActiveAt = store.EventActive, PhaseInvoke, c.now
		e.attempt++
		e.running = true
		c.running++
		c.touch(e)
		c.effect(Effect{Kind: EffectExecute, ID: id, Attempt: e.attempt, Walk: e.rec.Walk, Tool: e.rec.Tool})
	}
}

// send hands waiting results to the channels, round robin over those not
// blocked, in the order the results became ready.
func (c *Core) send() {
	for len(c.waiting) > 0 {
		ch := c.freeChannel()
		if ch == nil {
			return
		}
		id := c.waiting[0]
		c.waiting = c.waiting[1:]
		e := c.events[id]
		if e == nil || e.rec.Phase != PhaseReport {
			continue
		}
		e.rec.Phase, e.rec.Channel = PhaseSent, ch.rec.Index
		e.rec.Reports++
		c.touch(e)
		c.submit(e, false)
	}
}

// freeChannel is the next channel, round robin, not blocked now.
func (c *Core) freeChannel() *channel {
	for k := range c.chans {
		ch := c.chans[(c.rr+k)%len(c.chans)]
		if !c.now.Before(ch.rec.BlockedUntil) {
			c.rr = (ch.rec.Index + 1) % len(c.chans)
			return ch
		}
	}
	return nil
}

// ResultKey is the idempotency key of a walk's n-th result transaction.
func ResultKey(walk string, n int) string { return fmt.Sprintf("leader/%s/%d", walk, n) }

func (c *Core) submit(e *event, again bool) {
	e.submitting = true
	c.nextCheck(e, c.now.Add(c.cfg.CheckEvery))
	c.effect(Effect{Kind: EffectReport, ID: e.rec.ID, Walk: e.rec.Walk, Channel: e.rec.Channel,
		Queue: fmt.Sprintf("%s%d", QueuePrefix, e.rec.Channel), Key: ResultKey(e.rec.Walk, e.rec.Reports),
		OK: e.rec.OK, Output: e.rec.Output, Again: again})
}

func (c *Core) nextCheck(e *event, t time.Time) {
	e.nextCheck = t
	if c.nextSweep.IsZero() || t.Before(c.nextSweep) {
		c.nextSweep = t
	}
}

// sweep runs when due: results in the sequencer are asked about again
// (resubmitted under their key), and executions no longer running (their
// node restarted) go back to Queued after SweepAfter (the sweeper).
func (c *Core) sweep() {
	if c.nextSweep.IsZero() || c.now.Before(c.nextSweep) {
		return
	}
	c.nextSweep = zero
	for _, id := range ids(c.events) {
		e := c.events[id]
		switch {
		case e.rec.Phase == PhaseSent && !e.submitting && !c.now.Before(e.nextCheck):
			c.submit(e, true)
		case e.rec.Phase == PhaseSent:
			c.nextCheck(e, e.nextCheck)
		case e.rec.Phase == PhaseInvoke && !e.running:
			if due := e.rec.ActiveAt.Add(c.cfg.SweepAfter); !c.now.Before(due) {
				c.requeue(e)
			} else {
				c.nextCheck(e, due)
			}
		case e.rec.Status == store.EventActive && e.rec.Phase != PhaseSent:
			c.nextCheck(e, e.rec.ActiveAt.Add(c.cfg.StaleAfter))
		}
	}
}

// dispose ends Active records older than StaleAfter that have no result
// transaction yet: Dead, with a failure result that tells the workflow.
// It runs with the retrier, every RetryEvery.
func (c *Core) dispose() {
	if len(c.events) == 0 {
		return
	}
	for _, id := range ids(c.events) {
		e := c.events[id]
		// Only a request still without a result is disposed of: one whose
		// result waits for a channel (all blocked) keeps it.
		if e.rec.Status != store.EventActive || e.rec.Phase != PhaseInvoke || e.rec.ActiveAt.IsZero() ||
			c.now.Before(e.rec.ActiveAt.Add(c.cfg.StaleAfter)) {
			continue
		}
		if e.running {
			e.running = false
			c.running--
		}
		c.toReport(e, false, nil, fmt.Sprintf("stale: still Active after %s", c.cfg.StaleAfter))
	}
}

// retrier runs every RetryEvery: it picks a Queued record that is not in
// the run queue (r picks which), drops it to Dead with a failure result at
// max retries, or resends it.
func (c *Core) retrier(r uint64) {
	if c.now.Before(c.nextRetry) {
		return
	}
	c.nextRetry = c.now.Add(c.cfg.RetryEvery)
	c.dispose()
	var cands []*event
	for _, id := range ids(c.events) {
		if e := c.events[id]; e.rec.Status == store.EventQueued && !c.inRunq[id] {
			cands = append(cands, e)
		}
	}
	if len(cands) == 0 {
		return
	}
	e := cands[r%uint64(len(cands))]
	if e.rec.Retried > c.cfg.MaxRetries {
		c.toReport(e, false, nil, fmt.Sprintf("retries used up (%d): %s", c.cfg.MaxRetries, e.rec.Error))
		e.rec.ActiveAt = c.now
		return
	}
	c.enqueue(e)
}
