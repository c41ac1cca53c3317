package smm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
	"github.com/ordolabs/ordo/internal/store"
)

// Replica sets: read from the chain's `replicasets` contract and held in
// the store (which logs the queues whose held set names this node
// primary); written through this node's sequencer (queue SetsQueue, on a
// reserved sender), signed by this node's key.

// ErrLostRace is a replica-set update that another node's update beat.
var ErrLostRace = errors.New("smm: another replica-set update came first")

// ErrStaleSet is a sync this node started under a set version older than
// one its secondary holds: the set is read from the chain again (this
// node may have been deposed) and the sync left to the set's primary.
var ErrStaleSet = errors.New("smm: a member holds a newer replica set than this node")

// SetsQueue is the sequencer queue of this node's replica-set updates
// (the node reserves a sender for it).
const SetsQueue = "smm/replicasets"

// chainSet reads one queue's set from the chain (found false: none).
func (n *Node) chainSet(ctx context.Context, queue string) (store.ReplicaSet, bool, error) {
	s, found, err := n.cfg.Sets.Set(ctx, n.cfg.Chain, queue)
	if err != nil {
		return store.ReplicaSet{}, false, fmt.Errorf("smm: read the replica set of %q: %w", queue, err)
	}
	return s, found, nil
}

// refreshSets reads every set on chain and holds those naming this node
// (or already held). A queue it makes this node the primary of is adopted
// by its next job or intake, which wait for it (find-sync-requests meets
// it within a monitoring cycle), not here: thousands of adoptions would
// hold the monitoring queue.
func (n *Node) refreshSets(ctx context.Context) error {
	all, err := n.cfg.Store.ReplicaSets(ctx)
	if err != nil {
		return fmt.Errorf("smm: held sets: %w", err)
	}
	held := make(map[string]uint64, len(all))
	for _, s := range all {
		held[s.Queue] = s.Version
	}
	after := ""
	for {
		sets, next, err := n.cfg.Sets.Page(ctx, n.cfg.Chain, after)
		if err != nil {
			return fmt.Errorf("smm: read replica sets: %w", err)
		}
		for _, set := range sets {
			if v, ok := held[set.Queue]; ok && v >= set.Version {
				continue // held already (keep would read it to find so)
			}
			if _, err := n.keep(ctx, set); err != nil {
				return err
			}
		}
		if next == "" {
			return nil
		}
		after = next
	}
}

// hold records a set read from the chain; when it makes this node the
// queue's primary, the queue is adopted (and, should that fail, adopted
// again by its next intake, which waits for it).
func (n *Node) hold(ctx context.Context, set store.ReplicaSet) error {
	promoted, err := n.keep(ctx, set)
	if err != nil || !promoted {
		return err
	}
	return n.ensureAdopted(ctx, set.Queue)
}

// keep records a set read from the chain and reports whether it makes
// this node the queue's primary (not adopted yet); a deposed primary's
// queue is closed in its sequencer.
func (n *Node) keep(ctx context.Context, set store.ReplicaSet) (bool, error) {
	old, err := n.cfg.Store.ReplicaSet(ctx, set.Queue)
	switch {
	case errors.Is(err, store.ErrNotFound):
		if !set.Holds(n.self) {
			return false, nil // not ours, never was
		}
	case err != nil:
		return false, fmt.Errorf("smm: held set of %q: %w", set.Queue, err)
	case old.Version >= set.Version:
		return false, nil
	}
	// A deposed primary's queue is closed (EffectGate) before the set is
	// held, so that no dispatch starts after this node knows.
	rep, err := n.step(ctx, SetHeld(asCore(old), asCore(set)))
	if err != nil {
		return false, err
	}
	promoted := rep.Promoted
	if err := n.cfg.Store.PutReplicaSets(ctx, []store.ReplicaSet{set}); err != nil {
		return false, fmt.Errorf("smm: hold the set of %q: %w", set.Queue, err)
	}
	return promoted, nil
}

// refreshSet reads one queue's set from the chain and holds it.
func (n *Node) refreshSet(ctx context.Context, queue string) (store.ReplicaSet, bool, error) {
	s, ok, err := n.chainSet(ctx, queue)
	if err != nil || !ok {
		return s, ok, err
	}
	if err := n.hold(ctx, s); err != nil {
		return s, true, err
	}
	return s, true, nil
}

// setFor is the set of a queue taken in here: held, else read from the
// chain, else created with this node as its primary.
func (n *Node) setFor(ctx context.Context, queue string) (store.ReplicaSet, error) {
	if s, err := n.cfg.Store.ReplicaSet(ctx, queue); err == nil {
		return s, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return store.ReplicaSet{}, err
	}
	l := n.lock(queue)
	l.Lock()
	defer l.Unlock()
	if s, err := n.cfg.Store.ReplicaSet(ctx, queue); err == nil {
		return s, nil
	}
	if s, ok, err := n.refreshSet(ctx, queue); err != nil || ok {
		return s, err
	}
	// A new set: this node and the least loaded others (alone when none is
	// registered and healthy).
	grown, _, _ := PlanGrow(QueueState{Set: ReplicaSet{Queue: queue, Primary: n.self}}, n.c.Secondaries, n.candidates(ctx, []string{n.self}), true)
	next := store.ReplicaSet{Queue: queue, Primary: n.self, Secondaries: grown.Secondaries}
	err := n.writeSet(ctx, next, 0)
	if err != nil && !errors.Is(err, ErrLostRace) {
		return store.ReplicaSet{}, err
	}
	s, ok, err := n.refreshSet(ctx, queue)
	if err == nil && !ok {
		err = fmt.Errorf("%w: the replica set of %q is not on chain after its update", ErrUnavailable, queue)
	}
	return s, err
}

// loadsEvery is how long a count of the sets each node is in serves: a
// planner choosing replacements for a slice's queues reads the held sets
// once, not once per queue.
const loadsEvery = time.Second

// loads counts the sets this node holds that name each node.
func (n *Node) loads(ctx context.Context) map[string]int {
	now := n.clock.Now()
	n.mu.Lock()
	if n.load != nil && now.Sub(n.loadAt) < loadsEvery {
		l := n.load
		n.mu.Unlock()
		return l
	}
	n.mu.Unlock()
	load := map[string]int{}
	if sets, err := n.cfg.Store.ReplicaSets(ctx); err == nil {
		for _, s := range sets {
			for _, m := range s.Members() {
				load[m]++
			}
		}
	}
	n.mu.Lock()
	n.load, n.loadAt = load, now
	n.mu.Unlock()
	return load
}

// pool is every registered node with its load (the sets this node holds
// that name it): what the core's plans choose candidates from (outside
// the set, not found unhealthy), least loaded first.
func (n *Node) pool(ctx context.Context) []Candidate {
	load := n.loads(ctx)
	ids := n.cfg.Registry.IDs()
	pool := make([]Candidate, 0, len(ids))
	for _, id := range ids {
		pool = append(pool, Candidate{Node: string(id), Load: load[string(id)]})
	}
	return pool
}

// writeSet writes next on chain as the update of version replaces, signed
// by this node, through its sequencer, and waits for the record to end.
// ErrLostRace: the chain refused it as stale (another update came first).
func (n *Node) writeSet(ctx context.Context, next store.ReplicaSet, replaces uint64) error {
	call, err := n.cfg.Sets.Update(n.cfg.Key, n.self, next, replaces)
	if err != nil {
		return fmt.Errorf("smm: the replica-set update of %q: %w", next.Queue, err)
	}
	data, _ := json.Marshal(call)
	sum := sha256.Sum256(data)
	key := fmt.Sprintf("replicasets/%s/%d/%s", next.Queue, replaces, hex.EncodeToString(sum[:8]))
	res, err := n.cfg.Sequencer.Submit(ctx, []sequencer.Intake{{Queue: SetsQueue, Type: dispatch.CallType, Data: data,
		IdempotencyKey: key, Principal: sequencer.PrincipalSMM}})
	if err != nil {
		return fmt.Errorf("smm: submit the replica set of %q: %w", next.Queue, err)
	}
	uid := res[0].Transaction.UID
	n.log.Info("smm: replica-set update sent", "queue", next.Queue, "primary", next.Primary, "secondaries", next.Secondaries, "replaces", replaces, "uid", uid)
	t, err := n.awaitRecord(ctx, uid)
	if err != nil {
		return err
	}
	if t.State == store.Done {
		n.m.SetUpdates.WithLabelValues("ok").Inc()
		return nil
	}
	if containsReason(t, devchain.ReasonStaleReplicaSet) {
		n.m.SetUpdates.WithLabelValues("lost_race").Inc()
		return fmt.Errorf("%w: %s", ErrLostRace, t.Error)
	}
	n.m.SetUpdates.WithLabelValues("failed").Inc()
	return fmt.Errorf("smm: the replica-set update of %q failed: %s", next.Queue, t.Error)
}

// awaitRecord waits for this node's sequencer record uid to end (Done or
// Failed) and returns it.
func (n *Node) awaitRecord(ctx context.Context, uid string) (store.Transaction, error) {
	ended := n.awaitFinish(uid)
	defer n.Finished(uid)
	for {
		t, err := n.cfg.Store.Get(ctx, uid)
		if err != nil {
			return store.Transaction{}, fmt.Errorf("smm: the replica-set update %s: %w", uid, err)
		}
		if t.State == store.Done || t.State == store.Failed {
			return t, nil
		}
		// The sequencer says when the record ends (Finished); the slow
		// poll covers a node whose OnFinish is not wired to this one.
		if err := n.sleepOrWake(ctx, finishPoll, ended); err != nil {
			return store.Transaction{}, err
		}
		ended = nil // woken once: the record is read again, then polled
	}
}

// writeSets puts ups on chain, signed by this node: one update alone, or
// batches of updateMany submitted at once, each waited for. An update the
// chain refused in a batch (another came first) is no error here: the
// caller reads back what the chain holds.
func (n *Node) writeSets(ctx context.Context, ups []SetUpdate) error {
	if len(ups) == 1 {
		u := ups[0]
		err := n.writeSet(ctx, store.ReplicaSet{Queue: u.Next.Queue, Primary: u.Next.Primary, Secondaries: u.Next.Secondaries}, u.Old.Version)
		if errors.Is(err, ErrLostRace) {
			return nil
		}
		return err
	}
	calls, err := n.cfg.Sets.UpdateMany(n.cfg.Key, n.self, ups)
	if err != nil {
		return fmt.Errorf("smm: a batch of replica-set updates: %w", err)
	}
	var in []sequencer.Intake
	for _, call := range calls {
		data, _ := json.Marshal(call)
		sum := sha256.Sum256(data)
		in = append(in, sequencer.Intake{Queue: SetsQueue, Type: dispatch.CallType, Data: data,
			IdempotencyKey: "replicasets/batch/" + hex.EncodeToString(sum[:16]), Principal: sequencer.PrincipalSMM})
	}
	res, err := n.cfg.Sequencer.Submit(ctx, in)
	if err != nil {
		return fmt.Errorf("smm: submit %d replica-set updates: %w", len(ups), err)
	}
	var errs []error
	for _, r := range res {
		t, err := n.awaitRecord(ctx, r.Transaction.UID)
		switch {
		case err != nil:
			errs = append(errs, err)
		case t.State == store.Done:
			n.m.SetUpdates.WithLabelValues("batch").Inc()
		default:
			n.m.SetUpdates.WithLabelValues("failed").Inc()
			errs = append(errs, fmt.Errorf("smm: a batch of replica-set updates failed: %s", t.Error))
		}
	}
	return errors.Join(errs...)
}

// finishPoll is how often writeSet reads its record when no Finished
// comes.
const finishPoll = 5 * time.Second

// awaitFinish returns a channel closed when the sequencer reports uid
// ended (Finished).
func (n *Node) awaitFinish(uid string) <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	ch := make(chan struct{})
	n.finishing[uid] = ch
	return ch
}

// Finished is the node's sequencer OnFinish for the state machine
// manager: a replica-set update waiting for its record wakes.
func (n *Node) Finished(uid string) {
	n.mu.Lock()
	ch := n.finishing[uid]
	delete(n.finishing, uid)
	n.mu.Unlock()
	if ch != nil {
		close(ch)
	}
}

// containsReason reports whether t's error or an attempt's names reason.
func containsReason(t store.Transaction, reason string) bool {
	if strings.Contains(t.Error, reason) {
		return true
	}
	for _, a := range t.Attempts {
		if strings.Contains(a.Error, reason) {
			return true
		}
	}
	return false
}

// candidates are the registered nodes outside exclude that are not found
// unhealthy, each with its load: who joins a new set.
func (n *Node) candidates(ctx context.Context, exclude []string) []Candidate {
	pool := n.pool(ctx)
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.core.candidates(pool, exclude)
}

// asCore is a held set as the core's decisions take it.
func asCore(s store.ReplicaSet) ReplicaSet {
	return ReplicaSet{Queue: s.Queue, Primary: s.Primary, Secondaries: s.Secondaries, Version: s.Version}
}
