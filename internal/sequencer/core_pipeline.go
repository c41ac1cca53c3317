package sequencer

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ordolabs/ordo/internal/store"
)

// Pipeline is one rule of the in-flight-per-queue policy
// (CoreConfig.Pipelines): the queues whose name starts with Prefix may have
// up to InFlight transactions in flight at once.
type Pipeline struct {
	// Prefix selects the queues the rule applies to: every queue whose name
	// starts with it. The longest prefix that matches a queue wins; "" matches
	// every queue.
	Prefix string `json:"prefix"`
	// InFlight is how many transactions of such a queue may be in flight,
	// from 1 to MaxInFlight.
	InFlight int `json:"inFlight"`
}

// ErrPipeline is returned (wrapped) for an invalid in-flight-per-queue
// policy: a rule's InFlight out of [1, MaxInFlight], or two rules with one
// prefix.
var ErrPipeline = errors.New("invalid pipeline rule")

// CheckPipelines checks an in-flight-per-queue policy (see
// CoreConfig.Pipelines).
func CheckPipelines(rules []Pipeline) error {
	seen := map[string]bool{}
	for _, r := range rules {
		if r.InFlight < 1 || r.InFlight > MaxInFlight {
			return fmt.Errorf("pipeline for queues %q: inFlight %d must be from 1 to %d: %w", r.Prefix+"*", r.InFlight, MaxInFlight, ErrPipeline)
		}
		if seen[r.Prefix] {
			return fmt.Errorf("pipeline for queues %q: the prefix has two rules: %w", r.Prefix+"*", ErrPipeline)
		}
		seen[r.Prefix] = true
	}
	return nil
}

// InFlightFor returns how many transactions of queue may be in flight under
// rules: the InFlight of the longest prefix that matches it, else
// DefaultInFlightPerQueue.
func InFlightFor(rules []Pipeline, queue string) int {
	n, best := DefaultInFlightPerQueue, -1
	for _, r := range rules {
		if len(r.Prefix) > best && strings.HasPrefix(queue, r.Prefix) {
			n, best = r.InFlight, len(r.Prefix)
		}
	}
	return n
}

// Nonce-ordered pipelining. A queue whose policy allows InFlight k > 1 keeps
// up to k transactions in flight on its one sender: the lead (flights[0],
// the one the binding record names) runs the seed's cycle as a lone
// transaction does; its followers (flights[1:]) were each sent once, in
// FIFO order, at the nonce one above the flight before them (their pipe
// nonce), and wait: what the chain or a dispatch says of them is recorded,
// and acted on only once they lead (promote). So DONE and FAILED come in
// queue order, and every decision is the lone transaction's.
//
// The pipeline grows (grow) only behind a flight whose attempt is signed at
// its pipe nonce and not failed, so a dispatch error or a permanent build
// error can only hit its newest flight. A nonce left unused below a
// follower's is filled: the lead re-sends at its own nonce (a replacement
// of its attempt, at a higher fee) instead of ending FAILED (gapBehind).

// flightOf returns the queue and the flight of uid in flight on it, or nils.
func (c *Core) flightOf(queue, uid string) (*queue, *flight) {
	q := c.queues[queue]
	if q == nil {
		return nil, nil
	}
	for _, f := range q.flights {
		if f.rec.UID == uid {
			return q, f
		}
	}
	return nil, nil
}

// attemptOf returns the flight of q and its attempt with hash h, or nils.
func (q *queue) attemptOf(h string) (*flight, *store.Attempt) {
	for _, f := range q.flights {
		if a := findAttempt(f.txn, h); a != nil {
			return f, a
		}
	}
	return nil, nil
}

// grow dispatches q's next WAITING transactions behind its flights, while
// the policy allows more in flight and the newest flight is signed at its
// pipe nonce: each at the next nonce of the queue's sender. A transaction
// that a previous run sent is taken in only if it sent exactly there (after
// a restart); otherwise it waits to lead, and the pipeline waits with it.
func (c *Core) grow(q *queue) {
	s := q.snd
	if q.closed || q.depth < 2 || q.load != loadIdle || len(q.flights) == 0 || s == nil || s.rec.Worker != "" || s.nonce != nonceKnown || q.offPin {
		// (A remote worker's attempt may go unreported: its nonce is not
		// surely its own, so worker senders keep one in flight.)
		return
	}
	for len(q.flights) < q.depth {
		tail := q.flights[len(q.flights)-1]
		la := tail.last()
		if la == nil || la.Hash == "" || la.Sender != s.rec.ID || tail.held != nil || tail.verdict != verdictNone {
			return
		}
		switch la.Outcome {
		case "", store.OutcomeSent, store.OutcomeIncluded:
		default:
			return
		}
		if len(q.flights) == 1 {
			switch q.rec.State {
			case store.Blocked, store.Inclusion, store.WaitingInclusion:
			default:
				return
			}
			tail.pipe, tail.piped = la.Nonce, true
		}
		if la.Nonce != tail.pipe {
			return // the lead retried on a fresh nonce: let it land first
		}
		if lead := q.flights[0]; lead.piped {
			if ll := lead.last(); ll == nil || ll.Nonce != lead.pipe {
				return // likewise, behind its followers
			}
		}
		if len(q.waiting) == 0 {
			c.loadMore(q)
			return
		}
		next, nonce := q.waiting[0], tail.pipe+1
		if len(next.rec.Attempts) > 0 && !attachable(next, s.rec.ID, nonce) {
			return
		}
		q.waiting[0] = nil
		q.waiting = q.waiting[1:]
		f := c.fly(q, next)
		f.pipe, f.piped = nonce, true
		c.markQ(q)
		if len(next.rec.Attempts) > 0 {
			c.watchFlight(q, f)
			continue
		}
		c.send(q, f, nonce, 0, false)
		return // the next one follows once this one is signed
	}
}

// attachable reports whether t, sent by a previous run, may follow in the
// pipeline at nonce: every attempt of it by sender at that nonce, the last
// one signed and not known to have failed.
func attachable(t *txn, sender string, nonce uint64) bool {
	if t.rec.State != store.Waiting && t.rec.State != store.Revision {
		return false
	}
	for _, a := range t.rec.Attempts {
		if a.Sender != sender || a.Nonce != nonce {
			return false
		}
	}
	la := t.last()
	switch la.Outcome {
	case "", store.OutcomeSent, store.OutcomeIncluded, store.OutcomeUnknown:
		return la.Hash != ""
	default: // an error, failed, dropped or timed out: no hash to watch
	}
	return false
}

// followerDispatched takes the dispatch result of a follower: a success is
// recorded (REVISION); a failure is held until the follower leads, when it
// is acted on as a lone transaction's would be.
func (c *Core) followerDispatched(q *queue, f *flight, r Input) {
	a := f.attempt(r.Attempt)
	if a == nil || r.Attempt != len(f.rec.Attempts) || f.wait != waitDispatch {
		return
	}
	if r.Err != "" || a.Outcome == store.OutcomeFailed {
		// A hash that came with the error may be on chain: watch it and
		// commit it now (a restart must ask about it), act on it later.
		if r.Hash != "" && a.Hash == "" {
			a.Hash = r.Hash
			c.watch[r.Hash] = q
			c.saveAttempt(f.txn, a)
		}
		in := r
		f.held = &in
		return
	}
	f.wait = waitNone
	if r.Hash != "" {
		a.Hash = r.Hash
		c.watch[r.Hash] = q
	}
	if a.Outcome == "" {
		a.Outcome = store.OutcomeSent
	}
	c.saveAttempt(f.txn, a)
	if f.rec.State == store.Waiting {
		c.setState(q, f.txn, store.Revision, "dispatched")
	}
	c.grow(q)
}

// promote makes q's first follower its lead, once the lead before it ended:
// a held dispatch result is acted on now, a dispatch under way is awaited,
// and otherwise the chain is asked about what it sent (what the follower
// recorded may be stale: a reorg, a restart) before anything is decided.
func (c *Core) promote(q *queue) {
	f := q.lead()
	q.rec.TxUID, q.rec.Deadline, q.rec.DelayUntil = f.rec.UID, 0, zeroTime
	la := f.last()
	seen := la != nil && nonceConsumed(la) // a receipt came while it followed
	if f.held != nil && !seen {
		in := *f.held
		f.held = nil
		c.setBinding(q, store.Blocked)
		c.dispatched(in)
		return
	}
	f.held = nil
	if f.wait == waitDispatch && !seen {
		c.setBinding(q, store.Blocked)
		return
	}
	f.dispatchOver()
	if f.rec.State == store.Waiting {
		// Its dispatch never reported (a receipt came first): the check
		// decides, as a recovery does.
		c.setBinding(q, store.Blocked)
	} else {
		c.setBinding(q, store.WaitingInclusion)
	}
	if seen && la.Outcome == store.OutcomeIncluded && (c.conf() <= 1 || f.confirmed(la.N)) {
		c.landed(q)
		return
	}
	c.startCheck(q, checkPromote)
}

// sentBehind reports whether a later transaction of q (a follower, or one a
// previous run sent, waiting to be taken in again) has an attempt on q's
// sender at a nonce above nonce.
func (c *Core) sentBehind(q *queue, nonce uint64) bool {
	s := q.snd
	if q.depth < 2 || s == nil {
		return false
	}
	above := func(t *txn) bool {
		for _, a := range t.rec.Attempts {
			// (With or without a hash: a dispatch under way may send.)
			if a.Sender == s.rec.ID && a.Nonce > nonce {
				return true
			}
		}
		return false
	}
	for _, f := range q.flights[1:] {
		if above(f.txn) {
			return true
		}
	}
	for _, t := range q.waiting {
		if above(t) {
			return true
		}
	}
	return false
}

// gapBehind reports whether q's lead would leave its nonce unused under a
// later transaction of its queue: its last attempt, on the queue's sender,
// never consumed its nonce, and a follower (or a transaction a previous run
// sent, waiting to be taken in again) holds a higher nonce of that sender,
// sent or to be re-sent at it when it leads. Such a nonce is filled, never
// left.
func (c *Core) gapBehind(q *queue) bool {
	s, la := q.snd, q.lead().last()
	if q.depth < 2 || s == nil || la == nil || la.Sender != s.rec.ID || nonceConsumed(la) || la.Nonce < s.rec.NextNonce {
		return false
	}
	return c.sentBehind(q, la.Nonce)
}

// fillGap re-sends q's lead at its nonce, after the type's delay, instead of
// ending it FAILED (see gapBehind): its retries are spent, but its later
// transactions cannot land until the nonce is used. At most one attempt at
// a nonce can land, so the intent is still applied at most once.
func (c *Core) fillGap(q *queue) {
	f := q.lead()
	la := f.last()
	f.verdict = verdictNone
	note := fmt.Sprintf("re-sent at nonce %d after its last retry: later transactions of the queue wait on that nonce", la.Nonce)
	f.rec.Error = note
	q.rec.Deadline = 0
	q.rec.DelayUntil = c.now.Add(c.cfg.Policies[f.rec.Type].Delay)
	c.setBinding(q, store.Delay)
	c.setState(q, f.txn, store.Retry, note)
}

// freshNonce is the nonce a new attempt of q's lead takes on s when it
// cannot reuse one: the sender's next, above every nonce q's followers (and
// the transactions a previous run sent) hold.
func (c *Core) freshNonce(q *queue, s *sender) uint64 {
	n := s.rec.NextNonce
	if q.depth < 2 {
		return n
	}
	hold := func(t *txn) {
		for _, a := range t.rec.Attempts {
			if a.Sender == s.rec.ID && a.Nonce >= n {
				n = a.Nonce + 1
			}
		}
	}
	for _, f := range q.flights[1:] {
		hold(f.txn)
	}
	for _, t := range q.waiting {
		hold(t)
	}
	return n
}

// restoreFollowers takes back, after a restart, the transactions a
// pipelined queue had in flight behind its lead (REVISION, or WAITING with
// attempts: Snapshot.Sent): a queue's lead is the one its binding names, and
// the others join its buffer in Seq order, to be taken in again (grow) or
// to lead in turn, on the same sender (keepsSender).
func (c *Core) restoreFollowers(extra []store.Transaction) {
	for _, tr := range extra {
		q := c.queue(tr.Queue)
		if f := q.lead(); f != nil && f.rec.UID != q.rec.TxUID && tr.UID == q.rec.TxUID {
			// The binding names this one: it leads, the other follows.
			for _, a := range f.rec.Attempts {
				delete(c.watch, a.Hash)
			}
			delete(c.flying, f.rec.UID)
			q.flights[0] = &flight{txn: &txn{rec: tr}}
			c.flying[tr.UID] = q.flights[0].txn
			c.watchTxn(q)
			tr = f.rec
		}
		if !q.holds(tr.UID) {
			q.waiting = append(q.waiting, &txn{rec: tr})
			q.lastSeq = max(q.lastSeq, tr.Seq)
		}
	}
	for _, q := range c.order {
		if len(q.waiting) > 1 {
			slices.SortStableFunc(q.waiting, bySeq)
		}
	}
}

// keepsSender reports whether q, whose last transaction in flight just
// ended, keeps its sender for the next: a transaction a previous run sent
// on it waits in the buffer (restoreFollowers), and its attempts hold the
// sender's next nonces, which another queue must not take.
func (c *Core) keepsSender(q *queue) bool {
	if q.depth < 2 || q.snd == nil || q.load != loadIdle || len(q.waiting) == 0 {
		return false
	}
	for _, a := range q.waiting[0].rec.Attempts {
		if a.Sender == q.snd.rec.ID {
			return true
		}
	}
	return false
}

// bySeq orders transactions by their Seq.
func bySeq(a, b *txn) int { return cmp.Compare(a.rec.Seq, b.rec.Seq) }
