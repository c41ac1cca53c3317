package smm

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ordolabs/ordo/internal/jobq"
	"github.com/ordolabs/ordo/internal/replog"
	"github.com/ordolabs/ordo/internal/smm/smmpb"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/transport"
)

// The jobs of seed 004 on the kernel's job queue, by queue:
//   - monitoring (one at a time): monitor-state over a slice of the queues
//     this node is a member of, which enqueues find-sync-requests and
//     find-replica-set-updates for that slice and monitor-state for the
//     next, cycling forever; and refresh-mapping, the periodic refresh of
//     the node registry (here, not behind the updates that need it fresh);
//   - recurring-sync (5 at once): issue-recurring-sync-request;
//   - manual-sync (15 at once): manual-sync, the write-triggered push;
//   - replica-set-update (one at a time): issue-replica-set-update, one
//     job per slice's updates, put on chain together; and a loss's
//     find-replica-set-updates (failover.go), which puts the failovers it
//     signs on chain itself.
// probe-node (ordo's) runs on the manual-sync queue: the only request a
// node found unhealthy gets from monitoring, planning and adoption.

// Job kinds.
const (
	KindMonitorState          = "monitor-state"
	KindFindSyncRequests      = "find-sync-requests"
	KindFindReplicaSetUpdates = "find-replica-set-updates"
	KindRecurringSync         = "issue-recurring-sync-request"
	KindManualSync            = "manual-sync"
	KindReplicaSetUpdate      = "issue-replica-set-update"
	KindRefreshMapping        = "refresh-mapping"
	// KindProbeNode asks a node found unhealthy whether it is back
	// (ordo's; failover.go).
	KindProbeNode = "probe-node"
)

// monitorArgs: the slice starts at Offset in the sorted queues.
type monitorArgs struct {
	Offset int `json:"offset"`
}

// sliceArgs: the queues a find job looks at: Queues, or, for a loss
// (failover.go), every queue whose held set names Lost, unhealthy since
// Since.
type sliceArgs struct {
	Queues []string  `json:"queues,omitempty"`
	Lost   string    `json:"lost,omitempty"`
	Since  time.Time `json:"since,omitzero"`
}

// syncArgs: one secondary of one queue.
type syncArgs struct {
	Queue     string `json:"queue"`
	Secondary string `json:"secondary"`
}

// updateArgs: the queues whose sets to update (Queue alone, or Queues;
// Unhealthy is what monitoring found, for the record: the job plans again
// on what it finds).
type updateArgs struct {
	Queue     string   `json:"queue,omitempty"`
	Queues    []string `json:"queues,omitempty"`
	Unhealthy []string `json:"unhealthy,omitempty"`
}

func (n *Node) registerJobs() {
	n.register(KindMonitorState, jobFunc(n.monitorState))
	n.register(KindFindSyncRequests, jobFunc(n.findSyncRequests))
	n.register(KindFindReplicaSetUpdates, jobFunc(n.findReplicaSetUpdates))
	n.register(KindRecurringSync, jobFunc(n.recurringSync))
	n.register(KindManualSync, jobFunc(n.manualSync))
	n.register(KindReplicaSetUpdate, jobFunc(n.replicaSetUpdate))
	n.register(KindRefreshMapping, func(ctx context.Context, _ store.Job) error { return n.refreshMapping(ctx) })
	n.register(KindProbeNode, jobFunc(n.probeNode))
}

// register adds a kind's worker, counted and timed per kind.
func (n *Node) register(kind string, f func(ctx context.Context, j store.Job) error) {
	n.jobs.Register(kind, jobq.WorkerFunc(func(ctx context.Context, j store.Job) error {
		start := n.clock.Now()
		err := f(ctx, j)
		n.m.JobSeconds.WithLabelValues(kind).Observe(n.clock.Now().Sub(start).Seconds())
		n.m.Jobs.WithLabelValues(kind, outcomeOf(err)).Inc()
		return err
	}))
}

// outcomeOf names a job run's outcome for the metrics.
func outcomeOf(err error) string {
	switch {
	case err == nil:
		return "done"
	case jobq.IsCancel(err):
		return "cancelled"
	}
	return "failed"
}

// jobFunc decodes a job's JSON arguments for its worker.
func jobFunc[A any](f func(ctx context.Context, a A) error) func(context.Context, store.Job) error {
	return func(ctx context.Context, j store.Job) error {
		var a A
		if len(j.Args) > 0 {
			if err := json.Unmarshal(j.Args, &a); err != nil {
				return jobq.Cancel(fmt.Errorf("smm: %s: bad args: %w", j.Kind, err))
			}
		}
		return f(ctx, a)
	}
}

// insert adds a job (a live one holding unique answers instead).
func (n *Node) insert(ctx context.Context, kind, queue string, args any, unique string, at time.Time) (store.Job, bool, error) {
	b, err := json.Marshal(args)
	if err != nil {
		return store.Job{}, false, err
	}
	return n.jobs.Insert(ctx, jobq.InsertParams{Queue: queue, Kind: kind, Args: b, UniqueKey: unique, RunAt: at})
}

// memberQueues returns the queues whose held set names this node, sorted.
func (n *Node) memberQueues(ctx context.Context) ([]store.ReplicaSet, error) {
	sets, err := n.cfg.Store.ReplicaSets(ctx)
	if err != nil {
		return nil, err
	}
	sets = slices.DeleteFunc(sets, func(s store.ReplicaSet) bool { return !s.Holds(n.self) })
	slices.SortFunc(sets, func(a, b store.ReplicaSet) int { return cmp.Compare(a.Queue, b.Queue) })
	return sets, nil
}

// monitorState is monitor-state: the heads of one slice's queues at every
// member, and each member's health; the core then queues what follows
// (Monitored).
func (n *Node) monitorState(ctx context.Context, a monitorArgs) error {
	sets, err := n.cycleSets(ctx, a.Offset)
	if err != nil {
		return err
	}
	if a.Offset >= len(sets) {
		a.Offset = 0
	}
	slice := slices.Clone(sets[a.Offset:min(a.Offset+n.c.SliceSize, len(sets))])
	for i, s := range slice {
		if cur, err := n.cfg.Store.ReplicaSet(ctx, s.Queue); err == nil {
			slice[i] = cur // as held now, not as the cycle began
		}
	}
	states := n.gather(ctx, slice)
	next := a.Offset + len(slice)
	if next >= len(sets) {
		next = 0
	}
	_, err = n.step(ctx, Monitored(a.Offset, next, states, n.registered()))
	return err
}

// registered is the registry's node ids.
func (n *Node) registered() []string {
	ids := n.cfg.Registry.IDs()
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = string(id)
	}
	return out
}

// cycleSets is the sets a monitoring cycle goes through: read when the
// cycle starts (offset 0, or none read yet), then kept for its slices; a
// set made or changed meanwhile is met in the next cycle, or in the slice
// that reads it again (gather reads a newer version a member knows).
func (n *Node) cycleSets(ctx context.Context, offset int) ([]store.ReplicaSet, error) {
	n.mu.Lock()
	sets := n.cycleList
	n.mu.Unlock()
	if offset > 0 && sets != nil {
		return sets, nil
	}
	sets, err := n.memberQueues(ctx)
	if err != nil {
		return nil, err
	}
	n.mu.Lock()
	n.cycleList = sets
	n.mu.Unlock()
	return sets, nil
}

// gather asks every member of the sets for its heads (one request per
// member), marking each member's health, and returns each queue's state.
func (n *Node) gather(ctx context.Context, sets []store.ReplicaSet) []QueueState {
	return n.gatherSkipping(ctx, sets, nil)
}

// gatherSkipping is gather without asking the nodes of skip: each counts
// as not reached, unhealthy since it was found so.
func (n *Node) gatherSkipping(ctx context.Context, sets []store.ReplicaSet, skip map[string]bool) []QueueState {
	byNode := map[string][]string{}
	for _, s := range sets {
		for _, m := range s.Members() {
			byNode[m] = append(byNode[m], s.Queue)
		}
	}
	heads := map[string]map[string]replog.Head{} // node → queue → head
	held := map[string]map[string]uint64{}       // node → queue → version it holds
	versions := map[string]uint64{}              // queue → highest version a member knows
	asking := map[string]uint64{}                // queue → version this node holds
	for _, s := range sets {
		asking[s.Queue] = s.Version
	}
	// One request per member node, all at once. A node found unhealthy is
	// not asked (probe-node asks it, failover.go): a dead
	// member costs a job no wait.
	var mu sync.Mutex
	var wg sync.WaitGroup
	asked := n.clock.Now()
	for _, node := range slices.Sorted(maps.Keys(byNode)) {
		queues := byNode[node]
		if since, _ := n.unhealthySince(node); skip[node] || !since.IsZero() {
			continue // not reached, without a wait
		}
		goOrCall(&wg, n.cfg.Sequential, func() {
			// a loss's job asks for thousands of queues: in requests of
			// headsPage, each within RequestTimeout
			hs, vs := map[string]replog.Head{}, map[string]uint64{}
			for page := range slices.Chunk(queues, headsPage) {
				ph, pv, err := n.headsOf(ctx, node, page, asking)
				n.markHealthAt(node, err == nil, asked)
				if err != nil {
					return
				}
				maps.Copy(hs, ph)
				maps.Copy(vs, pv)
			}
			mu.Lock()
			defer mu.Unlock()
			heads[node], held[node] = hs, vs
			for q, v := range vs {
				versions[q] = max(versions[q], v)
			}
		})
	}
	wg.Wait()
	out := make([]QueueState, 0, len(sets))
	for _, s := range sets {
		if versions[s.Queue] > s.Version {
			// A member knows a newer set: read it, and leave this queue to
			// the next cycle.
			if _, _, err := n.refreshSet(ctx, s.Queue); err != nil {
				n.log.Warn("smm: reading a newer replica set", "queue", s.Queue, "err", err)
			}
			continue
		}
		st := QueueState{Set: ReplicaSet{Queue: s.Queue, Primary: s.Primary, Secondaries: s.Secondaries, Version: s.Version}, Members: map[string]Member{}}
		for _, m := range s.Members() {
			h, reached := heads[m][s.Queue]
			since, _ := n.unhealthySince(m)
			st.Members[m] = Member{Node: m, Reached: reached, Head: h, Version: held[m][s.Queue], UnhealthySince: since}
		}
		out = append(out, st)
	}
	return out
}

// headsPage is the most queues one heads request names.
const headsPage = 500

// headsOf asks one node (this one: its own store) for its heads.
func (n *Node) headsOf(ctx context.Context, node string, queues []string, asking map[string]uint64) (map[string]replog.Head, map[string]uint64, error) {
	req := &smmpb.HeadsRequest{Queues: queues, Versions: make([]uint64, len(queues))}
	for i, q := range queues {
		req.Versions[i] = asking[q]
	}
	var resp *smmpb.Response
	if node == n.self {
		resp = n.serveHeads(ctx, req)
		if resp.Code != "" {
			return nil, nil, errors.New(resp.Error)
		}
	} else {
		rctx, cancel := context.WithTimeout(ctx, n.c.RequestTimeout)
		defer cancel()
		r, err := n.rpc.call(rctx, transport.NodeID(node), &smmpb.Request{Body: &smmpb.Request_Heads{Heads: req}})
		if err != nil {
			return nil, nil, err
		}
		resp = r
	}
	hs, vs := map[string]replog.Head{}, map[string]uint64{}
	for _, h := range resp.GetHeads().GetHeads() {
		hs[h.Queue] = fromPB(h.Head)
		vs[h.Queue] = h.Version
	}
	return hs, vs, nil
}

// stateOf returns what monitoring last saw of queues.
func (n *Node) stateOf(queues []string) []QueueState {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.core.Seen(queues)
}

// findSyncRequests is find-sync-requests: on the queues this node is
// primary of, a recurring sync for each secondary behind or diverged.
func (n *Node) findSyncRequests(ctx context.Context, a sliceArgs) error {
	rep, err := n.step(ctx, FindSyncs(a.Queues))
	if err != nil {
		return err
	}
	for _, qs := range rep.Syncs {
		// Never sync secondaries to a log not yet caught up (a primary
		// back with its disk lost would reset them to less).
		if err := n.ensureAdopted(ctx, qs.Queue); err != nil {
			n.log.Warn("smm: primary not ready to sync its secondaries", "queue", qs.Queue, "err", err)
			continue
		}
		if qs.Ahead {
			// A secondary holds more than its primary: one this node did
			// not reach when it took the queue on. Catch up from it;
			// syncing it to the shorter head would drop what it holds.
			// One whose log forks from ours is diverged: synced below.
			err := n.recatch(ctx, qs.Queue)
			if !errors.Is(err, errForked) {
				if err != nil {
					n.log.Warn("smm: catching up with a secondary ahead of its primary", "queue", qs.Queue, "err", err)
				}
				continue
			}
		}
		for _, r := range qs.Requests {
			if _, _, err := n.insert(ctx, KindRecurringSync, jobq.QueueRecurringSync, syncArgs{Queue: r.Queue, Secondary: r.Secondary}, "sync/"+r.Queue+"/"+r.Secondary, time.Time{}); err != nil && !errors.Is(err, jobq.ErrQueueFull) {
				return err
			}
		}
	}
	return nil
}

// findReplicaSetUpdates is find-replica-set-updates: for each queue with
// a member unhealthy for UnhealthyAfter, or a set that shrank below
// Secondaries while a healthy node could fill it, an
// issue-replica-set-update on the node that would sign it (the primary,
// or the secondary the plan promotes when the primary is the one
// replaced).
func (n *Node) findReplicaSetUpdates(ctx context.Context, a sliceArgs) error {
	if a.Lost != "" {
		return n.findLost(ctx, a)
	}
	_, err := n.insertFound(ctx, n.stateOf(a.Queues), true)
	return err
}

// insertFound queues the updates the states need that this node signs:
// failovers due now, in one job, before the others. It returns how many
// queues could not be planned yet (ErrUnsettled: a member unanswered, not
// yet for UnhealthyAfter; ErrMappingStale: the registry's refresh is
// late). A slice leaves to a loss's job the queues whose only replaced
// members are nodes that job has still to plan for.
func (n *Node) insertFound(ctx context.Context, states []QueueState, slice bool) (int, error) {
	p, err := n.classify(ctx, states, slice)
	if err != nil {
		return 0, err
	}
	now := n.clock.Now()
	// Failovers first: a queue without its primary takes no intent, one
	// short of a secondary does. The job queue runs its jobs by due time,
	// so the other updates are due a moment later: they wait for the
	// failovers found with them, not for their own turn.
	if err := n.insertUpdates(ctx, queuesOf(p.Failovers), now); err != nil {
		return p.Unsettled, err
	}
	return p.Unsettled, n.insertUpdates(ctx, queuesOf(p.Others), now.Add(time.Millisecond))
}

// classify has the core plan each state (Plan) with the registered nodes
// and their loads as candidates, and logs the updates it cannot plan.
func (n *Node) classify(ctx context.Context, states []QueueState, slice bool) (Plans, error) {
	rep, err := n.step(ctx, Plan(states, n.pool(ctx), slice))
	for _, r := range rep.Plans.Refused {
		n.log.Warn("smm: replica set needs an update that cannot be planned", "queue", r.Queue, "unhealthy", r.Unhealthy, "err", r.Reason)
	}
	return rep.Plans, err
}

// queuesOf returns the queues of ups.
func queuesOf(ups []SetUpdate) []string {
	out := make([]string, len(ups))
	for i, u := range ups {
		out[i] = u.Old.Queue
	}
	return out
}

// retryUnsettled is the snooze of a loss's job (and of its updates) that
// left queues unsettled: an unanswered member settles (answers, or turns
// replaceable) within UnhealthyAfter, and is probed every RequestTimeout.
func (n *Node) retryUnsettled() time.Duration { return max(n.c.RequestTimeout/4, 100*time.Millisecond) }

// insertUpdates queues one issue-replica-set-update for queues (the job
// puts their updates on chain together; the replica-set-update queue runs
// one job at a time). The same queues found again while it waits make no
// second job.
func (n *Node) insertUpdates(ctx context.Context, queues []string, at time.Time) error {
	if len(queues) == 0 {
		return nil
	}
	sum := sha256.Sum256([]byte(strings.Join(queues, "\x00")))
	_, _, err := n.insert(ctx, KindReplicaSetUpdate, jobq.QueueReplicaSetUpdate, updateArgs{Queues: queues}, "rsu/"+hex.EncodeToString(sum[:12]), at)
	if errors.Is(err, jobq.ErrQueueFull) {
		return nil
	}
	return err
}

// mappingFresh reports whether the registry was read within 3 periods.
func (n *Node) mappingFresh() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.core.mappingFreshAt(n.clock.Now())
}

// refreshMapping is the mapping job: the node registry read again, and
// the replica sets on chain (a set another node made that names this
// node is learnt here, if no push or monitoring brought it first).
func (n *Node) refreshMapping(ctx context.Context) error {
	if err := n.cfg.Registry.Refresh(ctx); err != nil {
		return err
	}
	if _, err := n.step(ctx, Mapped()); err != nil {
		return err
	}
	return n.refreshSets(ctx)
}
