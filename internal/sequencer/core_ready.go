package sequencer

import (
	"cmp"
	"slices"

	"github.com/ordolabs/ordo/internal/store"
)

// The core's output: the Ready the driver takes (its contract on the type),
// and the marks and records each step adds to it.

// Ready is what the core produced since the last Ready: the store batch to
// commit, then the effects to perform.
//
// The driver's duties, in this order (the core cannot check all of them):
//
//  1. Step inputs, in the order they happened, each stamped with the clock.
//  2. Take Ready. The batch and the effects are in a deterministic order: the
//     same inputs give the same Readys, byte for byte.
//  3. Optionally sign inline: for an EffectDispatch whose dispatcher is a
//     Builder and whose sender's key is local (and that needs no nonce read),
//     build and sign without I/O, Step the InputSigned (or the
//     InputDispatched of a build error), drop that effect, take Ready again
//     and Append it to the first. Likewise, optionally run an EffectHook
//     whose dispatcher's hooks are pure (PureHooks) and Step its
//     InputHookDone: the result is then committed with the transaction's
//     end. These three kinds are the only inputs that may be stepped
//     between Ready and Advance; any other panics.
//  4. Commit Batch in one store transaction. If the commit fails, the driver
//     must stop using the core (its memory is ahead of the store); a new core
//     built from the store's snapshot resumes.
//  5. Call Advance.
//  6. Perform Effects, in any order and concurrently, and Step each result
//     when it arrives. An effect is never performed before its batch is
//     committed: an attempt's nonce and hash are durable before it can reach
//     the chain.
type Ready struct {
	// Batch is the store writes of the steps, coalesced to one write per
	// transaction and attempt.
	Batch store.Batch
	// Effects are the I/O the steps asked for, in the order asked.
	Effects []Effect
}

// Append adds a later Ready's writes and effects to r (step 3 above).
func (r *Ready) Append(o Ready) {
	r.Batch.Append(o.Batch)
	r.Effects = append(r.Effects, o.Effects...)
}

// Ready hands over what the core produced since the last Ready (see the
// Ready type for the contract).
func (c *Core) Ready() Ready {
	for _, q := range c.dirtyQ {
		q.rec.UpdatedAt = c.now
		q.dirty = false
		c.ready.Batch.Queues = append(c.ready.Batch.Queues, q.rec)
	}
	for _, s := range c.dirtyS {
		s.rec.UpdatedAt = c.now
		s.dirty = false
		c.ready.Batch.Senders = append(c.ready.Batch.Senders, s.rec)
	}
	clear(c.dirtyQ)
	clear(c.dirtyS)
	c.dirtyQ, c.dirtyS = c.dirtyQ[:0], c.dirtyS[:0]
	r := c.ready
	r.Batch.Txs = coalesce(r.Batch.Txs)
	c.ready = Ready{}
	c.handedOut = true
	return r
}

// HasReady reports whether a Ready would carry anything.
func (c *Core) HasReady() bool {
	return len(c.dirtyQ) > 0 || len(c.dirtyS) > 0 || !c.ready.Batch.Empty() || len(c.ready.Effects) > 0
}

// Advance tells the core that the batch of the last Ready is committed; its
// effects may now be performed and inputs stepped again.
func (c *Core) Advance() { c.handedOut = false }

// coalesce folds the updates of one step into one write per transaction and
// attempt: each transaction's last state, with the last version of each of
// its attempts, in the order the transactions were first touched.
func coalesce(us []store.TxUpdate) []store.TxUpdate {
	if len(us) < 2 {
		return us
	}
	type key struct {
		uid string
		n   int
	}
	last := map[string]store.TxUpdate{}
	attempts := map[key]*store.Attempt{}
	var order []string
	var aorder []key
	for _, u := range us {
		if prev, ok := last[u.UID]; !ok {
			order = append(order, u.UID)
		} else if !prev.AttemptOnly {
			u.AttemptOnly = false // an own change of the step is written
		}
		a := u.Attempt
		u.Attempt = nil
		last[u.UID] = u
		if a != nil {
			k := key{u.UID, a.N}
			if _, ok := attempts[k]; !ok {
				aorder = append(aorder, k)
			}
			attempts[k] = a
		}
	}
	out := us[:0]
	done := map[string]bool{}
	for _, k := range aorder {
		u := last[k.uid]
		u.Attempt = attempts[k]
		out = append(out, u)
		done[k.uid] = true
	}
	for _, uid := range order {
		if !done[uid] {
			out = append(out, last[uid])
		}
	}
	return out
}

func (c *Core) markQ(q *queue) {
	if !q.dirty {
		q.dirty = true
		c.dirtyQ = append(c.dirtyQ, q)
	}
	if q.step != c.steps {
		q.step = c.steps
		c.stepQ = append(c.stepQ, q)
	}
}

func (c *Core) markS(s *sender) {
	if !s.dirty {
		s.dirty = true
		c.dirtyS = append(c.dirtyS, s)
	}
	if s.step != c.steps {
		s.step = c.steps
		c.stepS = append(c.stepS, s)
	}
}

// setState moves a transaction to a new state with its history entry.
func (c *Core) setState(q *queue, t *txn, to store.TxState, note string) {
	from := t.rec.State
	t.rec.State = to
	t.rec.UpdatedAt = c.now
	c.saveTx(t)
	c.ready.Batch.History = append(c.ready.Batch.History, store.HistoryEntry{UID: t.rec.UID, At: c.now, From: from, To: to, Binding: q.rec.State, Note: note})
}

func (c *Core) saveTx(t *txn) {
	t.markSaved()
	c.ready.Batch.Txs = append(c.ready.Batch.Txs, store.TxUpdate{UID: t.rec.UID, State: t.rec.State, Retries: t.rec.Retries, Result: t.rec.Result, Error: t.rec.Error, At: c.now})
}

// saveAttempt writes a's new version, with t's own fields when they changed
// since this core last wrote them (or it never did).
func (c *Core) saveAttempt(t *txn, a *store.Attempt) {
	cp := *a
	only := t.unchanged()
	if !only {
		t.markSaved()
	}
	c.ready.Batch.Txs = append(c.ready.Batch.Txs, store.TxUpdate{UID: t.rec.UID, State: t.rec.State, Retries: t.rec.Retries, Result: t.rec.Result, Error: t.rec.Error, Attempt: &cp, At: c.now, AttemptOnly: only})
}

func (c *Core) setBinding(q *queue, s store.BindingState) {
	q.rec.State = s
	c.indexBinding(q)
	c.markQ(q)
}

// indexBinding adds q to the queues a tick (DELAY) or a new head
// (WaitingInclusion) visits, by its binding's state.
func (c *Core) indexBinding(q *queue) {
	switch q.rec.State {
	case store.Delay:
		c.delaying[q] = struct{}{}
	case store.WaitingInclusion:
		c.headed[q] = struct{}{}
	default: // nothing a tick or a head does for it
	}
}

// visit returns the queues of set that keep still holds for, in the order
// the core made them, and drops the others (and the queues forgotten since)
// from set.
func (c *Core) visit(set map[*queue]struct{}, keep func(*queue) bool) []*queue {
	out := make([]*queue, 0, len(set))
	for q := range set {
		if c.queues[q.rec.Name] != q || !keep(q) {
			delete(set, q)
			continue
		}
		out = append(out, q)
	}
	slices.SortFunc(out, func(a, b *queue) int { return cmp.Compare(a.id, b.id) })
	return out
}

// headDue reports whether a new head may move q: a check to run again, or
// an inclusion to wait for.
func headDue(q *queue) bool {
	f := q.lead()
	return (f != nil && f.wait == waitHead) || q.rec.State == store.WaitingInclusion
}

func (c *Core) emit(e Effect) { c.ready.Effects = append(c.ready.Effects, e) }
