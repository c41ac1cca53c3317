package sequencer

import (
	"fmt"

	"github.com/ordolabs/ordo/internal/store"
)

// An operator cancels a stuck nonce: uid's pending attempt at that nonce
// is replaced by a no-op (chain.NoopTx) at a higher fee, which may exceed
// the fee policy's Max (the operator asked for it, and an attempt stuck at
// the cap can be outbid no other way). Replacements of the no-op stay
// no-ops. Whichever lands holds the nonce: the transaction's own attempt
// ends it DONE as always; the no-op ends it FAILED, or sends it again at a
// fresh nonce without counting a retry (store.CancelRequeue), unless later
// transactions of its queue were sent behind that nonce (a requeue would
// break the queue's order: FAILED then).

// ReasonCancelled is the outcome error of an operator's no-op that took
// its nonce.
const ReasonCancelled = "cancelled: a no-op took the nonce"

// cancelNonce is InputCancel: it does nothing unless uid leads its queue
// with an attempt pending at nonce by the queue's sender, and no dispatch,
// check or confirmation of it is under way.
func (c *Core) cancelNonce(queue, uid string, nonce uint64, then string) {
	q := c.current(queue, uid)
	if q == nil || q.snd == nil || (then != store.CancelFail && then != store.CancelRequeue) {
		return
	}
	f := q.lead()
	la := f.txn.last()
	if la == nil || la.Sender != q.snd.rec.ID || la.Nonce != nonce || la.Hash == "" || nonceConsumed(la) || la.Cancel != "" ||
		f.wait != waitNone || f.confirm != 0 || f.rec.State != store.Revision {
		return
	}
	// the seed's cycle: REVISION → RETRY → a dispatch (this one counts no
	// retry: the operator asked for it)
	q.rec.Deadline = 0
	c.setBinding(q, store.RetryBinding)
	c.setState(q, f.txn, store.Retry, fmt.Sprintf("an operator cancels nonce %d: a no-op takes its place (then %s)", nonce, then))
	f.cancelNext = then
	c.send(q, f, nonce, la.Fee, false)
}

// cancelOf is the Cancel of f's next attempt at nonce by sender: the one
// an operator asked for, or a replacement of a no-op pending there.
func (c *Core) cancelOf(f *flight, sender string, nonce uint64) string {
	then := f.cancelNext
	f.cancelNext = ""
	if la := f.txn.last(); then == "" && la != nil && la.Cancel != "" && la.Sender == sender && la.Nonce == nonce {
		then = la.Cancel
	}
	return then
}

// cancelled acts on a no-op of q's transaction that holds its nonce (deep
// enough: failedIncl waited as for any failure).
func (c *Core) cancelled(q *queue, a *store.Attempt) {
	f := q.lead()
	note := fmt.Sprintf("cancelled by the operator: a no-op took nonce %d", a.Nonce)
	f.rec.Error, f.recheck = note, checkNone
	if f.wait == waitHead {
		f.wait = waitNone
	}
	if a.Cancel == store.CancelRequeue && !f.failing() && !c.sentBehind(q, a.Nonce) {
		q.rec.Deadline = 0
		c.setBinding(q, store.RetryBinding)
		c.setState(q, f.txn, store.Retry, note+"; sent again at a fresh nonce")
		c.pump(q)
		return
	}
	c.settleToFail(q)
}

// bump is the fee of a no-op replacing an attempt that paid prev: the
// policy's rise, not capped by Max.
func (f FeePolicy) bump(prev, minFee uint64) uint64 {
	return max(prev+(prev*f.BumpPercent+99)/100, prev+f.MinStep, minFee)
}
