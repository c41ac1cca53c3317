package leader

import (
	"cmp"
	"container/heap"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ordolabs/ordo/internal/store"
)

// Step takes one input. It panics on an unknown kind or between Ready and
// Advance.
func (c *Core) Step(in Input) {
	if c.handedOut {
		fail("Step between Ready and Advance")
	}
	if in.At.After(c.now) {
		c.now = in.At
	}
	switch in.Kind {
	case InputTime:
		c.retrier(in.Rand)
	case InputEvents:
		c.index(in)
	case InputExecuted:
		c.executed(in)
	case InputReported:
		c.reported(in)
	case InputFinished:
		if id, ok := c.byUID[in.UID]; ok {
			c.landed(c.events[id], in.Success, in.Err)
		}
	case InputChecked:
		c.checked(in)
	case InputRetry:
		c.retry(in)
	default:
		fail("unknown input kind %d", in.Kind)
	}
	c.afterStep()
}

// index saves each new request as a Queued record with the new cursor, in
// this step's batch (the listener moves on only after the commit), and
// sends it to the execution engine while the run queue has room (the
// high-integrity channel's send: exists? → save → capacity? → enqueue).
func (c *Core) index(in Input) {
	for _, r := range in.Requests {
		if r.Known || c.byWalk[r.Walk] != 0 {
			continue // a walk is indexed once, whatever cursor a reorg brings it back under
		}
		e := &event{rec: store.LeaderEvent{ID: r.ID, Walk: r.Walk, Tool: r.Tool, Digest: r.Digest, JSON: r.JSON,
			Height: r.Height, Status: store.EventQueued, Channel: -1, CreatedAt: c.now}}
		c.events[r.ID] = e
		c.byWalk[r.Walk] = r.ID
		c.touch(e)
		c.enqueue(e)
	}
	if in.Cursor > c.cursor {
		c.cursor = in.Cursor
		c.ready.Batch.Cursors = append(c.ready.Batch.Cursors, store.Cursor{Name: CursorName, Value: in.Cursor})
	}
}

// enqueue puts a Queued record in the run queue if there is room; else it
// stays saved, stranded: the run queue takes it as room frees (refill), or
// the retrier resends it.
func (c *Core) enqueue(e *event) {
	switch id := e.rec.ID; {
	case c.inRunq[id]:
	case len(c.runq) < c.cfg.Capacity:
		c.runq = append(c.runq, id)
		c.inRunq[id] = true
	case !c.inStranded[id]:
		heap.Push(&c.stranded, id)
		c.inStranded[id] = true
	}
}

// refill sends saved Queued records to the run queue, oldest (smallest ID)
// first, while it has room: a burst larger than the capacity drains at the
// engine's pace rather than one record per retrier round, and each record
// costs O(log n), not a walk over every record.
func (c *Core) refill() {
	for len(c.runq) < c.cfg.Capacity && c.stranded.Len() > 0 {
		id := heap.Pop(&c.stranded).(int64)
		delete(c.inStranded, id)
		if e := c.events[id]; e != nil && e.rec.Status == store.EventQueued && !c.inRunq[id] {
			c.runq = append(c.runq, id)
			c.inRunq[id] = true
		}
	}
}

func (c *Core) executed(in Input) {
	e := c.events[in.ID]
	if e == nil || !e.running || e.attempt != in.Attempt || e.rec.Phase != PhaseInvoke {
		return // stale: swept, disposed of, or from an earlier run
	}
	e.running = false
	c.running--
	switch in.Outcome {
	case OutcomeOK:
		c.toReport(e, true, in.Output, "")
	case OutcomeFatal:
		c.toReport(e, false, nil, in.Err)
	case OutcomeGone:
		c.end(e, store.EventDead, "the request is no longer on chain (a reorg removed it) before its result was sent")
	default: // retriable: nack, back to Queued
		e.rec.Retried++
		e.rec.Error = in.Err
		if e.rec.Retried > c.cfg.MaxRetries {
			c.toReport(e, false, nil, fmt.Sprintf("retries used up (%d): %s", c.cfg.MaxRetries, in.Err))
			return
		}
		c.requeue(e)
	}
}

// toReport makes e's result wait for a channel. A failure is reported as a
// failure result (ok false, the error as output) and ends Dead.
func (c *Core) toReport(e *event, ok bool, output json.RawMessage, errText string) {
	e.rec.Status, e.rec.Phase, e.rec.OK = store.EventActive, PhaseReport, ok
	e.rec.Output = output
	if !ok {
		e.rec.Error = errText
		b, _ := json.Marshal(errText)
		e.rec.Output = b
	}
	c.touch(e)
	c.waiting = append(c.waiting, e.rec.ID)
}

func (c *Core) requeue(e *event) {
	e.rec.Status, e.rec.Phase, e.rec.ActiveAt = store.EventQueued, "", zero
	c.touch(e)
	c.enqueue(e)
}

func (c *Core) reported(in Input) {
	e := c.events[in.ID]
	if e == nil || e.rec.Phase != PhaseSent || !e.submitting || slices.Contains(e.failedUIDs, in.UID) ||
		in.Key != "" && in.Key != ResultKey(e.rec.Walk, e.rec.Reports) {
		return // stale: the answer of a submission before a resend
	}
	e.submitting = false
	if in.UID == "" {
		if in.Permanent {
			c.end(e, store.EventDead, "the sequencer refused the result transaction: "+in.Err)
			return
		}
		c.nextCheck(e, c.now.Add(c.cfg.ResubmitAfter))
		return
	}
	if e.rec.ResultUID != in.UID {
		delete(c.byUID, e.rec.ResultUID)
		e.rec.ResultUID = in.UID
		c.byUID[in.UID] = e.rec.ID
		c.touch(e)
	}
	switch in.State {
	case store.Done:
		c.landed(e, true, "")
	case store.Failed:
		c.landed(e, false, in.Err)
	default: // not ended: the result transaction is still under way
	}
}

// landed takes the end of e's result transaction.
func (c *Core) landed(e *event, success bool, errText string) {
	if e == nil || e.rec.Phase != PhaseSent {
		return
	}
	switch {
	case success && e.rec.OK:
		c.end(e, store.EventSuccessful, "")
	case success:
		c.end(e, store.EventDead, e.rec.Error)
	case strings.Contains(errText, ReasonAlreadyReported):
		// Perhaps our own earlier transaction landed (a resend after a
		// crash, or a disposal racing the real result): ask before
		// blocking anything.
		c.effect(Effect{Kind: EffectCheck, ID: e.rec.ID, Walk: e.rec.Walk})
	case strings.Contains(errText, ReasonNoSuchWalk):
		c.end(e, store.EventDead, "the request was removed by a reorg after its result was sent: "+errText)
	default:
		e.failedUIDs = append(e.failedUIDs, e.rec.ResultUID)
		delete(c.byUID, e.rec.ResultUID)
		ch := c.chans[e.rec.Channel]
		ch.rec.BlockedUntil, ch.rec.LastError = c.now.Add(c.cfg.BlockFor), errText
		c.touchCh(ch)
		e.rec.Phase, e.rec.ResultUID = PhaseReport, ""
		if e.rec.OK { // a failure result keeps its reason: the one it reports
			e.rec.Error = errText
		}
		c.touch(e)
		c.waiting = append(c.waiting, e.rec.ID)
	}
}

func (c *Core) checked(in Input) {
	e := c.events[in.ID]
	if e == nil || e.rec.Phase != PhaseSent {
		return
	}
	switch {
	case !in.Ours:
		c.end(e, store.EventDead, "another leader reported the walk's result first (already_reported)")
	case in.Recorded == "ok":
		c.end(e, store.EventSuccessful, "")
	case in.Recorded == "failed":
		c.end(e, store.EventDead, cmp.Or(e.rec.Error, "an earlier failure result of ours is on chain"))
	case e.rec.OK:
		c.end(e, store.EventSuccessful, "")
	default:
		c.end(e, store.EventDead, e.rec.Error)
	}
}

func (c *Core) retry(in Input) {
	r := in.Record
	if r == nil || r.Status != store.EventDead || c.events[r.ID] != nil {
		c.ready.Replies = append(c.ready.Replies, Reply{Req: in.Req, Code: CodeConflict, Message: fmt.Sprintf("event %d is not Dead", in.ID)})
		return
	}
	e := &event{rec: *r}
	e.rec.Retried, e.rec.Error, e.rec.Phase, e.rec.OK, e.rec.Output, e.rec.Channel, e.rec.ResultUID = 0, "", "", false, nil, -1, ""
	c.events[r.ID] = e
	c.byWalk[r.Walk] = r.ID
	c.requeue(e)
	c.ready.Replies = append(c.ready.Replies, Reply{Req: in.Req, Body: e.rec})
}

// end gives e its final status and forgets it.
func (c *Core) end(e *event, st store.EventStatus, errText string) {
	e.rec.Status, e.rec.Phase, e.rec.Error = st, "", errText
	if e.running {
		c.running--
		e.running = false
	}
	c.touch(e)
	delete(c.events, e.rec.ID)
	delete(c.byWalk, e.rec.Walk)
	delete(c.byUID, e.rec.ResultUID)
}
