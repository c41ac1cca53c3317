package sequencer

import (
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/store"
)

var zeroTime time.Time

// Enqueued hands the core transactions that the store has committed.
func (c *Core) Enqueued(txs []store.Transaction) {
	for i := range txs {
		tr := txs[i]
		q := c.queue(tr.Queue)
		if tr.State != store.Waiting {
			continue
		}
		late := tr.Seq <= q.lastSeq
		if late {
			if q.holds(tr.UID) {
				continue
			}
			// Notified after a later one (concurrent intakes): it may be
			// new or already finished; the store tells, from the start.
			q.rescan = true
		}
		if q.loading {
			q.missed = true
			continue
		}
		if late || q.more || len(q.waiting) >= c.cfg.WaitingWindow {
			q.more = true
			continue
		}
		q.waiting = append(q.waiting, &txn{rec: tr})
		q.lastSeq = tr.Seq
	}
	for i := range txs {
		c.pump(c.queue(txs[i].Queue))
	}
}

// Loaded hands the core the WAITING transactions an EffectLoad read.
func (c *Core) Loaded(queue string, txs []store.Transaction, more bool) {
	q := c.queue(queue)
	q.loading = false
	for i := range txs {
		if txs[i].Seq > q.after && !q.holds(txs[i].UID) {
			q.waiting = append(q.waiting, &txn{rec: txs[i]})
			q.lastSeq = max(q.lastSeq, txs[i].Seq)
		}
	}
	q.more = more || q.missed
	q.missed = false
	c.pump(q)
}

// Tick moves the core's clock: DELAYs that have ended lead to a retry.
func (c *Core) Tick(now time.Time) {
	c.SetTime(now)
	for _, q := range c.order {
		if q.rec.State == store.Delay && !c.now.Before(q.rec.DelayUntil) {
			c.pump(q)
		}
	}
}

// NewHead tells the core of a new block height, the minimum fee in force and
// the receipts of watched transactions included since the last head.
func (c *Core) NewHead(height, minFee uint64, receipts []Receipt) {
	if height > c.head {
		c.head = height
	}
	c.minFee = minFee
	for _, r := range receipts {
		q := c.watch[r.Hash]
		if q == nil || q.cur == nil {
			continue
		}
		a := findAttempt(q.cur, r.Hash)
		if a == nil {
			continue
		}
		c.observe(q, a, chain.TxStatus{State: chain.TxIncluded, Height: r.Height, Success: r.Success, Reason: r.Reason})
		switch {
		case r.Success:
			c.landed(q)
		case q.rec.State == store.WaitingInclusion && q.pending == 0 && q.confirm == 0:
			c.failedIncl(q, a)
		}
	}
	if height%compactEvery == 0 {
		c.compact()
	}
	for _, q := range c.order {
		if q.recheck != checkNone && q.pending == 0 && q.cur != nil {
			why := q.recheck
			q.recheck = checkNone
			c.startCheck(q, why)
			continue
		}
		if q.rec.State == store.WaitingInclusion {
			c.pump(q)
		}
	}
}

// holds reports whether uid is q's current or a buffered transaction.
func (q *queue) holds(uid string) bool {
	if q.cur != nil && q.cur.rec.UID == uid {
		return true
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
	if q == nil || q.cur == nil || q.cur.rec.UID != uid {
		return nil
	}
	return q
}

// Signed records the hash of a Builder dispatcher's signed transaction and
// asks for it to be sent once the hash is committed.
func (c *Core) Signed(queue, uid string, attempt int, tx chain.Tx, hash string) {
	q := c.current(queue, uid)
	if q == nil {
		return
	}
	a := q.cur.attempt(attempt)
	if a == nil || attempt != len(q.cur.rec.Attempts) || !q.busy || a.Hash != "" {
		return // stale: not the attempt being dispatched
	}
	a.Hash, a.Nonce = hash, tx.Nonce
	c.watch[hash] = q
	c.saveAttempt(q.cur, a)
	c.emit(Effect{Kind: EffectSubmit, UID: uid, Queue: queue, Attempt: attempt, Tx: tx, Hash: hash})
}

// Dispatched reports the result of an attempt's dispatch.
func (c *Core) Dispatched(queue string, r DispatchResult) {
	q := c.current(queue, r.UID)
	if q == nil {
		return
	}
	a := q.cur.attempt(r.Attempt)
	if a == nil || r.Attempt != len(q.cur.rec.Attempts) || !q.busy {
		return
	}
	q.busy = false
	s := q.snd
	if s != nil && r.Nonce != 0 && r.Nonce != a.Nonce {
		a.Nonce = r.Nonce
	}
	if s != nil {
		s.sync = false
	}
	if r.Hash != "" {
		a.Hash = r.Hash
		c.watch[r.Hash] = q
	}
	if a.Outcome == outcomeFailed {
		// A receipt (the hash is watched from Signed on) already showed the
		// attempt failing on chain: keep what the chain said.
		c.saveAttempt(q.cur, a)
		c.setState(q, q.cur, store.Revision, "dispatched; already included")
		c.failedIncl(q, a)
		return
	}
	if r.Err == nil {
		a.Outcome = outcomeSent
		c.saveAttempt(q.cur, a)
		c.setBinding(q, store.Inclusion)
		c.setState(q, q.cur, store.Revision, "dispatched")
		c.pump(q)
		return
	}
	a.Outcome, a.Error = outcomeError, r.Err.Error()
	c.saveAttempt(q.cur, a)
	if r.Code == chain.ErrNonceTooLow.Code {
		if c.unreported(q.cur, a) {
			// The nonce went to a transaction we cannot see: an earlier
			// attempt a remote worker may have sent without reporting its
			// hash. A fresh nonce could apply the intent twice.
			q.ambiguous = true
		} else if s != nil {
			// The nonce went elsewhere: the next attempt takes a fresh one,
			// read from the chain.
			s.sync = true
			if s.rec.NextNonce <= a.Nonce {
				s.rec.NextNonce = a.Nonce + 1
				c.markS(s)
			}
		}
	}
	c.retry(q, "dispatch error: "+r.Err.Error())
}

// unreported reports whether an earlier attempt of t at a's nonce went to a
// remote worker that answered with an error and no hash: it may have sent
// the transaction all the same.
func (c *Core) unreported(t *txn, a *store.Attempt) bool {
	for i := range t.rec.Attempts {
		if b := &t.rec.Attempts[i]; b.N < a.N && b.Nonce == a.Nonce && c.maybeSent(b) {
			return true
		}
	}
	return false
}

// Checked reports a status check's answer; err means the chain could not be
// asked, and the check is run again on the next head.
func (c *Core) Checked(queue, uid string, attempt int, st chain.TxStatus, err error) {
	q := c.current(queue, uid)
	if q == nil || q.pending == 0 {
		return
	}
	if a := q.cur.attempt(attempt); a != nil && err == nil {
		c.observe(q, a, st)
	} else if err != nil {
		q.recheck = q.check
	}
	q.pending--
	if q.pending > 0 {
		return
	}
	why := q.check
	q.check = checkNone
	if q.recheck != checkNone {
		return
	}
	c.decide(q, why)
}

// HookDone records what a hook returned.
func (c *Core) HookDone(uid string, r TxnResult, err error) {
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

// watchTxn watches every attempt of q's transaction that may still land.
func (c *Core) watchTxn(q *queue) {
	for i := range q.cur.rec.Attempts {
		if a := &q.cur.rec.Attempts[i]; landable(a) {
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
		if q.cur != nil || len(q.waiting) > 0 || q.more || q.loading || q.missed || q.want || q.snd != nil || c.dirtyQ[q] {
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
