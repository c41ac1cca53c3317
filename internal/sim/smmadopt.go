package sim

import (
	"errors"

	"github.com/ordolabs/ordo/internal/replog"
	"github.com/ordolabs/ordo/internal/smm"
)

// A new primary's catch-up and adoption, after internal/smm's adopt.go
// (ensureAdopted, adopt, catchUp) and sets.go (hold): a node that becomes
// a queue's primary (or, after a restart, finds itself one) asks every
// member of its set for its head; an answering member with a higher clock
// gives it the entries after its head (replog.Extend), or, when they fork
// from its log, its whole log (Extend from the empty head). Members that do
// not answer are passed over. Only then is the queue adopted: intake,
// dispatch and the primary's sync jobs (find-sync-requests, a manual
// sync's gap or fork resend, serving a sync's pull) wait for it. The
// adoption is memory: a crash forgets it.

// ensureAdopted adopts q at n unless n has since it became q's primary (or
// restarted). false: the catch-up's pull failed; nothing is adopted and
// the caller does not go on (the driver's intake answers unavailable).
func (w *smmWorld) ensureAdopted(n *smmNode, q string) bool {
	if n.adopted[q] {
		return true
	}
	if !w.catchUp(n, q) {
		return false
	}
	n.adopted[q] = true
	return true
}

// answers is whether node m answers n's request now (one draw of the
// network's drop probability, as monitoring's).
func (w *smmWorld) answers(n, m *smmNode) bool {
	return m == n || m.up && w.reachable(n.id, m.id) && w.rng.Float64() >= w.drop
}

// catchUp is the driver's catchUp: gather the members' heads, then take
// what the most advanced answering member holds past n's head.
func (w *smmWorld) catchUp(n *smmNode, q string) bool {
	set := n.sets[q]
	own := headOf(n.logs[q])
	var best *smmNode
	bestHead := own
	newer := false
	for _, id := range set.Members() {
		m := w.node(id)
		if m == n || !w.answers(n, m) {
			continue // passed over: the plan waits for it, a restart does not
		}
		if m.sets[q].Version > set.Version {
			newer = true
		}
		if h := headOf(m.logs[q]); h.Clock > bestHead.Clock {
			best, bestHead = m, h
		}
	}
	if newer {
		// gather: a member knows a newer set; it is read, this queue is
		// left out, and catchUp returns nil (adopt goes on).
		w.refreshSet(n, q)
		return true
	}
	if best == nil {
		return true
	}
	if !w.answers(n, best) {
		return false // the pull failed: adopt fails, the next try catches up
	}
	log := n.logs[q]
	apply, _, err := replog.Extend(q, own, set.Version, set.Version, best.logs[q][own.Clock:])
	reset := false
	if errors.Is(err, replog.ErrFork) {
		// the member's log forks from n's and is longer: it replaces n's
		apply, _, err = replog.Extend(q, replog.Head{}, set.Version, set.Version, best.logs[q])
		reset = true
	}
	if err != nil {
		w.res.Refused++
		return false
	}
	if reset {
		n.logs[q] = apply
	} else {
		n.logs[q] = append(log, apply...)
	}
	if len(apply) > 0 {
		w.res.CatchUps++
		w.touch(n.id, q)
		w.holdEntries(n.id, apply)
	}
	return true
}

// noteHeld is the driver's hold after a newer set was stored at n: a node
// it makes q's primary (and that was not before) adopts q at once.
func (w *smmWorld) noteHeld(n *smmNode, q string, old smm.ReplicaSet) {
	set := n.sets[q]
	if set.Primary == n.id && old.Primary != n.id {
		n.adopted[q] = false
		w.ensureAdopted(n, q)
	}
}
