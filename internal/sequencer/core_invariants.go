package sequencer

import (
	"errors"
	"fmt"

	"github.com/ordolabs/ordo/internal/store"
)

// assertCheap checks the invariants of what the last step touched (the queues
// and senders it marked, once each) and panics on a broken one: a core whose
// memory contradicts itself must stop loudly, before its batch is committed.
func (c *Core) assertCheap() {
	for _, q := range c.stepQ {
		if err := c.checkQueue(q); err != nil {
			panic("sequencer: invariant broken: " + err.Error())
		}
	}
	for _, s := range c.stepS {
		if err := checkSender(s); err != nil {
			panic("sequencer: invariant broken: " + err.Error())
		}
	}
	clear(c.stepQ)
	clear(c.stepS)
	c.stepQ, c.stepS = c.stepQ[:0], c.stepS[:0]
}

// CheckInvariants checks every invariant over the whole core and returns
// the broken ones; it walks every queue and sender, so tests and simulations
// call it, not the driver.
func (c *Core) CheckInvariants() error {
	var errs []error
	for _, q := range c.order {
		if err := c.checkQueue(q); err != nil {
			errs = append(errs, err)
		}
		if _, ok := c.headed[q]; headDue(q) && !ok {
			errs = append(errs, fmt.Errorf("queue %s: a new head may move it (%s), but a head would not visit it", q.rec.Name, q.rec.State))
		}
		if _, ok := c.delaying[q]; q.rec.State == store.Delay && !ok {
			errs = append(errs, fmt.Errorf("queue %s: in DELAY, but a tick would not visit it", q.rec.Name))
		}
		for _, f := range q.flights {
			for _, a := range f.rec.Attempts {
				if landable(&a) && c.watch[a.Hash] != q {
					errs = append(errs, fmt.Errorf("queue %s: attempt %d of %s may still land but is not watched", q.rec.Name, a.N, f.rec.UID))
				}
			}
		}
	}
	bound := map[*sender]*queue{}
	for _, q := range c.order {
		if s := q.snd; s != nil {
			if other := bound[s]; other != nil {
				errs = append(errs, fmt.Errorf("sender %s bound to queues %s and %s", s.rec.ID, other.rec.Name, q.rec.Name))
			}
			bound[s] = q
		}
	}
	free := map[*sender]bool{}
	for _, s := range c.free {
		if free[s] {
			errs = append(errs, fmt.Errorf("sender %s is free twice", s.rec.ID))
		}
		free[s] = true
		if s.queue != nil {
			errs = append(errs, fmt.Errorf("sender %s is free and bound to queue %s", s.rec.ID, s.queue.rec.Name))
		}
		if s.reserved {
			errs = append(errs, fmt.Errorf("sender %s is reserved by a pin but in the free list", s.rec.ID))
		}
	}
	idle := 0
	for _, s := range c.senders {
		if err := checkSender(s); err != nil {
			errs = append(errs, err)
		}
		if s.idle {
			idle++
		}
		if s.queue == nil && !free[s] && !s.idle {
			errs = append(errs, fmt.Errorf("sender %s is neither bound nor free", s.rec.ID))
		}
	}
	if idle != c.idle {
		errs = append(errs, fmt.Errorf("%d reserved senders idle, counted %d", idle, c.idle))
	}
	for _, id := range c.cfg.Pins {
		if s := c.senders[id]; s == nil || !s.reserved {
			errs = append(errs, fmt.Errorf("sender %s is named by a pin but not reserved", id))
		}
	}
	// No queue waits in line for a sender it may use that is free: a freed
	// sender goes to the first queue in line that may use it.
	for _, q := range c.line {
		if q.seat != seatInLine {
			continue // stale
		}
		if q.pin != "" && c.senders[q.pin].idle || q.pin == "" && len(c.free) > 0 {
			errs = append(errs, fmt.Errorf("queue %s waits in line while a sender it may use is free", q.rec.Name))
		}
	}
	return errors.Join(errs...)
}

// checkQueue checks one queue's invariants.
func (c *Core) checkQueue(q *queue) error {
	n := q.rec.Name
	if len(q.flights) > q.depth {
		return fmt.Errorf("queue %s: %d transactions in flight, at most %d", n, len(q.flights), q.depth)
	}
	lead := q.lead()
	if q.rec.State != store.Free && (lead == nil || q.rec.TxUID != lead.rec.UID) {
		return fmt.Errorf("queue %s: binding %s without its transaction in flight (names %q)", n, q.rec.State, q.rec.TxUID)
	}
	if q.rec.State == store.Free && lead != nil {
		return fmt.Errorf("queue %s: FREE with %s in flight", n, lead.rec.UID)
	}
	if (q.seat == seatBound) != (q.snd != nil) {
		return fmt.Errorf("queue %s: seat %s with sender %v", n, q.seat, q.snd != nil)
	}
	if q.snd != nil && (q.snd.queue != q || q.rec.Sender != q.snd.rec.ID) {
		return fmt.Errorf("queue %s: its sender %s is not bound back to it", n, q.snd.rec.ID)
	}
	if q.pin != c.cfg.Pins[n] {
		return fmt.Errorf("queue %s: pinned to %q, the configuration says %q", n, q.pin, c.cfg.Pins[n])
	}
	if s := q.snd; s != nil && !q.offPin {
		switch {
		case q.pin != "" && s.rec.ID != q.pin:
			return fmt.Errorf("queue %s: pinned to sender %s but bound to %s", n, q.pin, s.rec.ID)
		case q.pin == "" && s.reserved:
			return fmt.Errorf("queue %s: unpinned but bound to sender %s, reserved by a pin", n, s.rec.ID)
		}
	}
	if q.offPin && q.snd == nil {
		return fmt.Errorf("queue %s: marked bound against its pin without a sender", n)
	}
	if err := c.checkPipeline(q); err != nil {
		return err
	}
	for _, f := range q.flights {
		if f.pending < 0 || (f.wait == waitChecks) != (f.pending > 0) {
			return fmt.Errorf("queue %s: %s waits %s with %d checks outstanding", n, f.rec.UID, f.wait, f.pending)
		}
		if f.rec.State != store.Waiting && f.rec.State != store.Revision && f.rec.State != store.Retry {
			return fmt.Errorf("queue %s: %s in flight in state %s", n, f.rec.UID, f.rec.State)
		}
	}
	return nil
}

// checkSender checks one sender's invariants.
func checkSender(s *sender) error {
	if s.queue != nil && s.queue.snd != s {
		return fmt.Errorf("sender %s names queue %s, which is not bound to it", s.rec.ID, s.queue.rec.Name)
	}
	if (s.queue == nil) != (s.rec.Queue == "") {
		return fmt.Errorf("sender %s: record names queue %q, memory %v", s.rec.ID, s.rec.Queue, s.queue != nil)
	}
	if s.idle && (s.queue != nil || !s.reserved) {
		return fmt.Errorf("sender %s: idle while bound (%v) or not reserved (%v)", s.rec.ID, s.queue != nil, !s.reserved)
	}
	return nil
}

// checkPipeline checks a pipelined queue's followers: they have a sender,
// the queue's, and every attempt of theirs is on it (never two in-flight
// transactions of one queue on different senders); their pipe nonces are
// consecutive, each one above the flight's before it; none but the lead
// waits on checks, and each is WAITING or REVISION.
func (c *Core) checkPipeline(q *queue) error {
	if len(q.flights) < 2 {
		return nil
	}
	n, s := q.rec.Name, q.snd
	if s == nil {
		return fmt.Errorf("queue %s: %d transactions in flight without a sender", n, len(q.flights))
	}
	if la := q.lead().last(); la != nil && la.Sender != s.rec.ID {
		return fmt.Errorf("queue %s: lead %s's last attempt is on sender %s, its followers on %s", n, q.lead().rec.UID, la.Sender, s.rec.ID)
	}
	for i, f := range q.flights[1:] {
		prev := q.flights[i]
		if !f.piped || !prev.piped || f.pipe != prev.pipe+1 {
			return fmt.Errorf("queue %s: %s follows %s at nonce %d (piped %v), not one above %d (piped %v)", n, f.rec.UID, prev.rec.UID, f.pipe, f.piped, prev.pipe, prev.piped)
		}
		for _, a := range f.rec.Attempts {
			if a.Sender != s.rec.ID || a.Nonce != f.pipe {
				return fmt.Errorf("queue %s: follower %s has attempt %d on sender %s at nonce %d; the queue's sender is %s, its nonce %d", n, f.rec.UID, a.N, a.Sender, a.Nonce, s.rec.ID, f.pipe)
			}
		}
		if f.wait == waitChecks || f.wait == waitHead {
			return fmt.Errorf("queue %s: follower %s waits %s", n, f.rec.UID, f.wait)
		}
		if f.rec.State != store.Waiting && f.rec.State != store.Revision {
			return fmt.Errorf("queue %s: follower %s in state %s", n, f.rec.UID, f.rec.State)
		}
	}
	return nil
}
