package sim

import (
	"errors"
	"time"

	"github.com/ordolabs/ordo/internal/replog"
	"github.com/ordolabs/ordo/internal/smm"
)

// The model's messages and monitoring: how a secondary takes entries
// (servePush, the pull of a sync, resetFromPrimary) and what a monitoring
// tick decides with the pure functions.

// Codes of a refused push, as the driver's.
const (
	smmCodeStale      = "stale"
	smmCodeNotPrimary = "not_primary"
	smmCodeNotMember  = "not_member"
	smmCodeGap        = "gap"
	smmCodeFork       = "fork"
	smmCodeCorrupt    = "corrupt"
)

// deliver hands m to its receiver if it is up and on the sender's side of
// any partition.
func (w *smmWorld) deliver(m smmMsg) {
	to := w.node(m.to)
	if !to.up || !w.reachable(m.from, m.to) {
		return
	}
	switch m.kind {
	case "push", "entries":
		h, code := w.take(to, m)
		if m.kind == "push" {
			w.send(smmMsg{from: to.id, to: m.from, kind: "pushed", queue: m.queue, head: h, code: code})
			return
		}
		switch code {
		case "":
			// the secondary's answer to the sync: its head (syncTo polls it)
			w.send(smmMsg{from: to.id, to: m.from, kind: "pushed", queue: m.queue, head: h})
		case smmCodeFork:
			w.pull(to, m.queue, true) // resetFromPrimary
		case smmCodeGap:
			w.pull(to, m.queue, false)
		}
	case "pushed":
		p := w.node(m.to)
		switch m.code {
		case "":
			w.noteAcked(p, m.queue, m.from, m.head.Clock)
		case smmCodeGap:
			if p.sets[m.queue].Primary == p.id && p.adopted[m.queue] {
				log := p.logs[m.queue]
				if m.head.Clock <= uint64(len(log)) {
					w.send(smmMsg{from: p.id, to: m.from, kind: "push", queue: m.queue, version: p.sets[m.queue].Version, entries: log[m.head.Clock:]})
				}
			}
		case smmCodeFork:
			if p.sets[m.queue].Primary == p.id && p.adopted[m.queue] {
				w.send(smmMsg{from: p.id, to: m.from, kind: "push", queue: m.queue, version: p.sets[m.queue].Version,
					entries: p.logs[m.queue], reset: true})
			}
		case smmCodeStale, smmCodeNotPrimary:
			w.refreshSet(p, m.queue)
		}
	case "pull":
		// servePull: any member serves a member of the set it holds (read
		// from the chain once when the asker is not in it) its entries
		// after the asker's head (the whole log for a reset). A pull that
		// reaches the primary is part of a sync the primary's jobs run
		// only once it caught up and adopted the queue.
		w.fence(to, m.queue, m.version)
		set := to.sets[m.queue]
		if !set.Holds(m.from) {
			set = w.refreshSet(to, m.queue)
		}
		if !set.Holds(to.id) || !set.Holds(m.from) || set.Primary == to.id && !w.ensureAdopted(to, m.queue) {
			return
		}
		log := to.logs[m.queue]
		after := m.head.Clock
		if m.reset || after > uint64(len(log)) {
			after = 0
		}
		w.send(smmMsg{from: to.id, to: m.from, kind: "entries", queue: m.queue, version: set.Version, entries: log[after:], reset: m.reset})
	case "hint":
		// serveSync: diverged when at or past the target without holding
		// it at its clock (holds)
		log := to.logs[m.queue]
		t := m.head
		held := t.Clock == 0 || t.Clock <= uint64(len(log)) && log[t.Clock-1].Head() == t
		w.pull(to, m.queue, uint64(len(log)) >= t.Clock && !held)
	}
}

// pull has secondary n ask its primary of q for what follows its head
// (all of its log with reset).
func (w *smmWorld) pull(n *smmNode, q string, reset bool) {
	set := n.sets[q]
	if set.Primary == n.id || !set.Holds(n.id) {
		return
	}
	w.send(smmMsg{from: n.id, to: set.Primary, kind: "pull", queue: q, version: set.Version, head: headOf(n.logs[q]), reset: reset})
}

// checkPrimary is the secondary's check of a sender: the chain is read
// once when the sender claims a newer version or is not its primary.
func (w *smmWorld) checkPrimary(n *smmNode, from, q string, version uint64) string {
	set, ok := n.sets[q]
	if !ok || version > set.Version || set.Primary != from {
		set = w.refreshSet(n, q)
	}
	switch {
	case set.Version > version:
		return smmCodeStale
	case set.Primary != from:
		return smmCodeNotPrimary
	case !set.Holds(n.id):
		return smmCodeNotMember
	}
	return ""
}

// take applies a push or a batch of entries at n: through replog.Extend
// only (a reset from the empty head), and answers its head and the code of
// a refusal.
func (w *smmWorld) take(n *smmNode, m smmMsg) (replog.Head, string) {
	if code := w.checkPrimary(n, m.from, m.queue, m.version); code != "" {
		w.res.Refused++
		return headOf(n.logs[m.queue]), code
	}
	log := n.logs[m.queue]
	if m.reset && len(m.entries) == 0 {
		return headOf(log), "" // pull: the primary has nothing to give
	}
	if w.cfg.bug == smmBugNoExtend && !m.reset {
		n.logs[m.queue] = append(log, m.entries...)
		w.touch(n.id, m.queue)
		w.holdEntries(n.id, m.entries)
		return headOf(n.logs[m.queue]), ""
	}
	known := n.sets[m.queue].Version
	from := replog.Head{}
	if !m.reset {
		from = headOf(log)
	}
	apply, next, err := replog.Extend(m.queue, from, m.version, known, m.entries)
	if err != nil {
		w.res.Refused++
		code := smmCodeCorrupt
		switch {
		case errors.Is(err, replog.ErrGap):
			code = smmCodeGap
		case errors.Is(err, replog.ErrFork):
			code = smmCodeFork
		case errors.Is(err, replog.ErrStaleVersion):
			code = smmCodeStale
		}
		return headOf(log), code
	}
	if m.reset {
		w.res.Resets++
		n.logs[m.queue] = apply
	} else {
		n.logs[m.queue] = append(log, apply...)
	}
	if len(apply) > 0 || m.reset {
		w.touch(n.id, m.queue)
		w.holdEntries(n.id, apply)
	}
	return next, ""
}

// monitor is a monitoring tick at n over the queues it is a member of.
func (w *smmWorld) monitor(n *smmNode) {
	now := w.clk.Now()
	for _, q := range w.qs {
		set := w.refreshSet(n, q)
		if !set.Holds(n.id) {
			continue
		}
		qs := smm.QueueState{Set: cloneSet(set), Members: map[string]smm.Member{}}
		if n.unhealthy[q] == nil {
			n.unhealthy[q] = map[string]time.Time{}
		}
		for _, id := range append([]string{set.Primary}, set.Secondaries...) {
			m := w.node(id)
			reached := m.up && w.reachable(n.id, id) && (m == n || w.rng.Float64() >= w.drop)
			mem := smm.Member{Node: id, Reached: reached}
			if reached {
				w.fence(m, q, set.Version) // the heads request carries n's version
				mem.Head, mem.Version = headOf(m.logs[q]), m.sets[q].Version
				delete(n.unhealthy[q], id)
			} else {
				if _, ok := n.unhealthy[q][id]; !ok {
					n.unhealthy[q][id] = now
				}
				mem.UnhealthySince = n.unhealthy[q][id]
			}
			qs.Members[id] = mem
		}
		// find-sync-requests: only at the primary, once caught up; a
		// primary behind a reached secondary catches up again instead,
		// unless that secondary's log forks from its own (synced: reset)
		if set.Primary == n.id && w.ensureAdopted(n, q) {
			if !aheadOfPrimary(qs) || w.recatch(n, q) {
				w.findSyncRequests(n, qs)
			}
		}
		if n.updating[q] {
			continue
		}
		w.plan(n, qs)
	}
}

// findSyncRequests hints the secondaries of qs that are behind or diverged
// to pull.
func (w *smmWorld) findSyncRequests(n *smmNode, qs smm.QueueState) {
	now, q := w.clk.Now(), qs.Set.Queue
	for _, r := range smm.FindSyncRequests(qs, w.syncBudget) {
		w.budget[r.Queue+"/"+r.Secondary+"/"+now.Truncate(time.Minute).String()]++
		w.send(smmMsg{from: n.id, to: r.Secondary, kind: "hint", queue: q, head: r.Target})
	}
}

// plan is find-replica-set-updates and issue-replica-set-update at n (or
// a grow of a shrunk set): the update goes on chain after a delay.
func (w *smmWorld) plan(n *smmNode, qs smm.QueueState) {
	now, set := w.clk.Now(), qs.Set
	var next smm.ReplicaSet
	var err error
	if un := smm.FindReplicaSetUpdates(qs, now, w.cfg.UnhealthyAfter); len(un) > 0 {
		next, _, err = smm.PlanReplicaSetUpdate(qs, un, w.candidates(n, set), true)
	} else if w.allHealthy(qs) {
		next, _, err = smm.PlanGrow(qs, w.cfg.Replicas-1, w.candidates(n, set), true)
	} else {
		return
	}
	if err != nil {
		return
	}
	n.updating[set.Queue] = true
	w.updates = append(w.updates, smmUpdate{at: now.Add(time.Duration(500+w.rng.IntN(1500)) * time.Millisecond), next: next, by: n.id})
}

func (w *smmWorld) allHealthy(qs smm.QueueState) bool {
	for _, m := range qs.Members {
		if !m.Healthy() {
			return false
		}
	}
	return true
}

// candidates are the nodes outside set that n reaches now, with their load
// (the sets on chain they are a member of).
func (w *smmWorld) candidates(n *smmNode, set smm.ReplicaSet) []smm.Candidate {
	var out []smm.Candidate
	for _, m := range w.nodes {
		if set.Holds(m.id) || !m.up || !w.reachable(n.id, m.id) {
			continue
		}
		load := 0
		for _, q := range w.qs {
			if w.sets[q].Holds(m.id) {
				load++
			}
		}
		out = append(out, smm.Candidate{Node: m.id, Load: load})
	}
	return out
}

// syncBudget: at most 20 syncs per secondary per queue per virtual minute.
func (w *smmWorld) syncBudget(queue, secondary string) bool {
	return w.budget[queue+"/"+secondary+"/"+w.clk.Now().Truncate(time.Minute).String()] < 20
}
