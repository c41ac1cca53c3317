package sim

import (
	"errors"

	"github.com/ordolabs/ordo/internal/replog"
	"github.com/ordolabs/ordo/internal/smm"
)

// A new primary's catch-up and adoption, after internal/smm's adopt.go
// (ensureAdopted, adopt, catchUp, quorum, recatch), sets.go (hold) and
// jobs.go (findSyncRequests, aheadOfPrimary), as of 281eb9f: a node that
// becomes a queue's primary (or, after a restart, finds itself one) asks
// every member of its set for its head, and goes on only when its quorum
// answered (itself counted; ErrNoMajority otherwise: nothing adopted,
// intake answers unavailable, the sync jobs skip the queue, the next
// intake, sync job or monitoring tick tries again): a majority of the set,
// and, when its own log is empty and AckAfter k > 0, 1 + len(secondaries)
// - k + 1 members (all but k-1 of its secondaries: one of them holds each
// acknowledged intent). A member that knows a newer set is ErrNoMajority
// too (the newer set is read). The most advanced answering member gives
// it the entries after its head (replog.Extend), or, when they fork from
// its log, its whole log (Extend from the empty head): the reset is
// allowed on the first adoption only. Only then is the queue adopted:
// intake, dispatch and the primary's sync jobs (find-sync-requests, a
// manual sync's gap or fork resend, serving a sync's pull) wait for it.
// The adoption is memory: a crash forgets it. A primary whose monitoring
// shows a reached secondary past its own head catches up again, appending
// only, and dispatches what that brought in log order (the model's records
// are its log); it syncs no one of that queue this tick, unless that
// member's log forks from its own (errForked): then find-sync-requests
// runs as usual and the diverged secondary is synced (reset).

// The ways a catch-up fails (the driver's errors, as the model needs
// them): only errSMMForked lets find-sync-requests go on.
var (
	errSMMNoMajority = errors.New("sim smm: the catch-up's quorum did not answer")
	errSMMPull       = errors.New("sim smm: the catch-up's pull failed")
	errSMMForked     = errors.New("sim smm: the member ahead forks from the primary's log")
	errSMMRefused    = errors.New("sim smm: the catch-up's entries were refused")
)

// ensureAdopted adopts q at n unless n has since it became q's primary (or
// restarted). false: no quorum answered, or the catch-up's pull failed;
// nothing is adopted and the caller does not go on (the driver's intake
// answers unavailable).
func (w *smmWorld) ensureAdopted(n *smmNode, q string) bool {
	if n.adopted[q] {
		return true
	}
	pulled, err := w.catchUp(n, q, true)
	if err != nil {
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

// fence is the driver's: a member asked under a newer version than the
// one it holds reads the chain before it answers (so that it refuses the
// deposed primary's entries from then on).
func (w *smmWorld) fence(m *smmNode, q string, asking uint64) {
	if asking > m.sets[q].Version && w.cfg.bug != smmBugNoFence {
		w.refreshSet(m, q)
	}
}

// quorum is the driver's (smm.Quorum): how many members (n counted) must
// answer n's catch-up of set, fenced: all but k-1 with AckAfter k > 0
// (never below a majority); with AckAfter 0 a majority, every member when
// n's log is empty (a disk lost, or a log never held).
func (w *smmWorld) quorum(set smm.ReplicaSet, own replog.Head) int {
	return smm.Quorum(len(set.Members()), w.cfg.AckAfter, own.Clock == 0)
}

// catchUp is the driver's catchUp: gather the members' heads; with its
// quorum answering (n counted), take what the most advanced answering
// member holds past n's head (its whole log on a fork when mayReset).
// pulled: n's log changed; err: errSMMNoMajority, errSMMPull, errSMMForked
// (a fork without mayReset) or errSMMRefused.
func (w *smmWorld) catchUp(n *smmNode, q string, mayReset bool) (pulled bool, err error) {
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
		w.fence(m, q, set.Version)
		if m.sets[q].Version >= set.Version || w.cfg.bug == smmBugNoFence {
			answered++ // fenced: it takes nothing more from a deposed primary
		}
		if m.sets[q].Version > set.Version {
			newer = true
		}
		if h := headOf(m.logs[q]); h.Newer(bestHead) {
			best, bestHead = m, h
		}
	}
	if newer {
		// gather: a member knows a newer set; it is read, this queue is
		// left out (ErrNoMajority: the next try asks again).
		w.refreshSet(n, q)
		w.res.NoMajority++
		return false, errSMMNoMajority
	}
	if answered < w.quorum(set, own) {
		w.res.NoMajority++
		return false, errSMMNoMajority
	}
	if best == nil {
		return false, nil
	}
	if !w.answers(n, best) {
		return false, errSMMPull // adopt fails, the next try catches up
	}
	log := n.logs[q]
	var apply []replog.Entry
	xerr := replog.ErrFork // more up to date without more entries: another history
	if bestHead.Clock > own.Clock {
		apply, _, xerr = replog.Extend(q, own, set.Version, set.Version, best.logs[q][own.Clock:])
	}
	reset := false
	if errors.Is(xerr, replog.ErrFork) {
		if !mayReset {
			// its log forks from n's after n took intents: a diverged
			// secondary, for a sync to reset
			return false, errSMMForked
		}
		// the member's log forks from n's and is more up to date (a later
		// last version, or longer at the same): it replaces n's
		apply, _, xerr = replog.Extend(q, replog.Head{}, set.Version, set.Version, best.logs[q])
		reset = true
	}
	if xerr != nil {
		w.res.Refused++
		return false, errSMMRefused
	}
	if reset {
		n.logs[q] = apply
	} else {
		n.logs[q] = append(log, apply...)
	}
	if len(apply) == 0 && !reset {
		return false, nil
	}
	w.touch(n.id, q)
	w.holdEntries(n.id, apply)
	return true, nil
}

// aheadOfPrimary is the driver's: a reached secondary of qs (what
// monitoring gathered) has a clock past its reached primary's.
func aheadOfPrimary(qs smm.QueueState) bool {
	p := qs.Members[qs.Set.Primary]
	for _, s := range qs.Set.Secondaries {
		if m := qs.Members[s]; m.Reached && p.Reached && m.Head.Newer(p.Head) {
			return true
		}
	}
	return false
}

// recatch is the driver's recatch: a primary that saw a secondary ahead of
// it catches up again, appending only; what that brought is adopted
// (dispatched in log order after the intents already open). forked: the
// member ahead forks from n's log (errForked): the caller syncs the queue
// as usual; otherwise it syncs no one of it this tick.
func (w *smmWorld) recatch(n *smmNode, q string) (forked bool) {
	pulled, err := w.catchUp(n, q, false)
	if errors.Is(err, errSMMForked) {
		w.res.Forked++
		return true
	}
	if pulled {
		w.res.Recatches++
	}
	return false
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
