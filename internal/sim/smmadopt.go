package sim

import (
	"errors"

	"github.com/ordolabs/ordo/internal/replog"
	"github.com/ordolabs/ordo/internal/smm"
)

// A new primary's catch-up and adoption, after internal/smm's adopt.go
// (ensureAdopted, adopt, catchUp, recatch), sets.go (hold) and jobs.go
// (findSyncRequests, aheadOfPrimary), as of 89800d4: a node that becomes a
// queue's primary (or, after a restart, finds itself one) asks every
// member of its set for its head, and goes on only when a majority of the
// set answered (itself counted; ErrNoMajority otherwise: nothing adopted,
// intake answers unavailable, the sync jobs skip the queue, the next
// intake, sync job or monitoring tick tries again). A member that knows a
// newer set is ErrNoMajority too (the newer set is read). The most
// advanced answering member gives it the entries after its head
// (replog.Extend), or, when they fork from its log, its whole log (Extend
// from the empty head): the reset is allowed on the first adoption only.
// Only then is the queue adopted: intake, dispatch and the primary's sync
// jobs (find-sync-requests, a manual sync's gap or fork resend, serving a
// sync's pull) wait for it. The adoption is memory: a crash forgets it. A
// primary whose monitoring shows a reached secondary past its own head
// syncs no one of that queue this tick: it catches up again, appending
// only (a fork is left as it is), and dispatches what that brought in log
// order (the model's records are its log).

// ensureAdopted adopts q at n unless n has since it became q's primary (or
// restarted). false: no majority answered, or the catch-up's pull failed;
// nothing is adopted and the caller does not go on (the driver's intake
// answers unavailable).
func (w *smmWorld) ensureAdopted(n *smmNode, q string) bool {
	if n.adopted[q] {
		return true
	}
	pulled, ok := w.catchUp(n, q, true)
	if !ok {
		return false
	}
	if pulled {
		w.res.CatchUps++
	}
	n.adopted[q] = true
	return true
}

// answers is whether node m answers n's request now (one draw of the
// network's drop probability, as monitoring's).
func (w *smmWorld) answers(n, m *smmNode) bool {
	return m == n || m.up && w.reachable(n.id, m.id) && w.rng.Float64() >= w.drop
}

// catchUp is the driver's catchUp: gather the members' heads; with a
// majority of the set answering (n counted), take what the most advanced
// answering member holds past n's head (its whole log on a fork when
// mayReset). pulled: n's log changed; ok: no error (ErrNoMajority, a
// failed pull, a fork without mayReset are errors).
func (w *smmWorld) catchUp(n *smmNode, q string, mayReset bool) (pulled, ok bool) {
	set := n.sets[q]
	own := headOf(n.logs[q])
	var best *smmNode
	bestHead := own
	newer := false
	answered := 1
	members := set.Members()
	for _, id := range members {
		m := w.node(id)
		if m == n || !w.answers(n, m) {
			continue
		}
		answered++
		if m.sets[q].Version > set.Version {
			newer = true
		}
		if h := headOf(m.logs[q]); h.Clock > bestHead.Clock {
			best, bestHead = m, h
		}
	}
	if newer {
		// gather: a member knows a newer set; it is read, this queue is
		// left out (ErrNoMajority: the next try asks again).
		w.refreshSet(n, q)
		w.res.NoMajority++
		return false, false
	}
	if answered < len(members)/2+1 {
		w.res.NoMajority++
		return false, false
	}
	if best == nil {
		return false, true
	}
	if !w.answers(n, best) {
		return false, false // the pull failed: adopt fails, the next try catches up
	}
	log := n.logs[q]
	apply, _, err := replog.Extend(q, own, set.Version, set.Version, best.logs[q][own.Clock:])
	reset := false
	if errors.Is(err, replog.ErrFork) && mayReset {
		// the member's log forks from n's and is longer: it replaces n's
		apply, _, err = replog.Extend(q, replog.Head{}, set.Version, set.Version, best.logs[q])
		reset = true
	}
	if err != nil {
		w.res.Refused++
		return false, false
	}
	if reset {
		n.logs[q] = apply
	} else {
		n.logs[q] = append(log, apply...)
	}
	if len(apply) == 0 && !reset {
		return false, true
	}
	w.touch(n.id, q)
	w.holdEntries(n.id, apply)
	return true, true
}

// aheadOfPrimary is the driver's: a reached secondary of qs (what
// monitoring gathered) has a clock past its reached primary's.
func aheadOfPrimary(qs smm.QueueState) bool {
	p := qs.Members[qs.Set.Primary]
	for _, s := range qs.Set.Secondaries {
		if m := qs.Members[s]; m.Reached && p.Reached && m.Head.Clock > p.Head.Clock {
			return true
		}
	}
	return false
}

// recatch is the driver's recatch: a primary that saw a secondary ahead of
// it catches up again, appending only; what that brought is adopted
// (dispatched in log order after the intents already open).
func (w *smmWorld) recatch(n *smmNode, q string) {
	if pulled, _ := w.catchUp(n, q, false); pulled {
		w.res.Recatches++
	}
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
