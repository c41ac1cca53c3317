package sequencer

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/store"
)

// The seed's run cycle: taking the next transaction, binding senders,
// dispatching, retrying and finishing.

// pump runs the seed's run cycle for one queue until it waits on something.
func (c *Core) pump(q *queue) {
	if q.load != loadIdle {
		return
	}
	c.grow(q)
	if c.stalled(q) {
		return
	}
	f := q.lead()
	if f == nil {
		c.startNext(q)
		return
	}
	t := f.txn
	switch q.rec.State {
	case store.Blocked:
		c.dispatch(q)
	case store.Inclusion:
		// Start WaitForInclusion: driven by new heads.
		q.rec.Deadline = c.head + c.cfg.InclusionTimeout
		c.setBinding(q, store.WaitingInclusion)
	case store.WaitingInclusion:
		if f.confirm > 0 {
			if c.head >= f.confirm {
				c.startConfirm(q)
			}
			return
		}
		if q.rec.Deadline > 0 && c.head >= q.rec.Deadline {
			if f.failing() {
				c.startCheck(q, checkBeforeFail)
			} else {
				c.startCheck(q, checkTimeout)
			}
		} else if c.cfg.PollStatus && f.polled < c.head {
			f.polled = c.head
			c.startCheck(q, checkPoll)
		}
	case store.RetryBinding:
		if t.rec.Retries > c.maxRetries(t) {
			c.startCheck(q, checkBeforeFail)
			return
		}
		q.rec.DelayUntil = c.now.Add(c.cfg.Policies[t.rec.Type].Delay)
		c.setBinding(q, store.Delay)
	case store.Delay:
		if !c.now.Before(q.rec.DelayUntil) {
			c.startCheck(q, checkBeforeDispatch)
		}
	default: // Free: no transaction to drive
	}
}

// stalled reports whether q's transaction waits on something other than the
// clock: an outstanding effect, a failed status check that is run again on the
// next head, or a sender for its dispatch.
func (c *Core) stalled(q *queue) bool {
	f := q.lead()
	return f != nil && (f.wait != waitNone || q.seat == seatInLine)
}

func (c *Core) maxRetries(t *txn) int { return c.cfg.Policies[t.rec.Type].MaxRetries }

// startNext takes the queue's next WAITING transaction (FIFO) and dispatches
// it once a sender is bound.
func (c *Core) startNext(q *queue) {
	if q.closed {
		// InputGate: its WAITING transactions wait, and a sender handed
		// to it from the line goes to the next queue.
		if q.lead() == nil {
			c.release(q)
		}
		return
	}
	if len(q.waiting) == 0 {
		c.loadMore(q)
		return
	}
	if q.snd == nil {
		s := c.takeFree(q)
		if s == nil {
			c.wantSender(q)
			return
		}
		c.bind(q, s)
	}
	t := q.waiting[0]
	q.waiting[0] = nil
	q.waiting = q.waiting[1:]
	c.fly(q, t)
	q.rec.TxUID = t.rec.UID
	if t.rec.State == store.Revision {
		// A pipelined queue's transaction restored after a restart (see
		// restoreFollowers): it was sent; the recovery check decides.
		q.rec.Deadline = 0
		c.setBinding(q, store.WaitingInclusion)
	} else {
		c.setBinding(q, store.Blocked)
	}
	if len(t.rec.Attempts) > 0 {
		// Dispatched before, by a run that stopped: settle what it sent
		// first, as recovery does.
		c.watchTxn(q)
		c.startCheck(q, checkRecover)
		return
	}
	c.dispatch(q)
}

// gate closes or opens a queue (InputGate); an opened one takes its next
// transaction at once.
func (c *Core) gate(name string, closed bool) {
	if closed {
		c.closed[name] = true
	} else {
		delete(c.closed, name)
	}
	if q := c.queues[name]; q != nil {
		q.closed = closed
		if !closed {
			c.pump(q)
		}
	}
}

// loadMore asks the store for q's next WAITING transactions, if it holds
// more than the (empty) buffer. The store's WAITING records are all unseen
// then (the buffer is empty, and what is in flight is held), so a rescan may
// start at 0.
func (c *Core) loadMore(q *queue) {
	if q.stored == storeBuffered {
		return
	}
	q.load, q.after = loadRunning, q.lastSeq
	if q.stored == storeRescan {
		q.stored, q.after = storeMore, 0
	}
	c.emit(Effect{Kind: EffectLoad, Queue: q.rec.Name, After: q.after, Limit: c.cfg.WaitingWindow})
}

// wantSender puts q in the line of queues waiting for a sender.
func (c *Core) wantSender(q *queue) {
	if q.seat != seatInLine {
		q.seat = seatInLine
		c.line = append(c.line, q)
	}
}

func (c *Core) bind(q *queue, s *sender) {
	if s.queue != nil || q.snd != nil {
		panic(fmt.Sprintf("sequencer: invariant: bind sender %s to queue %s: the sender is bound to %v, the queue to %v", s.rec.ID, q.rec.Name, s.queue != nil, q.snd != nil))
	}
	if !c.may(q, s) {
		panic(fmt.Sprintf("sequencer: invariant: bind sender %s to queue %s: the pins forbid it", s.rec.ID, q.rec.Name))
	}
	q.snd, s.queue = s, q
	q.rec.Sender, s.rec.Queue = s.rec.ID, q.rec.Name
	q.seat = seatBound
	c.markQ(q)
	c.markS(s)
}

// may reports whether the pins let q be bound to s: a pinned queue only to
// its sender, an unpinned one only to an unreserved sender.
func (c *Core) may(q *queue, s *sender) bool {
	if q.pin != "" {
		return s.rec.ID == q.pin
	}
	return !s.reserved
}

// takeFree takes a free sender that q may use (see may), or returns nil:
// the first of the free list for an unpinned queue, its own sender if idle
// for a pinned one. Every sender taken from the free list is taken here.
func (c *Core) takeFree(q *queue) *sender {
	if q.pin != "" {
		s := c.senders[q.pin]
		if !s.idle {
			return nil
		}
		s.idle = false
		c.idle--
		return s
	}
	if len(c.free) == 0 {
		return nil
	}
	s := c.free[0]
	c.free[0] = nil
	c.free = c.free[1:]
	return s
}

// putFree returns an unbound sender to the free list, or a reserved one to
// idle.
func (c *Core) putFree(s *sender) {
	if s.reserved {
		s.idle = true
		c.idle++
		return
	}
	c.free = append(c.free, s)
}

// release frees a queue's sender and hands it to the queue that has waited
// longest for one among those that may use it (see may).
func (c *Core) release(q *queue) {
	s := q.snd
	if s == nil {
		return
	}
	q.snd, s.queue, q.seat, q.offPin = nil, nil, seatNone, false
	q.rec.Sender, s.rec.Queue = "", ""
	c.markS(s)
	if next := c.nextInLine(s); next != nil {
		next.seat = seatNone
		c.bind(next, s)
		c.pump(next)
		return
	}
	c.putFree(s)
}

// nextInLine takes out of the line the queue that has waited longest for a
// sender among those that may use s, or returns nil. Queues that may not
// (pinned to another sender, or unpinned when s is reserved) keep their
// places. A seat is stale once its queue no longer waits (it finished, or
// got a sender otherwise): stale seats are dropped when they reach the
// front, and skipped elsewhere.
func (c *Core) nextInLine(s *sender) *queue {
	for len(c.line) > 0 && c.line[0].seat != seatInLine {
		c.line[0] = nil
		c.line = c.line[1:]
	}
	for i, next := range c.line {
		if next.seat == seatInLine && c.may(next, s) {
			if i == 0 {
				c.line[0] = nil
				c.line = c.line[1:]
			} else {
				c.line = slices.Delete(c.line, i, i+1)
			}
			return next
		}
	}
	return nil
}

// dispatch starts a new attempt of the queue's transaction. An attempt that
// never landed lends its nonce to the next one, whose higher fee replaces it.
func (c *Core) dispatch(q *queue) {
	if q.snd == nil {
		// Recovered without a sender: take a free one it may use. (No queue
		// waiting in line may use a free sender, so none is passed over.)
		if s := c.takeFree(q); s != nil {
			c.bind(q, s)
		}
	}
	f, s := q.lead(), q.snd
	t := f.txn
	if s == nil {
		// No sender free: wait in line for one.
		c.wantSender(q)
		return
	}
	if f.verdict == verdictAmbiguous {
		// Every attempt with a hash was checked and none landed, but the
		// nonce was consumed, perhaps by an unreported attempt: stop rather
		// than risk applying the intent twice.
		c.ambiguous(q, cmp.Or(t.attempt(f.suspect), t.last()), checkBeforeDispatch)
		return
	}
	for i := range t.rec.Attempts {
		b := &t.rec.Attempts[i]
		if b.Sender == s.rec.ID || nonceConsumed(b) {
			continue
		}
		// An attempt by another sender (one that left the configuration):
		// a nonce of this sender cannot replace it.
		if c.maybeSent(b) {
			c.ambiguous(q, b, checkBeforeDispatch)
			return
		}
		if landable(b) && b.Outcome == store.OutcomeSent {
			// It may still land: wait for it to resolve instead of risking a
			// second application.
			q.rec.Deadline = c.head + c.cfg.InclusionTimeout
			c.setBinding(q, store.WaitingInclusion)
			c.watchTxn(q)
			return
		}
	}
	nonce, prevFee, fresh := c.freshNonce(q, s), uint64(0), true
	if la := t.last(); la != nil {
		prevFee = la.Fee
		if la.Sender == s.rec.ID && !nonceConsumed(la) {
			switch {
			case la.Nonce >= s.rec.NextNonce:
				// It never landed: the new attempt replaces it.
				nonce, fresh = la.Nonce, false
			case c.unreportedAt(t, la.Nonce, la.N+1) != nil:
				// The chain has moved past the nonce of an attempt that may
				// have been sent unreported (this one or an earlier one at
				// the same nonce): it may have been ours. Derived from the
				// store, so it holds after a restart too.
				c.ambiguous(q, c.unreportedAt(t, la.Nonce, la.N+1), checkBeforeDispatch)
				return
			}
			// Otherwise it never reached the chain and its nonce went
			// elsewhere: a fresh nonce is safe.
		}
	}
	if p := c.pendingOf(t, s.rec.ID); p != nil && (fresh || p.Nonce < nonce) {
		// An earlier attempt of this sender is pending on chain (its last
		// check said so): it holds its nonce, whatever the sender's next
		// nonce says (a nonce_too_low may have come from its own inclusion,
		// since reorged back). Replace it there: at most one can land.
		nonce, fresh = p.Nonce, false
	}
	if ua := usedBy(t, s.rec.ID); fresh && ua != nil && c.sentBehind(q, ua.Nonce) {
		// A pipelined queue whose later transactions hold the nonces above
		// the one a failure used: no retry on a fresh nonce (see
		// failedIncl).
		f.rec.Error = "failed at inclusion: " + ua.Error + " (not retried: later transactions of its queue were sent behind its nonce)"
		c.settleToFail(q)
		return
	}
	c.send(q, f, nonce, prevFee, s.nonce == nonceFromChain && fresh)
}

// send makes a new attempt of f, in flight on q, on q's sender at nonce
// (its fee the next above prevFee), and asks for its dispatch.
func (c *Core) send(q *queue, f *flight, nonce, prevFee uint64, syncNonce bool) {
	s, t := q.snd, f.txn
	a := store.Attempt{N: len(t.rec.Attempts) + 1, Sender: s.rec.ID, Nonce: nonce, Fee: c.cfg.Fees.next(prevFee, c.minFee), At: c.now,
		Cancel: c.cancelOf(f, s.rec.ID, nonce)}
	if a.Cancel != "" {
		a.Fee = c.cfg.Fees.bump(prevFee, c.minFee)
	}
	t.rec.Attempts = append(t.rec.Attempts, a)
	c.saveAttempt(t, &t.rec.Attempts[len(t.rec.Attempts)-1])
	f.wait = waitDispatch
	c.emit(Effect{Kind: EffectDispatch, UID: t.rec.UID, Queue: q.rec.Name, Attempt: a.N, Txn: rawData(t),
		Sender: Sender{AccountID: s.rec.ID, Queue: q.rec.Name, Retries: t.rec.Retries, Nonce: a.Nonce, Fee: a.Fee, Gas: gasAt(t, s.rec.ID, nonce)},
		Worker: s.rec.Worker, SyncNonce: syncNonce, Cancel: a.Cancel})
}

// gasAt is the gas limit of t's latest signed attempt by sender at nonce
// (the attempt a new one at that nonce replaces keeps its limit, so only
// its fee changes), or 0.
func gasAt(t *txn, sender string, nonce uint64) uint64 {
	for i := len(t.rec.Attempts) - 1; i >= 0; i-- {
		if a := &t.rec.Attempts[i]; a.Sender == sender && a.Nonce == nonce && a.Gas != 0 {
			return a.Gas
		}
	}
	return 0
}

// usedBy returns the last attempt of t by sender whose nonce an inclusion
// used, or nil.
func usedBy(t *txn, sender string) *store.Attempt {
	for i := len(t.rec.Attempts) - 1; i >= 0; i-- {
		if a := &t.rec.Attempts[i]; a.Sender == sender && nonceConsumed(a) {
			return a
		}
	}
	return nil
}

// maybeSent reports whether an attempt may have reached the chain without
// the core knowing its hash: a remote worker's attempt (or one of a sender
// the store does not know) that has no hash and did not end in a known way.
// A keystore attempt's hash is committed before it is sent, so one without
// a hash never left its node, whichever node that was.
func (c *Core) maybeSent(a *store.Attempt) bool {
	if a.Hash != "" || (a.Outcome != "" && a.Outcome != store.OutcomeError) {
		return false
	}
	if s := c.senders[a.Sender]; s != nil {
		return s.rec.Worker != ""
	}
	// Another node's sender, or one gone from the configuration: a
	// keystore sender's hash is committed before its send, so only a
	// remote worker's, or a sender the store does not know, may have sent
	// it unreported.
	worker, known := c.foreign[a.Sender]
	return worker || !known
}

// pendingOf returns the attempt of t by sender at the lowest nonce that is
// pending on chain (landable, last seen sent), or nil.
func (c *Core) pendingOf(t *txn, sender string) *store.Attempt {
	var p *store.Attempt
	for i := range t.rec.Attempts {
		a := &t.rec.Attempts[i]
		if a.Sender == sender && landable(a) && a.Outcome == store.OutcomeSent && (p == nil || a.Nonce < p.Nonce) {
			p = a
		}
	}
	return p
}

// unreportedAt returns the first attempt of t numbered below before, at
// nonce, that may have been sent without the core knowing its hash (a remote
// worker answered an error and no hash), or nil.
func (c *Core) unreportedAt(t *txn, nonce uint64, before int) *store.Attempt {
	for i := range t.rec.Attempts {
		if a := &t.rec.Attempts[i]; a.N < before && a.Nonce == nonce && c.maybeSent(a) {
			return a
		}
	}
	return nil
}

// anyUnreported returns the last attempt of t that may have been sent
// without the core knowing its hash, or nil.
func (c *Core) anyUnreported(t *txn) *store.Attempt {
	for i := len(t.rec.Attempts) - 1; i >= 0; i-- {
		if a := &t.rec.Attempts[i]; c.maybeSent(a) && !nonceConsumed(a) {
			return a
		}
	}
	return nil
}

// retry counts a failed attempt and moves the transaction to RETRY.
func (c *Core) retry(q *queue, note string) {
	f := q.lead()
	f.rec.Error = note
	f.recheck = checkNone
	if f.wait == waitHead {
		f.wait = waitNone
	}
	if f.rec.Retries >= c.maxRetries(f.txn) {
		// No retry left: FAILED once every attempt is settled. Retries
		// stays the number of retries made, as the history shows them.
		c.settleToFail(q)
		return
	}
	f.rec.Retries++
	c.setBinding(q, store.RetryBinding)
	q.rec.Deadline = 0
	c.setState(q, f.txn, store.Retry, note)
	c.pump(q)
}

// settleToFail ends q's lead FAILED once every attempt of it is settled
// (checkBeforeFail).
func (c *Core) settleToFail(q *queue) {
	f := q.lead()
	c.saveTx(f.txn)
	if f.rec.State == store.Revision && q.rec.State != store.WaitingInclusion {
		// (A receipt of the failure came while the queue was delaying.)
		q.rec.Deadline = 0
		c.setBinding(q, store.WaitingInclusion)
	}
	c.startCheck(q, checkBeforeFail)
}

// finish ends the queue's transaction as DONE or FAILED, runs its hook and
// frees the sender.
func (c *Core) finish(q *queue, to store.TxState, note string) {
	t := q.lead().txn
	if to == store.Done {
		t.rec.Error = ""
	} else if t.rec.Error == "" {
		t.rec.Error = note
	}
	for _, a := range t.rec.Attempts {
		delete(c.watch, a.Hash)
	}
	c.land(q)
	if q.seat == seatInLine {
		q.seat = seatNone // its place in the line is skipped when reached
	}
	if q.lead() != nil {
		// A pipelined queue: its first follower leads now, on the same
		// sender.
		c.setState(q, t, to, note)
		c.hook(t)
		c.promote(q)
		return
	}
	q.rec.TxUID, q.rec.Deadline, q.rec.DelayUntil = "", 0, zeroTime
	c.setBinding(q, store.Free)
	c.setState(q, t, to, note)
	c.hook(t)
	if !c.keepsSender(q) {
		c.release(q)
	}
	c.pump(q)
}

// hook asks for a finished transaction's OnSuccess or OnFailure; its result
// is committed when the hook reports (HookDone). Until then the record has no
// Result, which is how a restart finds hooks to run again.
func (c *Core) hook(t *txn) {
	success := t.rec.State == store.Done
	res := TxnResult{}
	s := Sender{Queue: t.rec.Queue, Retries: t.rec.Retries}
	// The sender is the landed attempt's (DONE: the included one, else the
	// one failed as a duplicate of the intent an earlier transaction
	// applied), else the last one's; the hash likewise, else the last
	// attempt's with a hash.
	landed := store.OutcomeIncluded
	if success && !slices.ContainsFunc(t.rec.Attempts, func(a store.Attempt) bool { return a.Outcome == store.OutcomeIncluded }) {
		landed = store.OutcomeFailed // appliedEarlier: only a duplicate fails on a DONE path
	}
	for i := range t.rec.Attempts {
		a := &t.rec.Attempts[i]
		settled := a.Outcome == landed && (landed == store.OutcomeIncluded || a.Error == chain.ReasonDuplicateIntent)
		if (success && settled) || (!success && a.Hash != "") {
			res.Hash = a.Hash
		}
		if !success || settled || i == len(t.rec.Attempts)-1 && s.AccountID == "" {
			s.AccountID, s.Nonce, s.Fee = a.Sender, a.Nonce, a.Fee
		}
	}
	if !success {
		// OnFailure gets the reason (the seed's TxnResult.error).
		res.Error, _ = json.Marshal(map[string]string{"reason": t.rec.Error})
	}
	c.hooks[t.rec.UID] = t
	c.emit(Effect{Kind: EffectHook, UID: t.rec.UID, Queue: t.rec.Queue, Txn: rawData(t), Sender: s, Success: success, Result: res})
}
