package smm

import (
	"maps"
	"slices"
)

// role is what this node is to a queue, as of the latest set it holds.
type role uint8

const (
	// roleNone: no set held names this node.
	roleNone role = iota
	// roleSecondary: a secondary of the set held.
	roleSecondary
	// rolePrimary: the primary of the set held, the queue not adopted yet
	// (its next job or intake adopts it first).
	rolePrimary
	// roleAdopted: the primary, the queue adopted since it became so (its
	// records made from its log; intake and syncs go on).
	roleAdopted
	// roleDeposed: was the primary; a newer set names another. Its
	// dispatch is closed until it is adopted again.
	roleDeposed
)

// queue is the core's record of one queue this node holds a set of.
type queue struct {
	role    role
	version uint64
	// set is the set this node holds (the store's: stepped in before the
	// driver holds it).
	set ReplicaSet
	// acked is the clock each secondary was last known to hold.
	acked map[string]uint64
}

func (c *Core) queue(name string) *queue {
	q := c.queues[name]
	if q == nil {
		q = &queue{acked: map[string]uint64{}}
		c.queues[name] = q
	}
	return q
}

// onSetHeld: the driver is about to hold Set for its queue, over Old (the
// set it held, zero when none). A deposed primary's queue is closed in its
// sequencer first (EffectGate), before the set is held, so that no
// dispatch starts after this node knows; a promoted one is not adopted
// yet (Reply.Promoted).
func (c *Core) onSetHeld(in Input) {
	old, set := in.Old, in.Set
	q := c.queue(set.Queue)
	q.version, q.set = set.Version, set
	switch {
	case set.Primary == c.cfg.Self && old.Primary != c.cfg.Self:
		q.becomePrimary()
		c.ready.Reply.Promoted = true
	case set.Primary == c.cfg.Self:
		// still the primary: adopted or not, as it was
	case old.Primary == c.cfg.Self:
		q.becomeDeposed()
		c.ready.Effects = append(c.ready.Effects, Effect{Kind: EffectGate, Queue: set.Queue, Closed: true})
	case set.Holds(c.cfg.Self):
		q.becomeSecondary()
	default:
		q.becomeNone()
	}
}

// onAdopted: the queue this node is primary of is adopted; its dispatch
// opens (closed if it was deposed before).
func (c *Core) onAdopted(name string) {
	q := c.queue(name)
	if q.role == roleDeposed || q.role == roleAdopted {
		return // deposed while it was adopted, or adopted already
	}
	q.becomeAdopted()
	c.ready.Effects = append(c.ready.Effects, Effect{Kind: EffectGate, Queue: name, Closed: false})
}

// onAcked: Secondary holds Queue's log up to Clock (an intake waiting for
// its acknowledgements looks again: EffectAcked), for a queue this node is
// or was the primary of.
func (c *Core) onAcked(in Input) {
	q := c.queues[in.Queue]
	if q == nil || q.role == roleNone || q.role == roleSecondary || in.Secondary == c.cfg.Self {
		return // not a queue this node is (or was) the primary of
	}
	q.acked[in.Secondary] = in.Clock
	c.ready.Effects = append(c.ready.Effects, Effect{Kind: EffectAcked, Queue: in.Queue})
}

func (q *queue) becomePrimary()   { q.role = rolePrimary }
func (q *queue) becomeAdopted()   { q.role = roleAdopted }
func (q *queue) becomeDeposed()   { q.role, q.acked = roleDeposed, map[string]uint64{} }
func (q *queue) becomeSecondary() { q.role, q.acked = roleSecondary, map[string]uint64{} }
func (q *queue) becomeNone()      { q.role, q.acked = roleNone, map[string]uint64{} }

// Adopted reports whether queue was adopted since this node became its
// primary.
func (c *Core) Adopted(name string) bool {
	q := c.queues[name]
	return q != nil && q.role == roleAdopted
}

// AckedClock is the clock a secondary was last known to hold of queue.
func (c *Core) AckedClock(name, secondary string) (uint64, bool) {
	q := c.queues[name]
	if q == nil {
		return 0, false
	}
	clk, ok := q.acked[secondary]
	return clk, ok
}

// HeldBy counts the secondaries (of those named) known to hold queue's
// log up to clock.
func (c *Core) HeldBy(name string, secondaries []string, clock uint64) int {
	n := 0
	for _, s := range secondaries {
		if clk, ok := c.AckedClock(name, s); ok && clk >= clock {
			n++
		}
	}
	return n
}

// queueInvariants: a queue acknowledged by secondaries is one this node
// is (or was, deposed) the primary of; this node never acknowledges to
// itself.
func (c *Core) queueInvariants(bad func(string, ...any)) {
	for _, name := range slices.Sorted(maps.Keys(c.queues)) {
		q := c.queues[name]
		if _, ok := q.acked[c.cfg.Self]; ok {
			bad("queue %s: this node acknowledged to itself", name)
		}
		if len(q.acked) > 0 && (q.role == roleSecondary || q.role == roleNone) {
			bad("queue %s: acknowledgements kept as %v", name, q.role)
		}
	}
}
