package smm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/replog"
	"github.com/ordolabs/ordo/internal/store"
)

// Failover without a second application (issue 12): a node that becomes a
// queue's primary makes the queue's records from its replica of the log.
// Before an intent the old primary may have sent (one the log does not
// show DONE or FAILED) is dispatched again, the chain is asked for it: an
// intent the chain shows applied, in a block that can no longer be undone,
// is adopted DONE. One applied in a block that may still be undone is
// adopted WAITING: its next dispatch fails `duplicate_intent` while that
// application stands, which the sequencer takes as applied (DONE), and
// lands if a reorg took it back. Intake for the queue waits until the
// adoption is committed, so the adopted intents keep their order before
// any new one.

// intentRecord is the chain's answer to intents.get.
type intentRecord struct {
	UID    string `json:"uid"`
	Hash   string `json:"hash"`
	Height uint64 `json:"height"`
}

// ensureAdopted adopts queue unless this process has since this node
// became its primary (the first intake after a restart adopts too:
// AdoptLog leaves the records held alone, so that costs a read of the
// log). Intake calls it before committing: adopted intents come first.
func (n *Node) ensureAdopted(ctx context.Context, queue string) error {
	if n.isAdopted(queue) {
		return nil
	}
	l := n.lock("adopt\x00" + queue) // a queue name has no control character: no set lock shares it
	l.Lock()
	defer l.Unlock()
	if n.isAdopted(queue) {
		return nil
	}
	if err := n.adopt(ctx, queue); err != nil {
		return err
	}
	// its dispatch opens (EffectGate): closed if this node was deposed before
	_, err := n.step(ctx, Adopted(queue))
	return err
}

// isAdopted reports whether queue was adopted since this node became its
// primary.
func (n *Node) isAdopted(queue string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.core.Adopted(queue)
}

// adopt makes this node's records of queue from its log, after catching
// its log up with the most advanced member's.
func (n *Node) adopt(ctx context.Context, queue string) error {
	if _, err := n.catchUp(ctx, queue, true); err != nil {
		return fmt.Errorf("smm: adopt %q: %w", queue, err)
	}
	return n.adoptLog(ctx, queue)
}

// adoptLog makes this node's records of queue from its log: the chain
// asked for each intent the log does not show final.
func (n *Node) adoptLog(ctx context.Context, queue string) error {
	open, err := n.unfinished(ctx, queue)
	if err != nil {
		return err
	}
	applied := map[string]json.RawMessage{}
	if len(open) > 0 {
		head, err := n.cfg.Chain.Head(ctx)
		if err != nil {
			return fmt.Errorf("smm: adopt %q: chain head: %w", queue, err)
		}
		for _, uid := range open {
			rec, ok, err := n.applied(ctx, uid)
			if err != nil {
				return fmt.Errorf("smm: adopt %q: %w", queue, err)
			}
			if ok && rec.Height+head.ReorgDepth <= head.Height {
				applied[uid], _ = json.Marshal(map[string]any{"appliedBy": rec.Hash, "height": rec.Height, "note": "applied before this node became the queue's primary"})
			}
		}
	}
	created, err := n.cfg.Store.AdoptLog(ctx, queue, applied)
	if err != nil {
		return fmt.Errorf("smm: adopt %q: %w", queue, err)
	}
	n.m.Adopted.Inc()
	n.log.Info("smm: queue adopted as its primary", "queue", queue, "waiting", len(created), "appliedOnChain", len(applied))
	return nil
}

// ErrNoMajority is a primary that could not hear from a majority of its
// set before taking the queue on: a member it cannot reach may hold
// intents acknowledged before; intake waits (503) and the next try asks
// again.
var ErrNoMajority = errors.New("smm: a majority of the set did not answer the new primary")

// catchUp brings this node's log of a queue it has become primary of up to
// the most up-to-date member's (replog.Head.Newer: the last entry's
// replica-set version first, then the clock — a longer log written under
// a set since replaced is not more up to date): a secondary promoted over one that holds
// more, or a primary back with its disk lost, must not take the queue on
// (nor have its secondaries reset to its shorter log) with less than a
// member holds — that member may hold intents acknowledged by the primary
// before. It needs answers from a majority of the set (itself counted;
// ErrNoMajority otherwise): an acknowledged entry is on the primary and
// ackAfter secondaries, and the plan that promoted this node heard every
// member it kept. A member's log that continues this node's is appended;
// one that forks from it replaces it when it is longer and mayReset (no
// intent taken since the last adoption: the longer history holds what was
// acknowledged). It reports whether it appended anything.
func (n *Node) catchUp(ctx context.Context, queue string, mayReset bool) (bool, error) {
	set, err := n.cfg.Store.ReplicaSet(ctx, queue)
	if err != nil {
		return false, err
	}
	own, err := n.cfg.Store.LogHead(ctx, queue)
	if err != nil {
		return false, err
	}
	states := n.gather(ctx, []store.ReplicaSet{set})
	if len(states) == 0 {
		return false, fmt.Errorf("%w: a member knows a newer set of %q", ErrNoMajority, queue)
	}
	answered := 1 // this node
	best, bestHead := "", own
	for m, st := range states[0].Members {
		if m == n.self || !st.Reached {
			continue
		}
		if st.Version >= set.Version {
			answered++ // fenced: it takes nothing more from a deposed primary
		}
		if st.Head.Newer(bestHead) {
			best, bestHead = m, st.Head
		}
	}
	if need := n.quorum(set, own); answered < need {
		return false, fmt.Errorf("%w: %d of %d members of %q answered, %d needed", ErrNoMajority, answered, len(set.Members()), queue, need)
	}
	if best == "" {
		return false, nil
	}
	start := own
	for bestHead.Newer(own) {
		var next replog.Head
		err := replog.ErrFork // more up to date without more entries: another history
		if bestHead.Clock > own.Clock {
			var es []replog.Entry
			if es, _, err = n.pullFrom(ctx, best, queue, set.Version, own.Clock); err != nil {
				return own != start, fmt.Errorf("catch up from %s: %w", best, err)
			}
			if len(es) == 0 {
				break
			}
			next, err = n.cfg.Store.AppendLog(ctx, queue, set.Version, es)
		}
		if errors.Is(err, replog.ErrFork) && !mayReset {
			// Its log forks from ours after we took intents: it is a
			// diverged secondary, for a sync to reset.
			return own != start, fmt.Errorf("%w: %s's log of %q forks from this primary's", errForked, best, queue)
		}
		if errors.Is(err, replog.ErrFork) {
			all, _, werr := n.wholeLog(ctx, best, queue, set.Version)
			if werr != nil {
				return own != start, fmt.Errorf("catch up from %s: %w", best, werr)
			}
			n.log.Warn("smm: new primary's log forks from a more up-to-date member's: replaced by it", "queue", queue, "member", best, "own", own.Clock, "theirs", len(all))
			next, err = n.cfg.Store.ResetLog(ctx, queue, set.Version, all)
		}
		if err != nil {
			return own != start, fmt.Errorf("catch up from %s: %w", best, err)
		}
		if next == own {
			break
		}
		if next.Clock > own.Clock {
			n.m.Entries.Add(float64(next.Clock - own.Clock))
		}
		own = next
	}
	n.log.Info("smm: caught up with the most up-to-date member", "queue", queue, "from", best, "clock", own.Clock)
	return own != start, nil
}

// quorum is how many members (this node counted) must answer a catch-up,
// fenced (holding this set's version or a newer one), before this node
// takes the queue on. With AckAfter k > 0 an acknowledged intent is on k
// secondaries of the set it was taken under, and the plan that made this
// set replaced only members that did not answer: all members but k-1
// (never less than a majority) are sure to include one of them, and the
// k-1 left out cannot acknowledge anything more for a deposed primary.
// With AckAfter 0 (the documented window: an intent acknowledged before
// any secondary holds it) a majority; every member when this node's own
// log is empty (a disk lost, or a log never held), since one pushed to a
// single secondary survives only there.
func (n *Node) quorum(set store.ReplicaSet, own replog.Head) int {
	return Quorum(len(set.Members()), n.c.AckAfter, own.Clock == 0)
}

// errForked is a re-catch-up that found the member ahead forked.
var errForked = errors.New("smm: forked")

// recatch is a primary that saw a secondary ahead of it (a member it did
// not reach when it took the queue on): it catches up again, appending
// only (its log may have moved on since), and adopts what that brought.
func (n *Node) recatch(ctx context.Context, queue string) error {
	l := n.lock("adopt\x00" + queue) // a queue name has no control character: no set lock shares it
	l.Lock()
	defer l.Unlock()
	pulled, err := n.catchUp(ctx, queue, false)
	if err != nil || !pulled {
		return err
	}
	return n.adoptLog(ctx, queue)
}

// unfinished returns the uids of the intents of queue's log that it does
// not show final and that this node holds no record of, in log order.
func (n *Node) unfinished(ctx context.Context, queue string) ([]string, error) {
	var order []string
	final := map[string]bool{}
	var after uint64
	for {
		es, err := n.cfg.Store.LogAfter(ctx, queue, after, 1000)
		if err != nil {
			return nil, fmt.Errorf("smm: adopt %q: %w", queue, err)
		}
		for _, e := range es {
			c, err := store.DecodeChange(e.Payload)
			if err != nil {
				return nil, fmt.Errorf("smm: adopt %q: clock %d: %w", queue, e.Clock, err)
			}
			if c.Op == store.ChangeIntent {
				order = append(order, c.UID)
			} else {
				final[c.UID] = true
			}
			after = e.Clock
		}
		if len(es) < 1000 {
			break
		}
	}
	var out []string
	for _, uid := range order {
		if final[uid] {
			continue
		}
		if _, err := n.cfg.Store.Get(ctx, uid); err == nil {
			continue
		} else if !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		out = append(out, uid)
	}
	return out, nil
}

// applied asks the chain whether an intent id was applied.
func (n *Node) applied(ctx context.Context, uid string) (intentRecord, bool, error) {
	args, _ := json.Marshal(map[string]string{"uid": uid})
	raw, err := n.cfg.Chain.Call(ctx, devchain.IntentsContract, "get", args)
	if errors.Is(err, chain.ErrNotFound) {
		return intentRecord{}, false, nil
	}
	if err != nil {
		return intentRecord{}, false, fmt.Errorf("ask the chain for intent %s: %w", uid, err)
	}
	var r intentRecord
	if err := json.Unmarshal(raw, &r); err != nil {
		return intentRecord{}, false, fmt.Errorf("decode intent %s: %w", uid, err)
	}
	return r, true, nil
}
