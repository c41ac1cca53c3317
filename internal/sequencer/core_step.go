package sequencer

import (
	"fmt"
	"slices"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/store"
)

var zeroTime time.Time

// enqueued takes transactions that the store has committed.
func (c *Core) enqueued(txs []store.Transaction) {
	for i := range txs {
		tr := txs[i]
		q := c.queue(tr.Queue)
		if tr.State != store.Waiting {
			continue
		}
		if c.cfg.Shared {
			// Another node may have committed earlier ones: the store
			// tells, in Seq order (a load after lastSeq).
			if q.stored == storeBuffered {
				q.stored = storeMore
			}
			if q.load != loadIdle {
				q.load = loadMissed
			}
			continue
		}
		// Late: notified after a later one (concurrent intakes), or after
		// the store had already shown it (a load, a start) and the queue
		// may have been forgotten since (compact): seqSeen covers every
		// queue, lastSeq only a remembered one.
		late := tr.Seq <= max(q.lastSeq, c.seqSeen)
		c.seqSeen = max(c.seqSeen, tr.Seq)
		if late {
			if q.holds(tr.UID) {
				continue
			}
			// It may be new or already finished: the store tells, from
			// the start.
			q.stored = storeRescan
		}
		if q.load != loadIdle {
			q.load = loadMissed
			continue
		}
		if late || q.stored != storeBuffered || len(q.waiting) >= c.cfg.WaitingWindow {
			if q.stored == storeBuffered {
				q.stored = storeMore
			}
			continue
		}
		q.waiting = append(q.waiting, &txn{rec: tr})
		q.lastSeq = tr.Seq
	}
	for i := range txs {
		c.pump(c.queue(txs[i].Queue))
	}
}

// loaded takes the WAITING transactions an EffectLoad read.
func (c *Core) loaded(queue string, txs []store.Transaction, more bool) {
	q := c.queue(queue)
	missed := q.load == loadMissed
	for i := range txs {
		c.seqSeen = max(c.seqSeen, txs[i].Seq)
	}
	q.load = loadIdle
	for i := range txs {
		if txs[i].Seq > q.after && !q.holds(txs[i].UID) {
			q.waiting = append(q.waiting, &txn{rec: txs[i]})
			q.lastSeq = max(q.lastSeq, txs[i].Seq)
		}
	}
	if !slices.IsSortedFunc(q.waiting, bySeq) {
		// Transactions a pipelined queue had in flight came back from a
		// restart (restoreFollowers): the rescan's go between them.
		slices.SortStableFunc(q.waiting, bySeq)
	}
	switch {
	case q.stored == storeRescan:
		// Enqueued skipped an older one meanwhile: the next load starts at 0.
	case more || missed:
		q.stored = storeMore
	default:
		q.stored = storeBuffered
	}
	c.pump(q)
}

// tick retries the queues whose DELAY has ended.
func (c *Core) tick() {
	for _, q := range c.visit(c.delaying, func(q *queue) bool { return q.rec.State == store.Delay }) {
		if q.rec.State == store.Delay && !c.now.Before(q.rec.DelayUntil) {
			c.pump(q)
		}
	}
}

// newHead takes a new block height, the minimum fee in force and the receipts
// of watched transactions included since the last head.
func (c *Core) newHead(height, minFee uint64, receipts []Receipt) {
	if height > c.head {
		c.head = height
	}
	c.minFee = minFee
	// Followers' receipts first: recorded, acted on once they lead (a lead
	// that ends in this head promotes its follower with what it saw).
	var leads []Receipt
	for _, r := range receipts {
		if q := c.watch[r.Hash]; q != nil && len(q.flights) > 1 {
			if f, a := q.attemptOf(r.Hash); a != nil && f != q.lead() {
				c.include(q, f, a, r)
				continue
			}
		}
		leads = append(leads, r)
	}
	for _, r := range leads {
		q := c.watch[r.Hash]
		if q == nil || q.lead() == nil {
			continue
		}
		f, a := q.attemptOf(r.Hash)
		if a == nil {
			continue
		}
		if f != q.lead() {
			c.include(q, f, a, r)
			continue
		}
		c.include(q, f, a, r)
		switch {
		case a.Outcome == store.OutcomeIncluded: // (an operator's no-op is a failure: core_cancel.go)
			c.landed(q)
		case q.rec.State == store.WaitingInclusion && f.wait != waitChecks && f.confirm == 0:
			c.failedIncl(q, a)
		}
	}
	if height%compactEvery == 0 {
		c.compact()
	}
	for h := range c.finals {
		if h+maxReorgTrack < c.head {
			delete(c.finals, h)
		}
	}
	for _, q := range c.visit(c.headed, headDue) {
		if f := q.lead(); f != nil && f.wait == waitHead {
			why := f.recheck
			f.recheck, f.wait = checkNone, waitNone
			c.startCheck(q, why)
			continue
		}
		if q.rec.State == store.WaitingInclusion {
			c.pump(q)
		}
	}
}

// include records a receipt of attempt a of f, in flight on q.
func (c *Core) include(q *queue, f *flight, a *store.Attempt, r Receipt) {
	recordIncluded(a, r.Nonce, r.Fee)
	c.observe(q, f.txn, a, chain.TxStatus{State: chain.TxIncluded, Height: r.Height, Success: r.Success, Reason: r.Reason})
	f.markDeep(c, a)
}

// recordIncluded makes a record the nonce and fee of the transaction the
// chain included under its hash, when known (fee 0: unknown), whichever way
// the inclusion was learnt (a block's receipt or a status check): a remote
// worker may have paid another fee than the one asked.
func recordIncluded(a *store.Attempt, nonce, fee uint64) {
	if fee != 0 && (a.Fee != fee || a.Nonce != nonce) {
		a.Fee, a.Nonce = fee, nonce
	}
}

// holds reports whether uid is q's current or a buffered transaction.
func (q *queue) holds(uid string) bool {
	for _, f := range q.flights {
		if f.rec.UID == uid {
			return true
		}
	}
	for _, t := range q.waiting {
		if t.rec.UID == uid {
			return true
		}
	}
	return false
}

func findAttempt(t *txn, hash string) *store.Attempt {
	for i := range t.rec.Attempts {
		if t.rec.Attempts[i].Hash == hash {
			return &t.rec.Attempts[i]
		}
	}
	return nil
}

// current returns the queue whose in-flight transaction is uid.
func (c *Core) current(queue, uid string) *queue {
	q := c.queues[queue]
	if q == nil || q.lead() == nil || q.lead().rec.UID != uid {
		return nil
	}
	return q
}

// signed records the hash of a Builder dispatcher's signed transaction and
// asks for it to be sent once the hash is committed.
func (c *Core) signed(queue, uid string, attempt int, tx chain.Tx, hash string) {
	q, f := c.flightOf(queue, uid)
	if q == nil {
		return
	}
	a := f.attempt(attempt)
	if a == nil || attempt != len(f.rec.Attempts) || f.wait != waitDispatch || a.Hash != "" {
		return // stale: not the attempt being dispatched
	}
	a.Hash, a.Nonce, a.Gas = hash, tx.Nonce, tx.Gas
	c.watch[hash] = q
	c.saveAttempt(f.txn, a)
	c.emit(Effect{Kind: EffectSubmit, UID: uid, Queue: queue, Attempt: attempt, Tx: tx, Hash: hash})
	c.grow(q)
}

// dispatched takes the result of an attempt's dispatch.
func (c *Core) dispatched(r Input) {
	q, f := c.flightOf(r.Queue, r.UID)
	if q == nil {
		return
	}
	if f != q.lead() {
		c.followerDispatched(q, f, r)
		return
	}
	a := f.attempt(r.Attempt)
	if a == nil || r.Attempt != len(f.rec.Attempts) || f.wait != waitDispatch {
		return
	}
	f.wait = waitNone
	s := q.snd
	if s != nil && r.Nonce != 0 && r.Nonce != a.Nonce {
		a.Nonce = r.Nonce
	}
	if s != nil {
		s.nonce = nonceKnown
	}
	if r.Hash != "" {
		a.Hash = r.Hash
		c.watch[r.Hash] = q
	}
	if a.Outcome == store.OutcomeFailed {
		// A receipt (the hash is watched from Signed on) already showed the
		// attempt failing on chain: keep what the chain said.
		c.saveAttempt(f.txn, a)
		c.setState(q, f.txn, store.Revision, "dispatched; already included")
		c.failedIncl(q, a)
		return
	}
	if r.Err == "" {
		a.Outcome = store.OutcomeSent
		c.saveAttempt(f.txn, a)
		c.setBinding(q, store.Inclusion)
		c.setState(q, f.txn, store.Revision, "dispatched")
		c.pump(q)
		return
	}
	a.Outcome, a.Error = store.OutcomeError, r.Err
	c.saveAttempt(f.txn, a)
	if r.Permanent {
		// No retry can change it: FAILED once the earlier attempts, if
		// any, are settled; the sender is freed at once.
		f.rec.Error = "not retried: " + r.Err
		f.verdict = verdictPermanent
		c.startCheck(q, checkBeforeFail)
		return
	}
	if r.Code == chain.ErrNonceTooLow.Code {
		if b := c.unreportedAt(f.txn, a.Nonce, a.N); b != nil {
			// The nonce went to a transaction we cannot see: an earlier
			// attempt a remote worker may have sent without reporting its
			// hash. A fresh nonce could apply the intent twice.
			f.verdict, f.suspect = verdictAmbiguous, b.N
		} else if s != nil {
			// The nonce went elsewhere: the next attempt takes a fresh one,
			// read from the chain.
			s.nonce = nonceFromChain
			if s.rec.NextNonce <= a.Nonce {
				s.rec.NextNonce = a.Nonce + 1
				c.markS(s)
			}
		}
	}
	c.retry(q, "dispatch error: "+r.Err)
}

// checked takes a status check's answer; an error means the chain could not
// be asked, and the check is run again on the next head.
func (c *Core) checked(in Input) {
	q := c.current(in.Queue, in.UID)
	if q == nil || q.lead().wait != waitChecks {
		return
	}
	f := q.lead()
	if a := f.attempt(in.Attempt); a != nil && in.Err == "" && f.check == checkLookup {
		if !c.lookedUp(q, f, a, in) {
			f.recheck = f.check
		}
	} else if a != nil && in.Err == "" {
		if in.Status.State == chain.TxIncluded {
			recordIncluded(a, in.Nonce, in.Fee)
		}
		c.observe(q, f.txn, a, in.Status)
		f.markDeep(c, a)
	} else if in.Err != "" {
		f.recheck = f.check
	}
	why, done := f.checkAnswered()
	if f.wait == waitHead {
		c.headed[q] = struct{}{}
	}
	if !done {
		return
	}
	c.decide(q, why)
}

// hookDone records what a hook returned.
func (c *Core) hookDone(uid string, r TxnResult, err string) {
	t := c.hooks[uid]
	if t == nil {
		return
	}
	delete(c.hooks, uid)
	if b, mErr := marshalResult(r, err); mErr == nil {
		t.rec.Result = b
		c.saveTx(t)
	}
}

// watchTxn watches every attempt of q's lead that may still land.
func (c *Core) watchTxn(q *queue) { c.watchFlight(q, q.lead()) }

// watchFlight watches every attempt of f, in flight on q, that may still
// land.
func (c *Core) watchFlight(q *queue, f *flight) {
	for i := range f.rec.Attempts {
		if a := &f.rec.Attempts[i]; c.live(a) {
			c.watch[a.Hash] = q
		}
	}
}

// compactEvery is how often, in heads, the core forgets idle queues.
const compactEvery = 64

// compact forgets queues with nothing to do (free, nothing waiting, nothing
// to load), so that memory and the per-head walks stay proportional to the
// queues in use rather than to every queue ever seen. A forgotten queue is
// made again from the store when a transaction arrives for it.
func (c *Core) compact() {
	kept := c.order[:0]
	for _, q := range c.order {
		if len(q.flights) > 0 || len(q.waiting) > 0 || q.stored != storeBuffered || q.load != loadIdle || q.seat != seatNone || q.dirty {
			kept = append(kept, q)
			continue
		}
		delete(c.queues, q.rec.Name)
	}
	for i := len(kept); i < len(c.order); i++ {
		c.order[i] = nil
	}
	c.order = kept
}

// maxReorgTrack is how many heights back the core remembers which DONE
// transactions each block included, to flag them after a reorg deeper than
// declared; it is the deepest reorg devchain can make.
const maxReorgTrack = 64

// deepReorg flags the DONE transactions whose inclusion a reorg deeper than
// the chain declares replaced: a history entry on each (DONE stays DONE, and
// final; the entry says the chain broke its word and what to check).
func (c *Core) deepReorg(in Input) {
	var heights []uint64
	for h := range c.finals {
		if h > in.Height {
			heights = append(heights, h)
		}
	}
	slices.Sort(heights)
	for _, h := range heights {
		for _, uid := range c.finals[h] {
			c.ready.Batch.History = append(c.ready.Batch.History, store.HistoryEntry{UID: uid, At: c.now, From: store.Done, To: store.Done,
				Note: fmt.Sprintf("anomaly: a reorg of depth %d, deeper than the %d the chain declares, replaced block %d, which held this transaction's inclusion; it may no longer be applied: check the chain for memo %s", in.Depth, in.ReorgDepth, h, uid)})
		}
		delete(c.finals, h)
	}
}
