package smm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/ordolabs/ordo/internal/jobq"
	"github.com/ordolabs/ordo/internal/store"
)

// Failover from a loss. A node found unhealthy (any request to it
// unanswered: monitoring's, a push's, a sync's) is a loss: the next
// monitor-state queues a find-replica-set-updates for it, due
// UnhealthyAfter after the node was first left unanswered. That job looks
// at every queue whose held set names the lost node, whatever slice
// monitoring is on, and queues the updates this node signs in one
// issue-replica-set-update, which plans them on one round of heads and
// puts them on chain in batches (updateMany), not one transaction per
// queue. A node that answers again before the job runs cancels nothing:
// the job finds it healthy and does nothing.
//
// Monitoring also asks, at most once per RequestTimeout, every registered
// node found unhealthy that its slice did not ask: a node dropped from
// every set is probed again, and once it answers the sets that shrank
// grow back (PlanGrow) as monitoring meets them.

// loss is a node found unhealthy since Since.
type loss struct {
	Node  string
	Since time.Time
}

// updateFanOut is how many job inserts (the syncs after an update batch)
// are in flight at once: the job queue commits those of one turn
// together.
const updateFanOut = 64

// scheduleLosses queues a find-replica-set-updates for each loss noted
// since the last call, due when its node has been unhealthy for
// UnhealthyAfter.
func (n *Node) scheduleLosses(ctx context.Context) error {
	n.mu.Lock()
	losses := n.losses
	n.losses = nil
	n.mu.Unlock()
	for i, l := range losses {
		key := fmt.Sprintf("lost/%s/%d", l.Node, l.Since.UnixNano())
		_, _, err := n.insert(ctx, KindFindReplicaSetUpdates, jobq.QueueMonitoring, sliceArgs{Lost: l.Node, Since: l.Since}, key, l.Since.Add(n.c.UnhealthyAfter))
		if err != nil && !errors.Is(err, jobq.ErrQueueFull) {
			n.mu.Lock()
			n.losses = append(losses[i:], n.losses...) // tried again at the next slice
			n.mu.Unlock()
			return err
		}
	}
	return nil
}

// findLost is find-replica-set-updates for a loss: every queue whose held
// set names the lost node, planned on what its other members answer now.
func (n *Node) findLost(ctx context.Context, a sliceArgs) error {
	if since, _ := n.unhealthySince(a.Lost); !since.Equal(a.Since) {
		return nil // it answered since, or was lost again later (that loss has its own job)
	}
	sets, err := n.memberQueues(ctx)
	if err != nil {
		return err
	}
	sets = slices.DeleteFunc(sets, func(s store.ReplicaSet) bool { return !s.Holds(a.Lost) })
	n.log.Warn("smm: a member is lost: its queues' sets are planned again", "node", a.Lost, "since", a.Since, "queues", len(sets))
	return n.insertFound(ctx, n.gatherSkipping(ctx, sets, n.replaceable()))
}

// replaceable returns the nodes unhealthy for UnhealthyAfter or longer: a
// plan replaces them without asking them again.
func (n *Node) replaceable() map[string]bool {
	now := n.clock.Now()
	n.mu.Lock()
	defer n.mu.Unlock()
	out := map[string]bool{}
	for node, since := range n.health {
		if !since.IsZero() && now.Sub(since) >= n.c.UnhealthyAfter {
			out[node] = true
		}
	}
	return out
}

// probeOthers asks each registered node found unhealthy that monitoring's
// slice (sets) does not name, at most once per RequestTimeout, with an
// empty heads request: a node no set names any more is probed again, so
// that once it is back the sets that shrank can grow back to it.
func (n *Node) probeOthers(ctx context.Context, sets []store.ReplicaSet) {
	asked := n.clock.Now()
	named := map[string]bool{}
	for _, s := range sets {
		for _, m := range s.Members() {
			named[m] = true
		}
	}
	var wg sync.WaitGroup
	for _, id := range n.cfg.Registry.IDs() {
		node := string(id)
		if named[node] || node == n.self {
			continue
		}
		if since, _ := n.unhealthySince(node); since.IsZero() || !n.probeDue(node, asked) {
			continue
		}
		wg.Go(func() {
			_, _, err := n.headsOf(ctx, node, nil, nil)
			n.markHealthAt(node, err == nil, asked)
		})
	}
	wg.Wait()
}

// setUpdate is one planned update of a batch.
type setUpdate struct {
	old, next ReplicaSet
	bad       []string
}

// updateBatch is issue-replica-set-update for several queues: their sets
// planned on one round of heads (the members unhealthy for UnhealthyAfter
// not asked), the updates this node signs put on chain together, the sets
// read back, then the new members synced.
func (n *Node) updateBatch(ctx context.Context, queues []string) error {
	queues = slices.Compact(slices.Sorted(slices.Values(queues)))
	held := make([]store.ReplicaSet, 0, len(queues))
	for _, q := range queues { // in order: no two batches wait on each other
		l := n.lock(q)
		l.Lock()
		defer l.Unlock()
		s, err := n.cfg.Store.ReplicaSet(ctx, q)
		if err != nil {
			continue
		}
		held = append(held, s)
	}
	now := n.clock.Now()
	var ups []setUpdate
	for _, st := range n.gatherSkipping(ctx, held, n.replaceable()) {
		next, bad, err := n.plan(ctx, st, now)
		if err != nil || signer(st.Set, next) != n.self {
			continue
		}
		ups = append(ups, setUpdate{old: st.Set, next: next, bad: bad})
	}
	if len(ups) == 0 {
		return nil
	}
	n.log.Warn("smm: updating replica sets", "sets", len(ups), "first", ups[0].old.Queue, "primary", ups[0].next.Primary, "unhealthy", ups[0].bad)
	if err := n.writeSets(ctx, ups); err != nil {
		return err
	}
	if err := n.readBack(ctx, ups); err != nil {
		return jobq.Cancel(err)
	}
	return n.syncNewMembers(ctx, ups)
}

// readBack holds the sets of ups as the chain has them now (one read of
// every set when the batch is large).
func (n *Node) readBack(ctx context.Context, ups []setUpdate) error {
	if len(ups) > readBackEach {
		return n.refreshSets(ctx)
	}
	var errs []error
	for _, u := range ups {
		if _, _, err := n.refreshSet(ctx, u.old.Queue); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// readBackEach is the largest batch whose sets are read back one by one.
const readBackEach = 50

// syncNewMembers queues the manual syncs of the batch's applied updates:
// every secondary of a queue whose primary moved (a new primary pushes
// them from where they stand), the added secondaries of the others.
func (n *Node) syncNewMembers(ctx context.Context, ups []setUpdate) error {
	var jobs []syncArgs
	for _, u := range ups {
		set, err := n.cfg.Store.ReplicaSet(ctx, u.old.Queue)
		if err != nil || set.Version != u.old.Version+1 || !sameSet(set, u.next) {
			continue // another update came first: its signer syncs
		}
		for _, s := range set.Secondaries {
			if u.next.Primary != u.old.Primary || !u.old.Holds(s) {
				jobs = append(jobs, syncArgs{Queue: set.Queue, Secondary: s})
			}
		}
	}
	sem := make(chan struct{}, updateFanOut)
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	for i, a := range jobs {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			_, _, errs[i] = n.insert(ctx, KindManualSync, jobq.QueueManualSync, a, "push/"+a.Queue+"/"+a.Secondary, time.Time{})
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// sameSet reports whether held names the members of next.
func sameSet(held store.ReplicaSet, next ReplicaSet) bool {
	return held.Primary == next.Primary && slices.Equal(held.Secondaries, next.Secondaries)
}
