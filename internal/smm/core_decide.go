package smm

import (
	"cmp"
	"errors"
	"slices"
	"time"

	"github.com/ordolabs/ordo/internal/replog"
)

// ReplicaSet is a queue's replica set as recorded on chain.
type ReplicaSet struct {
	Queue       string
	Primary     string
	Secondaries []string
	Version     uint64
}

// Member is what monitor-state gathered of one member of a queue's set:
// its head in the queue's log (Reached false when it did not answer) and
// since when it is unhealthy (zero: healthy).
type Member struct {
	Node    string
	Reached bool
	Head    replog.Head
	// Version is the replica-set version the member holds for the queue
	// (after reading the chain when the asker held a newer one).
	Version        uint64
	UnhealthySince time.Time
}

// Healthy reports whether the member answered and is not unhealthy.
func (m Member) Healthy() bool { return m.Reached && m.UnhealthySince.IsZero() }

// QueueState is one queue's replica set and its members' state, by node.
type QueueState struct {
	Set     ReplicaSet
	Members map[string]Member
}

// SyncReason says why a secondary needs a sync.
type SyncReason string

// Sync reasons.
const (
	// SyncBehind: the secondary's clock is below the primary's.
	SyncBehind SyncReason = "behind"
	// SyncDiverged: the secondary is at the primary's clock with another
	// hash (or ahead of it): its log is not the primary's.
	SyncDiverged SyncReason = "diverged"
)

// SyncRequest asks a secondary to catch up with its primary's head.
type SyncRequest struct {
	Queue     string
	Secondary string
	Target    replog.Head
	Reason    SyncReason
}

// Budget says whether a secondary may be asked to sync a queue again (the
// seed's deployment: at most 20 failed syncs per secondary per queue per
// day).
type Budget func(queue, secondary string) bool

// FindSyncRequests is find-sync-requests for one queue: a sync for each
// reached secondary whose head differs from the reached primary's, in the
// set's order, within the budget (nil: no limit).
func FindSyncRequests(q QueueState, budget Budget) []SyncRequest {
	p, ok := q.Members[q.Set.Primary]
	if !ok || !p.Reached {
		return nil // no primary to sync from: find-replica-set-updates' case
	}
	var out []SyncRequest
	for _, s := range q.Set.Secondaries {
		m, ok := q.Members[s]
		if !ok || !m.Reached || m.Head == p.Head {
			continue
		}
		reason := SyncDiverged
		if m.Head.Clock < p.Head.Clock {
			reason = SyncBehind
		}
		if budget != nil && !budget(q.Set.Queue, s) {
			continue
		}
		out = append(out, SyncRequest{Queue: q.Set.Queue, Secondary: s, Target: p.Head, Reason: reason})
	}
	return out
}

// FindReplicaSetUpdates is find-replica-set-updates for one queue: the
// members unhealthy (or not reached) for at least after, primary first,
// then the secondaries in the set's order. A member never reached counts
// from its UnhealthySince.
func FindReplicaSetUpdates(q QueueState, now time.Time, after time.Duration) []string {
	var out []string
	for _, n := range append([]string{q.Set.Primary}, q.Set.Secondaries...) {
		m := q.Members[n]
		if !m.UnhealthySince.IsZero() && now.Sub(m.UnhealthySince) >= after {
			out = append(out, n)
		}
	}
	return out
}

// Members returns the primary, then the secondaries.
func (s ReplicaSet) Members() []string { return append([]string{s.Primary}, s.Secondaries...) }

// Holds reports whether node is a member of the set.
func (s ReplicaSet) Holds(node string) bool {
	return s.Primary == node || slices.Contains(s.Secondaries, node)
}

// Candidate is a node that may join a replica set: healthy now, with its
// load (queues it holds).
type Candidate struct {
	Node string
	Load int
}

// Errors PlanReplicaSetUpdate answers.
var (
	// ErrMappingStale: the registry mapping could not be fetched lately:
	// replica-set changes are off until it can.
	ErrMappingStale = errors.New("smm: the node registry mapping is stale: no replica-set change")
	// ErrNoHealthyReplica: the primary is to be replaced and no healthy
	// secondary holds the queue.
	ErrNoHealthyReplica = errors.New("smm: no healthy secondary to promote")
	// ErrUnsettled: a member is unanswered but not for long enough to be
	// replaced: no plan until it answers or is replaced too.
	ErrUnsettled = errors.New("smm: a member is unanswered, not yet for long enough: waiting")
	// ErrNoQuorum: fewer than a majority of the set's members answer: the
	// planner may be the one cut off, so it replaces no one.
	ErrNoQuorum = errors.New("smm: fewer than a majority of the set answer: no replacement")
	// ErrNothingToReplace: every member named is healthy or not a member.
	ErrNothingToReplace = errors.New("smm: nothing to replace")
)

// PlanReplicaSetUpdate is issue-replica-set-update's choice: the set that
// replaces q's unhealthy members (as FindReplicaSetUpdates named them) and
// the members to sync afterwards (the new ones). It plans nothing while a
// member is unanswered but not yet replaceable (ErrUnsettled: it may hold
// entries the others lack, acknowledged by the primary) or when fewer
// than a majority of the set's members answer (ErrNoQuorum: the planner
// may be the one partitioned away, and the primary alive on the other
// side). An unhealthy primary is replaced by the most up-to-date healthy
// secondary (replog.Head.Newer: its last entry's version, then its
// clock; ties: lowest node id); each slot left is filled from candidates outside the set, least
// loaded first (ties: lowest node id). The set keeps its size when there
// are candidates enough, else it shrinks by the slots left unfilled (an
// unhealthy member holds nothing up once it is out of the set: a write
// waiting for a secondary's ack waits for a live one); its Version is the
// one it replaces (the update names it).
func PlanReplicaSetUpdate(q QueueState, unhealthy []string, candidates []Candidate, mappingFresh bool) (ReplicaSet, []string, error) {
	if !mappingFresh {
		return ReplicaSet{}, nil, ErrMappingStale
	}
	drop := map[string]bool{}
	for _, n := range unhealthy {
		if (n == q.Set.Primary || slices.Contains(q.Set.Secondaries, n)) && !q.Members[n].Healthy() {
			drop[n] = true // a member healthy again by now stays
		}
	}
	if len(drop) == 0 {
		return ReplicaSet{}, nil, ErrNothingToReplace
	}
	members := q.Set.Members()
	healthy := 0
	for _, m := range members {
		switch {
		case q.Members[m].Healthy():
			healthy++
		case !drop[m]:
			// Unanswered, but not for long enough to be replaced: it may
			// hold what the others lack. Wait for it to answer or to be
			// replaced with the others.
			return ReplicaSet{}, nil, ErrUnsettled
		}
	}
	if healthy < len(members)/2+1 {
		// A planner that reaches only a minority of the set may be the
		// one cut off: replacing the others could depose a primary that
		// still serves, and lose what it acknowledged since.
		return ReplicaSet{}, nil, ErrNoQuorum
	}
	next := ReplicaSet{Queue: q.Set.Queue, Primary: q.Set.Primary, Version: q.Set.Version}
	var kept []string
	for _, s := range q.Set.Secondaries {
		if !drop[s] {
			kept = append(kept, s)
		}
	}
	if drop[q.Set.Primary] {
		best := ""
		var head replog.Head
		for _, s := range kept {
			m := q.Members[s]
			if !m.Healthy() {
				continue
			}
			if best == "" || m.Head.Newer(head) || (!head.Newer(m.Head) && s < best) {
				best, head = s, m.Head
			}
		}
		if best == "" {
			return ReplicaSet{}, nil, ErrNoHealthyReplica
		}
		next.Primary = best
		kept = slices.DeleteFunc(kept, func(s string) bool { return s == best })
	}
	in := map[string]bool{next.Primary: true}
	for _, s := range kept {
		in[s] = true
	}
	for n := range drop {
		in[n] = true // never re-admit a member just dropped
	}
	pool := slices.Clone(candidates)
	slices.SortFunc(pool, func(a, b Candidate) int { return cmp.Or(cmp.Compare(a.Load, b.Load), cmp.Compare(a.Node, b.Node)) })
	var added []string
	for _, c := range pool {
		if len(kept)+len(added) == len(q.Set.Secondaries) {
			break
		}
		if !in[c.Node] {
			in[c.Node] = true
			added = append(added, c.Node)
		}
	}
	next.Secondaries = append(kept, added...)
	return next, added, nil
}

// ErrNoCandidate is a set below its size with no healthy node outside it.
var ErrNoCandidate = errors.New("smm: no healthy node outside the set to add")

// PlanGrow is issue-replica-set-update for a set below its size (it
// shrank when no node could fill a slot): the set with candidates
// outside it added, least loaded first (ties: lowest node id), up to want
// secondaries, and the members added. ErrNothingToReplace when the set
// has want secondaries already, ErrNoCandidate when no node can be added.
func PlanGrow(q QueueState, want int, candidates []Candidate, mappingFresh bool) (ReplicaSet, []string, error) {
	if !mappingFresh {
		return ReplicaSet{}, nil, ErrMappingStale
	}
	if len(q.Set.Secondaries) >= want {
		return ReplicaSet{}, nil, ErrNothingToReplace
	}
	pool := slices.Clone(candidates)
	slices.SortFunc(pool, func(a, b Candidate) int { return cmp.Or(cmp.Compare(a.Load, b.Load), cmp.Compare(a.Node, b.Node)) })
	next := ReplicaSet{Queue: q.Set.Queue, Primary: q.Set.Primary, Secondaries: slices.Clone(q.Set.Secondaries), Version: q.Set.Version}
	var added []string
	for _, c := range pool {
		if len(next.Secondaries) == want {
			break
		}
		if !next.Holds(c.Node) {
			next.Secondaries = append(next.Secondaries, c.Node)
			added = append(added, c.Node)
		}
	}
	if len(added) == 0 {
		return ReplicaSet{}, nil, ErrNoCandidate
	}
	return next, added, nil
}

// Quorum is how many of a set's members (the new primary counted) must
// answer a new primary's catch-up, fenced, before it takes the queue on
// (adopt.go's quorum says why): all but ackAfter-1 when ackAfter > 0,
// never below a majority; with ackAfter 0 a majority, or every member when
// the new primary's own log is empty.
func Quorum(members, ackAfter int, emptyLog bool) int {
	majority := members/2 + 1
	switch {
	case ackAfter > 0:
		return min(members, max(majority, members-ackAfter+1))
	case emptyLog:
		return members
	}
	return majority
}
