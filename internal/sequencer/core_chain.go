package sequencer

import (
	"fmt"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/store"
)

// What the chain says about attempts, and what the core does with it:
// inclusion and its confirmations, status checks and their decisions, and
// recovery after a restart.

// landable reports whether an attempt may still be included: it has a hash
// and the chain has not settled it.
func landable(a *store.Attempt) bool {
	if a.Hash == "" {
		return false
	}
	switch a.Outcome {
	case store.OutcomeIncluded, store.OutcomeFailed, store.OutcomeDropped:
		return false
	default: // none, sent, an error, unknown or timed out: may still land
	}
	return true
}

// conf is how many blocks must hold an inclusion before it counts: the
// configured Confirmations, or the chain's declared reorg depth plus one.
func (c *Core) conf() uint64 {
	if c.cfg.Confirmations > 0 {
		return c.cfg.Confirmations
	}
	return c.reorgDepth + 1
}

// live reports whether the chain may still change its mind about an
// attempt: it has not settled (landable), or it is included less deep than
// Confirmations, where a reorg can return it to the mempool. The core watches
// and checks live attempts, and acts on no inclusion until it is deep enough.
func (c *Core) live(a *store.Attempt) bool {
	return landable(a) || (a.Hash != "" && nonceConsumed(a) && a.Height+c.conf()-1 > c.head)
}

// shallowFailure returns the latest attempt of t included and failed less
// deep than Confirmations, or nil: its nonce is not surely spent.
func (c *Core) shallowFailure(t *txn) *store.Attempt {
	for i := len(t.rec.Attempts) - 1; i >= 0; i-- {
		if a := &t.rec.Attempts[i]; a.Outcome == store.OutcomeFailed && c.live(a) {
			return a
		}
	}
	return nil
}

// duplicateAttempt returns t's latest attempt that the chain included and
// failed with chain.ReasonDuplicateIntent, or nil.
func duplicateAttempt(t *txn) *store.Attempt {
	for i := len(t.rec.Attempts) - 1; i >= 0; i-- {
		if a := &t.rec.Attempts[i]; a.Outcome == store.OutcomeFailed && a.Error == chain.ReasonDuplicateIntent {
			return a
		}
	}
	return nil
}

// nonceConsumed reports whether the attempt's nonce was used by an inclusion.
func nonceConsumed(a *store.Attempt) bool {
	return a.Outcome == store.OutcomeIncluded || a.Outcome == store.OutcomeFailed
}

// startCheck asks the chain about every attempt that may still land, then
// decides (see decide) once all answers are in.
func (c *Core) startCheck(q *queue, why check) {
	f := q.lead()
	if why == checkLookup {
		c.relook(q)
		return
	}
	n := 0
	for _, a := range f.rec.Attempts {
		// Live attempts, and every inclusion: what decide acts on must be
		// the chain's answer now, not a receipt or an answer from before a
		// restart, a failed check or a delay, which a reorg may have undone.
		if c.live(&a) || (why != checkPoll && a.Hash != "" && nonceConsumed(&a) && !f.confirmed(a.N)) {
			n++
			c.emit(Effect{Kind: EffectCheck, UID: f.rec.UID, Queue: q.rec.Name, Attempt: a.N, Hash: a.Hash})
		}
	}
	if n == 0 {
		c.decide(q, why)
		return
	}
	f.awaitChecks(why, n)
}

// landed acts on an attempt included with success: DONE once it has
// Confirmations blocks, else the queue keeps waiting (and its sender) until
// the head reaches that depth and a check confirms it is still there.
func (c *Core) landed(q *queue) {
	f := q.lead()
	if f.rec.State == store.Waiting {
		// A receipt came before the dispatch reported (the hash is watched
		// from signing on): the seed's cycle still passes through REVISION.
		c.setState(q, f.txn, store.Revision, "dispatched; already included")
	}
	var h uint64
	n := 0
	for _, a := range f.rec.Attempts {
		if a.Outcome == store.OutcomeIncluded {
			h, n = a.Height, a.N
		}
	}
	target := h + c.conf() - 1
	if c.conf() <= 1 || c.head >= target {
		c.finals[h] = append(c.finals[h], f.rec.UID)
		c.finish(q, store.Done, "included")
		return
	}
	// confirmN names the attempt being confirmed: a reorg may bring it back
	// in another block as a failure, which then needs confirming itself.
	f.confirm, f.confirmN, q.rec.Deadline = target, n, 0
	f.dispatchOver()
	c.setBinding(q, store.WaitingInclusion)
}

// startConfirm asks the chain whether the included attempt (or the failed
// one waiting for confirmation) is still included.
func (c *Core) startConfirm(q *queue) {
	f := q.lead()
	n := 0
	for _, a := range f.rec.Attempts {
		if a.Outcome == store.OutcomeIncluded || (a.N == f.confirmN && a.Outcome == store.OutcomeFailed) {
			n++
			c.emit(Effect{Kind: EffectCheck, UID: f.rec.UID, Queue: q.rec.Name, Attempt: a.N, Hash: a.Hash})
		}
	}
	if n == 0 {
		f.confirm = 0
		return
	}
	f.awaitChecks(checkConfirm, n)
}

// NoteAppliedEarlier is the history note of a transaction ended DONE by an
// attempt the chain failed with chain.ReasonDuplicateIntent: the chain
// applies an intent (the record's uid, the memo of every attempt) at most
// once, so an earlier transaction applied it: another attempt, or another
// node's (a new primary resuming a queue dispatches its intents again under
// the same uids).
const NoteAppliedEarlier = chain.ReasonDuplicateIntent + ": applied by an earlier transaction"

// appliedEarlier ends q's transaction DONE on an attempt failed as a
// duplicate intent, deep enough (failedIncl waited for Confirmations as for
// any failure): as a success, not a retry nor FAILED.
func (c *Core) appliedEarlier(q *queue, a *store.Attempt) {
	f := q.lead()
	if f.rec.State == store.Waiting {
		c.setState(q, f.txn, store.Revision, "dispatched; already included")
	}
	c.finals[a.Height] = append(c.finals[a.Height], f.rec.UID)
	c.finish(q, store.Done, NoteAppliedEarlier)
}

// failedIncl acts on an attempt of q's transaction that the chain included
// and failed (its nonce is consumed): a retry with a fresh nonce, or FAILED
// after the last retry; or, failed as a duplicate intent, DONE
// (appliedEarlier). With Confirmations > 1 it first waits until that many
// blocks hold the failure and a check confirms it: a reorg can return the
// attempt to the mempool, where it may yet succeed, and a fresh-nonce retry
// would then apply the intent twice.
func (c *Core) failedIncl(q *queue, a *store.Attempt) {
	f := q.lead()
	if target := a.Height + c.conf() - 1; c.conf() > 1 && c.head < target {
		f.confirm, f.confirmN, q.rec.Deadline = target, a.N, 0
		f.dispatchOver()
		c.setBinding(q, store.WaitingInclusion)
		return
	}
	f.confirm, f.confirmN = 0, 0
	if a.Cancel != "" {
		c.cancelled(q, a)
		return
	}
	if a.Error == chain.ReasonDuplicateIntent {
		c.appliedEarlier(q, a)
		return
	}
	note := "failed at inclusion: " + a.Error
	if f.failing() {
		c.finish(q, store.Failed, note+" (after the last retry)")
		return
	}
	if c.sentBehind(q, a.Nonce) {
		// A pipelined queue: later transactions were sent behind this
		// nonce, and its outcome is the transaction's. A retry on a fresh
		// nonce would land after them, out of the queue's order, and wait
		// on every nonce below it.
		f.rec.Error = note + " (not retried: later transactions of its queue were sent behind its nonce)"
		f.recheck = checkNone
		if f.wait == waitHead {
			f.wait = waitNone
		}
		c.settleToFail(q)
		return
	}
	if f.rec.State == store.Retry && a.N == len(f.rec.Attempts) {
		// This attempt's retry is counted already (it timed out, and the
		// failure came while the queue was delaying): the failure only
		// means the next attempt takes a fresh nonce.
		f.rec.Error = note
		c.saveTx(f.txn)
		if q.rec.State != store.Delay {
			c.setBinding(q, store.RetryBinding)
		}
		c.pump(q)
		return
	}
	c.retry(q, note)
}

// observe records what the chain said about an attempt of t, in flight on q.
func (c *Core) observe(q *queue, t *txn, a *store.Attempt, st chain.TxStatus) {
	if st.State != chain.TxIncluded && nonceConsumed(a) {
		// A reorg took back an inclusion: the nonce is free again, and the
		// attempt may still land with it.
		if s := c.senders[a.Sender]; s != nil && s.rec.NextNonce == a.Nonce+1 {
			s.rec.NextNonce = a.Nonce
			c.markS(s)
		}
	}
	switch st.State {
	case chain.TxIncluded:
		a.Height = st.Height
		if a.Cancel != "" {
			// an operator's no-op: it took the nonce, the intent was not
			// applied (core_cancel.go)
			a.Outcome, a.Error = store.OutcomeFailed, ReasonCancelled
		} else if st.Success {
			a.Outcome, a.Error = store.OutcomeIncluded, ""
		} else {
			a.Outcome, a.Error = store.OutcomeFailed, st.Reason
		}
		if s := c.senders[a.Sender]; s != nil && s.rec.NextNonce <= a.Nonce {
			s.rec.NextNonce = a.Nonce + 1
			c.markS(s)
		}
		if !c.live(a) {
			delete(c.watch, a.Hash)
		}
	case chain.TxPending:
		// Back in (or still in) the mempool: what an earlier inclusion said
		// no longer holds, and its receipt must be seen again.
		a.Outcome, a.Height, a.Error = store.OutcomeSent, 0, ""
		c.watch[a.Hash] = q
	case chain.TxDropped:
		a.Outcome, a.Error = store.OutcomeDropped, st.Reason
		delete(c.watch, a.Hash)
	default:
		a.Outcome = store.OutcomeUnknown
		c.watch[a.Hash] = q // unknown may still land
	}
	c.saveAttempt(t, a)
}

// decide acts on a completed status check.
func (c *Core) decide(q *queue, why check) {
	f := q.lead()
	t := f.txn
	var landed, pending bool
	for i := range t.rec.Attempts {
		switch a := &t.rec.Attempts[i]; {
		case a.Outcome == store.OutcomeIncluded:
			landed = true
		case landable(a) && a.Outcome == store.OutcomeSent:
			pending = true
		}
	}
	if landed {
		c.landed(q)
		return
	}
	if da := duplicateAttempt(t); da != nil {
		// An earlier transaction applied the intent: DONE once the
		// failure is deep enough, whatever the check was for.
		c.failedIncl(q, da)
		return
	}
	if fa := c.shallowFailure(t); fa != nil && why != checkConfirm && why != checkPoll {
		// A failed inclusion a reorg could still take back (seen while the
		// queue was delaying, say): confirm it before any new attempt or
		// FAILED, as its nonce is not surely spent.
		c.failedIncl(q, fa)
		return
	}
	if why == checkPoll {
		if la := t.last(); la != nil && la.Outcome == store.OutcomeFailed {
			c.failedIncl(q, la)
		}
		return
	}
	if why == checkConfirm {
		n := f.confirmN
		f.confirm, f.confirmN = 0, 0
		if fa := t.attempt(n); fa != nil && fa.Outcome == store.OutcomeFailed {
			// Still failed, or a success reorged back in as a failure: act
			// once the failure itself is deep enough.
			c.failedIncl(q, fa)
			return
		}
		// Reorged out: the attempt is back to pending (or gone); wait for
		// inclusion again, with a fresh timeout.
		q.rec.Deadline = c.head + c.cfg.InclusionTimeout
		c.setBinding(q, store.WaitingInclusion)
		c.watchTxn(q)
		return
	}
	la := t.last()
	switch why {
	case checkLookup:
		c.decide(q, f.then)
	case checkRecover, checkPromote:
		c.recoverDecide(q, la, pending, why)
	case checkBeforeDispatch:
		c.dispatch(q)
	case checkBeforeFail:
		if pending {
			// An attempt can still land: FAILED would be a lie. Wait for it.
			if f.verdict != verdictPermanent {
				f.verdict = verdictFailWhenSettled
			}
			q.rec.Deadline = c.head + c.cfg.InclusionTimeout
			c.setBinding(q, store.WaitingInclusion)
			return
		}
		if f.verdict != verdictPermanent && c.gapBehind(q) {
			// A later transaction of the queue waits on this nonce.
			c.fillGap(q)
			return
		}
		if b := c.anyUnreported(t); b != nil && f.verdict != verdictPermanent {
			// A remote worker may have sent an attempt it never reported:
			// look for what took its nonce; FAILED must say it may still
			// land when that cannot tell.
			c.ambiguous(q, b, checkBeforeFail)
			return
		}
		note := fmt.Sprintf("failed after %d retries", t.rec.Retries)
		if f.verdict == verdictPermanent {
			note = "failed: the dispatch can never succeed"
		}
		c.finish(q, store.Failed, note)
	case checkTimeout:
		switch {
		case la != nil && la.Outcome == store.OutcomeFailed:
			c.failedIncl(q, la)
		case pending:
			// Only the attempts still pending time out (never an
			// unreported one: its hash-less error marks it maybe sent).
			for i := range t.rec.Attempts {
				if a := &t.rec.Attempts[i]; landable(a) && a.Outcome == store.OutcomeSent {
					a.Outcome = store.OutcomeTimeout
					c.saveAttempt(t, a)
				}
			}
			c.retry(q, fmt.Sprintf("not included within %d blocks", c.cfg.InclusionTimeout))
		default:
			c.retry(q, "dropped by the chain")
		}
	default: // checkNone, checkConfirm, checkPoll: settled elsewhere
	}
}

// exhausted reports whether t's last allowed attempt was made and failed:
// Retries counts the retries made, so with Retries at the maximum and an
// attempt for each, a failed last attempt leaves nothing to retry.
func (c *Core) exhausted(t *txn) bool {
	la := t.last()
	if t.rec.Retries < c.maxRetries(t) || len(t.rec.Attempts) <= t.rec.Retries || la == nil {
		return false
	}
	switch la.Outcome {
	case store.OutcomeError, store.OutcomeFailed, store.OutcomeDropped, store.OutcomeTimeout, store.OutcomeUnknown:
		return true
	default: // none, sent or included: the attempt may still count
	}
	return false
}

// recoverDecide resumes a transaction that was active when the node stopped
// (why is checkRecover), or a follower of a pipelined queue that leads now
// (checkPromote).
func (c *Core) recoverDecide(q *queue, la *store.Attempt, pending bool, why check) {
	t := q.lead().txn
	label := "recovered"
	if why == checkPromote {
		label = "leading"
	}
	switch {
	case t.rec.State == store.Retry && c.exhausted(t):
		// Its last retry had failed before the stop: it was settling.
		c.decide(q, checkBeforeFail)
	case t.rec.State == store.Retry:
		if q.rec.State != store.Delay {
			c.setBinding(q, store.RetryBinding)
		}
		c.pump(q)
	case pending:
		if t.rec.State != store.Revision {
			c.setState(q, t, store.Revision, label+": attempt pending on chain")
		}
		q.rec.Deadline = c.head + c.cfg.InclusionTimeout
		c.setBinding(q, store.WaitingInclusion)
	case la != nil && la.Outcome == store.OutcomeFailed:
		if t.rec.State == store.Waiting {
			c.setState(q, t, store.Revision, label+": attempt included")
		}
		c.failedIncl(q, la)
	case t.rec.State == store.Revision:
		c.retry(q, label+": attempt not on chain")
	default:
		// WAITING with a dispatch interrupted before it reached the chain.
		c.setBinding(q, store.Blocked)
		c.dispatch(q)
	}
}
