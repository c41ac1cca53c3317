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
// UnhealthyAfter after the node was first left unanswered, on the
// replica-set-update queue (monitoring's may be a cycle's work behind;
// the updates the job finds run right after it there). That job looks
// at every queue whose held set names the lost node, whatever slice
// monitoring is on, plans them on one round of heads and puts the
// failovers this node signs on chain at once, in batches (update_many),
// not one transaction per queue; the replacements of a lost secondary go
// in one issue-replica-set-update after. A node that answers again before the job runs cancels nothing:
// the job finds it healthy and does nothing. Both jobs snooze while some
// queue cannot be planned yet (a member unanswered but not yet
// replaceable, or the registry mapping's refresh late).
//
// A node found unhealthy is asked by no job but probe-node, which
// monitoring queues at most once per RequestTimeout: a dead member costs
// no job a wait, and a node dropped from every set is probed again; once
// it answers, the sets that shrank grow back (PlanGrow) as monitoring
// meets them.

// updateFanOut is how many job inserts (the syncs after an update batch)
// are in flight at once: the job queue commits those of one turn
// together.
const updateFanOut = 64

// findLost is find-replica-set-updates for a loss: every queue whose held
// set names the lost node, planned on what its other members answer now
// (LossDue says whether the node is still lost since the loss, and which
// nodes a plan replaces without asking them again).
func (n *Node) findLost(ctx context.Context, a sliceArgs) error {
	due, err := n.step(ctx, LossDue(a.Lost, a.Since))
	if err != nil || !due.Proceed {
		return err // it answered since, or was lost again later (that loss has its own job)
	}
	sets, err := n.memberQueues(ctx)
	if err != nil {
		return fmt.Errorf("smm: the queues of lost %s: %w", a.Lost, err)
	}
	sets = slices.DeleteFunc(sets, func(s store.ReplicaSet) bool { return !s.Holds(a.Lost) })
	n.log.Warn("smm: a member is lost: its queues' sets are planned again", "node", a.Lost, "since", a.Since, "queues", len(sets))
	queues := make([]string, len(sets))
	for i, s := range sets {
		queues[i] = s.Queue
	}
	held, unlock := n.lockHeld(ctx, queues)
	defer unlock()
	now := n.clock.Now()
	p, err := n.classify(ctx, n.gatherSkipping(ctx, held, setOf(due.Replaceable)), false)
	if err != nil {
		return err
	}
	// The failovers here and now (a queue without its primary takes no
	// intent), on the heads just gathered; the replacements in a job of
	// their own, after.
	if err := n.apply(ctx, p.Failovers); err != nil {
		return err
	}
	if err := n.insertUpdates(ctx, queuesOf(p.Others), now); err != nil {
		return err
	}
	if p.Unsettled > 0 {
		return jobq.Snooze(n.retryUnsettled()) // planned again: the updated ones need nothing
	}
	_, err = n.step(ctx, LossDone(a.Lost, a.Since))
	return err
}

// setOf is the set of ids.
func setOf(ids []string) map[string]bool {
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out
}

// replaceable returns the nodes unhealthy for UnhealthyAfter or longer (a
// plan replaces them without asking them again), as LossDue answers for a
// loss still under way.
func (n *Node) replaceable() map[string]bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return setOf(n.core.replaceable())
}

// probeArgs: the node a probe-node asks.
type probeArgs struct {
	Node string `json:"node"`
}

// probeNode is probe-node: the node asked for no heads, RequestTimeout at
// most; its answer makes it healthy again.
func (n *Node) probeNode(ctx context.Context, a probeArgs) error {
	asked := n.clock.Now()
	_, _, err := n.headsOf(ctx, a.Node, nil, nil)
	n.markHealthAt(a.Node, err == nil, asked)
	return nil
}

// updateBatch is issue-replica-set-update for several queues: their sets
// planned on one round of heads (the members unhealthy for UnhealthyAfter
// not asked), the updates this node signs put on chain together, the sets
// read back, then the new members synced.
func (n *Node) updateBatch(ctx context.Context, queues []string) error {
	held, unlock := n.lockHeld(ctx, queues)
	defer unlock()
	p, err := n.classify(ctx, n.gatherSkipping(ctx, held, n.replaceable()), false)
	if err != nil {
		return err
	}
	if err := n.apply(ctx, append(p.Failovers, p.Others...)); err != nil {
		return err
	}
	if p.Unsettled > 0 {
		return jobq.Snooze(n.retryUnsettled()) // the rest planned again: the updated ones need nothing
	}
	return nil
}

// lockHeld takes the set-change locks of queues, in order (no two batches
// wait on each other), and reads their held sets; unlock releases them.
func (n *Node) lockHeld(ctx context.Context, queues []string) (held []store.ReplicaSet, unlock func()) {
	queues = slices.Compact(slices.Sorted(slices.Values(queues)))
	locks := make([]*sync.Mutex, 0, len(queues))
	for _, q := range queues {
		l := n.lock(q)
		l.Lock()
		locks = append(locks, l)
		if s, err := n.cfg.Store.ReplicaSet(ctx, q); err == nil {
			held = append(held, s)
		}
	}
	return held, func() {
		for _, l := range locks {
			l.Unlock()
		}
	}
}

// apply puts ups on chain, reads their sets back and syncs their new
// members.
func (n *Node) apply(ctx context.Context, ups []SetUpdate) error {
	if len(ups) == 0 {
		return nil
	}
	n.log.Warn("smm: updating replica sets", "sets", len(ups), "first", ups[0].Old.Queue, "primary", ups[0].Next.Primary, "unhealthy", ups[0].Bad)
	if err := n.writeSets(ctx, ups); err != nil {
		return err
	}
	if err := n.readBack(ctx, ups); err != nil {
		return jobq.Cancel(err)
	}
	return n.syncNewMembers(ctx, ups)
}

// readBack holds the sets of ups as the chain has them now (one read of
// every set when the batch is large); a queue this node became primary of
// is adopted by its manual syncs, or its next intake, if not here.
func (n *Node) readBack(ctx context.Context, ups []SetUpdate) error {
	if len(ups) > readBackEach {
		return n.refreshSets(ctx) // adopted by their manual syncs
	}
	var errs []error
	for _, u := range ups {
		if _, _, err := n.refreshSet(ctx, u.Old.Queue); err != nil && !errors.Is(err, ErrNoMajority) {
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
func (n *Node) syncNewMembers(ctx context.Context, ups []SetUpdate) error {
	var jobs []syncArgs
	for _, u := range ups {
		set, err := n.cfg.Store.ReplicaSet(ctx, u.Old.Queue)
		if err != nil || set.Version != u.Old.Version+1 || !sameSet(set, u.Next) {
			continue // another update came first: its signer syncs
		}
		for _, s := range set.Secondaries {
			if u.Next.Primary != u.Old.Primary || !u.Old.Holds(s) {
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
			_, _, err := n.insert(ctx, KindManualSync, jobq.QueueManualSync, a, "push/"+a.Queue+"/"+a.Secondary, time.Time{})
			if !errors.Is(err, jobq.ErrQueueFull) { // a full queue: find-sync-requests meets the secondary behind
				errs[i] = err
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// sameSet reports whether held names the members of next.
func sameSet(held store.ReplicaSet, next ReplicaSet) bool {
	return held.Primary == next.Primary && slices.Equal(held.Secondaries, next.Secondaries)
}
