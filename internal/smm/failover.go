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
		n.mu.Lock()
		n.losing[l.Node] = l.Since
		n.mu.Unlock()
		key := fmt.Sprintf("lost/%s/%d", l.Node, l.Since.UnixNano())
		_, _, err := n.insert(ctx, KindFindReplicaSetUpdates, jobq.QueueReplicaSetUpdate, sliceArgs{Lost: l.Node, Since: l.Since}, key, l.Since.Add(n.c.UnhealthyAfter))
		if err != nil && !errors.Is(err, jobq.ErrQueueFull) {
			n.mu.Lock()
			n.losses = append(losses[i:], n.losses...) // tried again at the next slice
			n.mu.Unlock()
			return fmt.Errorf("smm: queue the loss of %s: %w", l.Node, err)
		}
	}
	return nil
}

// findLost is find-replica-set-updates for a loss: every queue whose held
// set names the lost node, planned on what its other members answer now.
func (n *Node) findLost(ctx context.Context, a sliceArgs) error {
	if since, _ := n.unhealthySince(a.Lost); !since.Equal(a.Since) {
		n.mu.Lock()
		if n.losing[a.Lost].Equal(a.Since) {
			delete(n.losing, a.Lost)
		}
		n.mu.Unlock()
		return nil // it answered since, or was lost again later (that loss has its own job)
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
	p := n.classify(ctx, n.gatherSkipping(ctx, held, n.replaceable()), now, false)
	// The failovers here and now (a queue without its primary takes no
	// intent), on the heads just gathered; the replacements in a job of
	// their own, after.
	if err := n.apply(ctx, p.failovers); err != nil {
		return err
	}
	if err := n.insertUpdates(ctx, queuesOf(p.others), now); err != nil {
		return err
	}
	if p.unsettled > 0 {
		return jobq.Snooze(n.retryUnsettled()) // planned again: the updated ones need nothing
	}
	n.mu.Lock()
	delete(n.losing, a.Lost)
	n.mu.Unlock()
	return nil
}

// losingOnly reports whether every member of bad is a node whose loss's
// job has not yet queued its updates, and is not late (RequestTimeout past
// its due time): that job plans the queue with all the lost node's
// others; a slice does, once it is late.
func (n *Node) losingOnly(bad []string) bool {
	now := n.clock.Now()
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, b := range bad {
		since, ok := n.losing[b]
		if !ok || !now.Before(since.Add(n.c.UnhealthyAfter+n.c.RequestTimeout)) {
			return false
		}
	}
	return len(bad) > 0
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

// queueProbes queues a probe-node job (on the manual-sync queue: its
// jobs are short, and monitoring's queue runs one job at a time) for each
// registered node found unhealthy, at most once per RequestTimeout: a
// probe is the only request a node found unhealthy gets, so that a dead
// member costs no job a wait, and a node no set names any more is seen
// back (the sets that shrank then grow back to it).
func (n *Node) queueProbes(ctx context.Context) error {
	now := n.clock.Now()
	for _, id := range n.cfg.Registry.IDs() {
		node := string(id)
		if node == n.self || !n.probeDue(node, now) {
			continue
		}
		_, _, err := n.insert(ctx, KindProbeNode, jobq.QueueManualSync, probeArgs{Node: node}, "probe/"+node, time.Time{})
		if err != nil && !errors.Is(err, jobq.ErrQueueFull) {
			return err
		}
	}
	return nil
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
	held, unlock := n.lockHeld(ctx, queues)
	defer unlock()
	p := n.classify(ctx, n.gatherSkipping(ctx, held, n.replaceable()), n.clock.Now(), false)
	if err := n.apply(ctx, append(p.failovers, p.others...)); err != nil {
		return err
	}
	if p.unsettled > 0 {
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
func (n *Node) apply(ctx context.Context, ups []setUpdate) error {
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
// every set when the batch is large); a queue this node became primary of
// is adopted by its manual syncs, or its next intake, if not here.
func (n *Node) readBack(ctx context.Context, ups []setUpdate) error {
	if len(ups) > readBackEach {
		return n.refreshSets(ctx) // adopted by their manual syncs
	}
	var errs []error
	for _, u := range ups {
		if _, _, err := n.refreshSet(ctx, u.old.Queue); err != nil && !errors.Is(err, ErrNoMajority) {
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
