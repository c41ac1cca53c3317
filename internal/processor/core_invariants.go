package processor

import (
	"fmt"

	"github.com/ordolabs/ordo/internal/store"
)

// CheckInvariants walks the whole core and returns every broken invariant
// (none when it is sound). Tests and simulations call it after each step.
func (c *Core) CheckInvariants() []string {
	var bad []string
	fail := func(format string, args ...any) { bad = append(bad, fmt.Sprintf(format, args...)) }
	queued := 0
	for _, name := range c.names {
		p := c.procs[name]
		n := c.checkQueues(p, fail)
		queued += n
		inQ, exec, pend := n, 0, 0
		for id, b := range p.live {
			switch b.rec.State {
			case store.BatchExecuting:
				exec++
				if c.byExec[b.st.Exec] != b {
					fail("%s/%s executing as %q is not in the executions", name, id, b.st.Exec)
				}
				if b.st.UID != "" && c.byUID[b.st.UID] != b {
					fail("%s/%s executing as record %s is not found by it", name, id, b.st.UID)
				}
			case store.BatchPending:
				pend++
				if c.byExec[b.st.Exec] != b {
					fail("%s/%s pending as %q is not in the pending map", name, id, b.st.Exec)
				}
			case store.BatchQueued:
			default:
				fail("%s/%s is live in state %s", name, id, b.rec.State)
			}
			if max := b.retryLogic().attempts(); max > 0 && b.st.Tries >= max {
				fail("%s/%s is live after %d failed attempts of %d allowed", name, id, b.st.Tries, max)
			}
			if b.st.Next >= len(b.st.Spec.Msgs) {
				fail("%s/%s is live with next action %d of %d", name, id, b.st.Next, len(b.st.Spec.Msgs))
			}
		}
		if len(p.live) != inQ+exec+pend {
			fail("%s holds %d live batches: %d queued, %d executing, %d pending", name, len(p.live), inQ, exec, pend)
		}
		c.checkCallbacks(p, fail)
	}
	for exec, b := range c.byExec {
		if b.st.Exec != exec || b.p.live[b.rec.ID] != b {
			fail("execution %q names batch %s/%s, which does not hold it", exec, b.p.rec.Name, b.rec.ID)
		}
	}
	for uid, b := range c.byUID {
		if b.st.UID != uid || b.rec.State != store.BatchExecuting {
			fail("record %s names batch %s/%s, which is %s as %q", uid, b.p.rec.Name, b.rec.ID, b.rec.State, b.st.UID)
		}
	}
	return bad
}

// assertBatches checks the batches first touched by this step (dirtyB from
// from on) and panics on a broken one, before the batch can be committed:
// a batch is where its state says (executing and pending in the
// executions, done out of the live ones), and a live batch has attempts
// left. CheckInvariants walks everything.
func (c *Core) assertBatches(from int) {
	for _, b := range c.dirtyB[from:] {
		live := b.p.live[b.rec.ID] == b
		var bad string
		switch b.rec.State {
		case store.BatchExecuting, store.BatchPending:
			if !live || c.byExec[b.st.Exec] != b {
				bad = "is not in the executions"
			}
		case store.BatchDone:
			if live || b.st.Outcome == nil {
				bad = "is done but live, or has no outcome"
			}
		case store.BatchQueued:
			if !live {
				bad = "is queued but not live"
			}
		}
		if bad == "" && b.rec.State != store.BatchDone {
			if max := b.retryLogic().attempts(); max > 0 && b.st.Tries >= max {
				bad = "is live with no attempt left"
			}
		}
		if bad != "" {
			panic(fmt.Sprintf("processor: batch %s/%s (%s) %s", b.p.rec.Name, b.rec.ID, b.rec.State, bad))
		}
	}
}

// checkQueues checks p's queues: every batch queued, live, in its
// priority's queue, keys ascending. It returns how many are queued.
func (c *Core) checkQueues(p *proc, fail func(string, ...any)) int {
	n := 0
	for qi := range p.queues {
		var last *pbatch
		p.queues[qi].Each(func(i int, b *pbatch) bool {
			n++
			if b.rec.State != store.BatchQueued || p.live[b.rec.ID] != b || b.st.Spec.Priority.index() != qi {
				fail("%s queue %d position %d holds %s in state %s", p.rec.Name, qi, i, b.rec.ID, b.rec.State)
			}
			if last != nil && last.rec.Key >= b.rec.Key {
				fail("%s queue %d keys do not ascend at position %d (%d then %d)", p.rec.Name, qi, i, last.rec.Key, b.rec.Key)
			}
			last = b
			return true
		})
	}
	return n
}

func (c *Core) checkCallbacks(p *proc, fail func(string, ...any)) {
	inflight := 0
	for seq, cb := range p.cbs {
		if cb.rec.State != store.CallbackPending || cb.rec.Seq != seq {
			fail("%s callback %d is held in state %s", p.rec.Name, seq, cb.rec.State)
		}
		if cb.inflight {
			inflight++
			if cb.idx >= 0 {
				fail("%s callback %d is being delivered and waits to be", p.rec.Name, seq)
			}
		} else if cb.idx < 0 || cb.idx >= p.due.Len() || p.due[cb.idx] != cb {
			fail("%s callback %d is neither being delivered nor waiting", p.rec.Name, seq)
		}
		if cb.rec.Seq >= p.rec.NextCallback {
			fail("%s callback %d is not below the next seq %d", p.rec.Name, seq, p.rec.NextCallback)
		}
	}
	if inflight != p.inflight || p.inflight > c.cfg.MaxDeliveries {
		fail("%s counts %d deliveries, %d are (limit %d)", p.rec.Name, p.inflight, inflight, c.cfg.MaxDeliveries)
	}
}
