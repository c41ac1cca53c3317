package smm

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ordolabs/ordo/internal/jobq"
	"github.com/ordolabs/ordo/internal/replog"
	"github.com/ordolabs/ordo/internal/smm/smmpb"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/transport"
)

// The jobs that fix what monitoring finds: the manual sync (the primary
// pushes a secondary what it lacks, queued by each write), the recurring
// sync (the primary asks a lagging or diverged secondary to pull, then
// polls its clock), and the replica-set update (unhealthy members
// replaced on chain, the new members synced).

// primaryOf returns the held set of queue and whether this node is its
// primary and secondary one of its secondaries.
func (n *Node) primaryOf(ctx context.Context, queue, secondary string) (store.ReplicaSet, bool) {
	set, err := n.cfg.Store.ReplicaSet(ctx, queue)
	if err != nil || set.Primary != n.self {
		return set, false
	}
	for _, s := range set.Secondaries {
		if s == secondary {
			return set, true
		}
	}
	return set, false
}

// manualSync pushes a secondary the entries after the clock it holds.
func (n *Node) manualSync(ctx context.Context, a syncArgs) error {
	set, ok := n.primaryOf(ctx, a.Queue, a.Secondary)
	if !ok {
		return nil // no longer ours to push, or no longer a secondary
	}
	if since, _ := n.unhealthySince(a.Secondary); !since.IsZero() {
		return nil // asked by monitoring's probe only; once back, find-sync-requests syncs it
	}
	if err := n.ensureAdopted(ctx, a.Queue); err != nil {
		return err
	}
	from, known := n.ackedClock(a.Queue, a.Secondary)
	if !known {
		asked := n.clock.Now()
		hs, vs, err := n.headsOf(ctx, a.Secondary, []string{a.Queue}, map[string]uint64{a.Queue: set.Version})
		n.markHealthAt(a.Secondary, err == nil, asked)
		if err != nil {
			return err
		}
		if vs[a.Queue] > set.Version {
			// The secondary holds a newer set: this node may be deposed.
			// Read it from the chain (a deposed primary's dispatch closes)
			// before pushing anything, and leave the sync to the set's
			// primary.
			_, _, rerr := n.refreshSet(ctx, a.Queue)
			return jobq.Cancel(errors.Join(fmt.Errorf("%w: %s holds v%d of %s, this node v%d", ErrStaleSet, a.Secondary, vs[a.Queue], a.Queue, set.Version), rerr))
		}
		from = hs[a.Queue].Clock
	}
	for range 64 {
		es, err := n.cfg.Store.LogAfter(ctx, a.Queue, from, n.c.PushPage)
		if err != nil || len(es) == 0 {
			return err
		}
		asked := n.clock.Now()
		h, err := n.push(ctx, set, a.Secondary, es, false)
		switch CodeOf(err) {
		case "":
		case CodeGap:
			from = h.Clock // the secondary holds less than we thought
			continue
		case CodeFork:
			_, _, ierr := n.insert(ctx, KindRecurringSync, jobq.QueueRecurringSync, a, "sync/"+a.Queue+"/"+a.Secondary, time.Time{})
			return ierr
		case CodeStale, CodeNotPrimary:
			_, _, rerr := n.refreshSet(ctx, a.Queue)
			return jobq.Cancel(errors.Join(err, rerr))
		default:
			return err
		}
		if err != nil {
			n.markHealthAt(a.Secondary, false, asked) // unanswered since it was asked
			return err
		}
		n.markHealthAt(a.Secondary, true, asked)
		n.m.Entries.Add(float64(len(es)))
		n.noteAcked(a.Queue, a.Secondary, h.Clock)
		n.observeLag(a.Queue, a.Secondary, es)
		from = h.Clock
	}
	return nil
}

// observeLag records the sync lag of the intents among es.
func (n *Node) observeLag(queue, secondary string, es []replog.Entry) {
	now := n.clock.Now()
	for _, e := range es {
		c, err := store.DecodeChange(e.Payload)
		if err != nil || c.Op != store.ChangeIntent {
			continue
		}
		lag := now.Sub(c.At)
		n.m.SyncLag.Observe(lag.Seconds())
		if n.onSynced != nil {
			n.onSynced(queue, secondary, lag)
		}
	}
}

// ackedClock is the clock a secondary was last known to hold.
func (n *Node) ackedClock(queue, secondary string) (uint64, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.core.AckedClock(queue, secondary)
}

// push sends entries to a secondary and returns the head it answers
// (also on a refusal, when it tells it).
func (n *Node) push(ctx context.Context, set store.ReplicaSet, secondary string, es []replog.Entry, reset bool) (replog.Head, error) {
	rctx, cancel := context.WithTimeout(ctx, n.c.RequestTimeout)
	defer cancel()
	resp, err := n.rpc.call(rctx, transport.NodeID(secondary), &smmpb.Request{Body: &smmpb.Request_Push{Push: &smmpb.PushRequest{
		Queue: set.Queue, Version: set.Version, Entries: entriesToPB(es), Reset_: reset}}})
	if resp == nil {
		return replog.Head{}, err
	}
	return fromPB(resp.GetHead().GetHead()), err
}

// recurringSync is issue-recurring-sync-request: the secondary asked to
// pull up to the primary's head, then its clock polled every SyncPoll
// until it gets there, for up to SyncTimeout. A failure counts against the
// pair's daily budget and is not retried here: the next monitoring cycle
// finds it again.
func (n *Node) recurringSync(ctx context.Context, a syncArgs) error {
	set, ok := n.primaryOf(ctx, a.Queue, a.Secondary)
	if !ok {
		return nil
	}
	if err := n.ensureAdopted(ctx, a.Queue); err != nil {
		return err
	}
	target, err := n.cfg.Store.LogHead(ctx, a.Queue)
	if err != nil {
		return err
	}
	if err := n.syncTo(ctx, set, a.Secondary, target); err != nil {
		_, _ = n.step(ctx, SyncFailed(a.Queue, a.Secondary))
		n.log.Warn("smm: recurring sync failed", "queue", a.Queue, "secondary", a.Secondary, "target", target.Clock, "err", err)
		return jobq.Cancel(err)
	}
	return nil
}

// syncTo asks a secondary to sync and waits for its clock to reach target.
func (n *Node) syncTo(ctx context.Context, set store.ReplicaSet, secondary string, target replog.Head) error {
	ctx, cancel := n.withTimeout(ctx, n.c.SyncTimeout)
	defer cancel()
	resp, err := n.rpc.call(ctx, transport.NodeID(secondary), &smmpb.Request{Body: &smmpb.Request_Sync{Sync: &smmpb.SyncRequest{Queue: set.Queue, Target: toPB(target)}}})
	// a sync waits on the secondary's pull, up to SyncTimeout: its silence
	// counts from when it ended, not from when it was sent
	n.markHealthAt(secondary, err == nil || CodeOf(err) != "", n.clock.Now())
	if err == nil {
		if h := fromPB(resp.GetHead().GetHead()); h.Clock >= target.Clock {
			n.noteAcked(set.Queue, secondary, h.Clock)
			return nil
		}
	}
	for {
		if err := n.sleep(ctx, n.c.SyncPoll); err != nil {
			return fmt.Errorf("smm: %s did not reach clock %d of %q in %v", secondary, target.Clock, set.Queue, n.c.SyncTimeout)
		}
		hs, _, err := n.headsOf(ctx, secondary, []string{set.Queue}, map[string]uint64{set.Queue: set.Version})
		if err != nil {
			continue
		}
		if h := hs[set.Queue]; h.Clock >= target.Clock {
			n.noteAcked(set.Queue, secondary, h.Clock)
			return nil
		}
	}
}

// replicaSetUpdate is issue-replica-set-update: the members probed again,
// the plan made again on what they answer now, written on chain by this
// node (the signer the plan names), then the new members synced.
func (n *Node) replicaSetUpdate(ctx context.Context, a updateArgs) error {
	queues := a.Queues
	if a.Queue != "" {
		queues = append([]string{a.Queue}, queues...)
	}
	// One job, several queues (a node lost holds many): planned on one
	// round of heads, their updates put on chain together.
	return n.updateBatch(ctx, queues)
}
