package sequencer

import (
	"fmt"
	"slices"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/store"
)

// Attempts a remote worker may have sent without reporting their hash
// (maybeSent): before the core ends a transaction FAILED as ambiguous, it
// asks the chain which transaction took the attempt's nonce. The intent's
// own (its memo is the record's uid) makes the attempt included with that
// hash; another one proves no attempt of the transaction at that nonce can
// land, and a fresh nonce is safe. Only when no block read shows the nonce
// taken does the transaction end FAILED as ambiguous.

// lookupSlack is how far before an attempt's time a lookup reads blocks:
// the chain's block times and the node's clock may differ.
const lookupSlack = 10 * time.Minute

// ambiguous settles a, an attempt that may have been sent unreported and
// whose nonce may have been taken by it: it looks up what took the nonce
// (once per attempt), then decides then again; after a lookup, or for an
// attempt of a sender the core cannot name, it ends q's transaction
// FAILED: sending again with another nonce could apply the intent twice.
func (c *Core) ambiguous(q *queue, a *store.Attempt, then check) {
	f := q.lead()
	if !f.lookedAt(a) && a.Sender != "" {
		f.looked, f.then = append(f.looked, a.N), then
		c.emitLookup(q, a)
		return
	}
	f.verdict = verdictNone
	t := f.txn
	t.rec.Error = fmt.Sprintf("ambiguous: attempt %d (nonce %d) went to a remote worker that never reported its hash: it may have been sent, and may have landed or still land; look for memo %s on the chain", a.N, a.Nonce, t.rec.UID)
	if q.snd != nil {
		q.snd.nonce = nonceFromChain // the sender's next nonce is unknown: read it from the chain
	}
	c.finish(q, store.Failed, t.rec.Error)
}

// emitLookup asks the chain which transaction took a's nonce.
func (c *Core) emitLookup(q *queue, a *store.Attempt) {
	f := q.lead()
	c.emit(Effect{Kind: EffectCheck, UID: f.rec.UID, Queue: q.rec.Name, Attempt: a.N,
		Sender: Sender{AccountID: a.Sender, Queue: q.rec.Name, Nonce: a.Nonce}, Since: a.At.Add(-lookupSlack)})
	f.awaitChecks(checkLookup, 1)
}

// relook asks again about the attempt of the last lookup, which could not
// reach the chain; with no such attempt it decides what the lookup was for.
func (c *Core) relook(q *queue) {
	f := q.lead()
	if n := len(f.looked); n > 0 {
		if a := f.attempt(f.looked[n-1]); a != nil {
			c.emitLookup(q, a)
			return
		}
	}
	c.decide(q, f.then)
}

// lookedAt reports whether a lookup asked about a's sender and nonce.
func (f *flight) lookedAt(a *store.Attempt) bool {
	return slices.ContainsFunc(f.looked, func(n int) bool {
		b := f.attempt(n)
		return b != nil && b.Sender == a.Sender && b.Nonce == a.Nonce
	})
}

// lookedUp takes a lookup's answer about a (see EffectCheck): the intent's
// own transaction took the nonce, another one did, or no block read shows
// it (a stays unreported; ambiguous then fails the transaction). It
// returns false when the answer cannot be final yet: another transaction
// took the nonce in a block a reorg could still take back.
func (c *Core) lookedUp(q *queue, f *flight, a *store.Attempt, in Input) bool {
	st := in.Status
	switch {
	case st.State == chain.TxIncluded && st.Hash != "":
		// The intent's own transaction: a is the attempt it was (among
		// its unreported ones at the nonce, the one whose fee it paid).
		a = c.ownAttempt(f.txn, a, in.Fee)
		a.Hash = string(st.Hash)
		c.watch[a.Hash] = q
		recordIncluded(a, in.Nonce, in.Fee)
		c.observe(q, f.txn, a, st)
		f.markDeep(c, a)
	case st.State == chain.TxDropped && st.Height+c.conf()-1 > c.head:
		return false
	case st.State == chain.TxDropped:
		// Another transaction took the nonce, deep enough: no unreported
		// attempt of this sender at it can land.
		for i := range f.rec.Attempts {
			if b := &f.rec.Attempts[i]; b.Sender == a.Sender && b.Nonce == a.Nonce && c.maybeSent(b) {
				b.Outcome, b.Error = store.OutcomeDropped, st.Reason
				c.saveAttempt(f.txn, b)
			}
		}
		if f.verdict == verdictAmbiguous {
			f.verdict = verdictNone
		}
		if s := c.senders[a.Sender]; s != nil && s.rec.NextNonce <= a.Nonce {
			s.rec.NextNonce = a.Nonce + 1
			c.markS(s)
		}
	}
	return true
}

// ownAttempt returns the unreported attempt of t at a's nonce and sender
// that paid fee (the fee of the transaction found), or a.
func (c *Core) ownAttempt(t *txn, a *store.Attempt, fee uint64) *store.Attempt {
	for i := range t.rec.Attempts {
		if b := &t.rec.Attempts[i]; b.Sender == a.Sender && b.Nonce == a.Nonce && b.Fee == fee && fee != 0 && c.maybeSent(b) {
			return b
		}
	}
	return a
}
