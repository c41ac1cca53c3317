package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/distseq/cluster"
	"github.com/ordolabs/ordo/internal/distseq/token"
	"github.com/ordolabs/ordo/internal/store"
)

// The invariants of the distributed-sequencer simulation, checked after
// every action, incrementally (each check reads what changed since the
// last), and the liveness checks of the quiet phase.

// distAudit is the chain as the checker reads it: final blocks only (at
// least FinalityDepth deep), so a reorg never takes back what it counted.
type distAudit struct {
	cursor    uint64
	confirmed map[string]string          // txID -> group, from IntentConfirmed
	unspent   map[string]map[string]bool // group -> unspent state ids (minted + created - spent)
	spentBy   map[string]string          // "group/state" -> txID
	// fresh are the intents confirmed since the owner check last ran.
	fresh []devchain.IntentConfirmed
}

func newDistAudit() distAudit {
	return distAudit{confirmed: map[string]string{}, unspent: map[string]map[string]bool{}, spentBy: map[string]string{}}
}

// distSeen is what the checker saw of the nodes at its last check.
type distSeen struct {
	final  map[string]distseq.State // acknowledged txID -> its final state in the sender's store
	trans  map[distseq.NodeID]int   // transitions checked per node
	height map[distseq.NodeID]uint64
	cursor map[distseq.NodeID]uint64
}

func newDistSeen() distSeen {
	return distSeen{final: map[string]distseq.State{}, trans: map[distseq.NodeID]int{}, height: map[distseq.NodeID]uint64{},
		cursor: map[distseq.NodeID]uint64{}}
}

func distBroken(inv, format string, args ...any) *DistViolation {
	return &DistViolation{Invariant: inv, Detail: fmt.Sprintf(format, args...)}
}

// update reads the final events the audit has not read.
func (a *distAudit) update(ctx context.Context, c *cluster.Cluster, finality uint64) error {
	head := c.Head()
	if head < finality {
		return nil
	}
	final := head - finality
	for {
		evs, err := c.Chain.Events(ctx, a.cursor, 1000)
		if err != nil {
			return err
		}
		for _, e := range evs {
			if e.Height > final {
				return nil
			}
			a.cursor = e.Cursor
			if e.Contract != devchain.PrivacyGroupContract {
				continue
			}
			if err := a.take(e.Name, e.Data); err != nil {
				return err
			}
		}
		if len(evs) < 1000 {
			return nil
		}
	}
}

func (a *distAudit) take(name string, data []byte) error {
	switch name {
	case "StatesMinted":
		var m devchain.StatesMinted
		if err := json.Unmarshal(data, &m); err != nil {
			return err
		}
		for _, id := range m.States {
			a.add(m.Group, id)
		}
	case "IntentConfirmed":
		var ic devchain.IntentConfirmed
		if err := json.Unmarshal(data, &ic); err != nil {
			return err
		}
		if g, ok := a.confirmed[ic.TxID]; ok {
			return distBroken("confirmed-once", "intent %s confirmed twice on chain (in %s, then in %s)", ic.TxID, g, ic.Group)
		}
		a.confirmed[ic.TxID] = ic.Group
		a.fresh = append(a.fresh, ic)
		for _, s := range ic.Spends {
			k := ic.Group + "/" + s
			if by, ok := a.spentBy[k]; ok {
				return distBroken("spent-once", "state %s spent twice on chain: by %s and by %s", k, by, ic.TxID)
			}
			if !a.unspent[ic.Group][s] {
				return distBroken("spent-once", "state %s spent by %s was never minted or created", k, ic.TxID)
			}
			a.spentBy[k] = ic.TxID
			delete(a.unspent[ic.Group], s)
		}
		for _, s := range ic.Creates {
			a.add(ic.Group, s)
		}
	}
	return nil
}

func (a *distAudit) add(group, id string) {
	m := a.unspent[group]
	if m == nil {
		m = map[string]bool{}
		a.unspent[group] = m
	}
	m[id] = true
}

// check runs the per-step invariants.
func (w *distWorld) check(ctx context.Context) error {
	if err := w.audit.update(ctx, w.c, w.cfg.FinalityDepth); err != nil {
		return err
	}
	if err := w.checkOwners(ctx); err != nil {
		return err
	}
	for _, n := range w.c.Nodes() {
		if err := w.checkNode(ctx, n); err != nil {
			return err
		}
	}
	clear(w.down)
	for _, id := range w.acked {
		if err := w.checkIntent(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// checkOwners: every state an intent confirmed on chain spent belonged,
// on chain, to the intent's from, an owner of the intent's sender node
// (only the owner's node spends its states).
func (w *distWorld) checkOwners(ctx context.Context) error {
	fresh := w.audit.fresh
	w.audit.fresh = nil
	for _, ic := range fresh {
		s := w.senderOf(ic.TxID)
		n := w.c.Node(s)
		if n == nil {
			continue
		}
		rec, err := n.Store.DistseqIntent(ctx, ic.TxID)
		if err != nil {
			return distBroken("owner-spends", "intent %s confirmed on chain is unknown to its sender %s: %v", ic.TxID, s, err)
		}
		in, err := token.ParseIntent(rec.Payload)
		if err != nil {
			return distBroken("owner-spends", "intent %s confirmed on chain has no owner: %v", ic.TxID, err)
		}
		if _, node, _ := token.SplitOwner(in.From); node != string(s) {
			return distBroken("owner-spends", "intent %s of node %s spends for %s, an owner of another node", ic.TxID, s, in.From)
		}
		for _, id := range ic.Spends {
			args, _ := json.Marshal(map[string]string{"group": ic.Group, "id": id})
			raw, err := w.c.Chain.Call(ctx, devchain.PrivacyGroupContract, "state", args)
			if err != nil {
				return err
			}
			var st devchain.PrivacyStateRecord
			if err := json.Unmarshal(raw, &st); err != nil {
				return err
			}
			if st.Owner != in.From {
				return distBroken("owner-spends", "intent %s from %s spent state %s/%s of %q", ic.TxID, in.From, ic.Group, id, st.Owner)
			}
		}
	}
	return nil
}

// checkNode: no sender transition leaves a final state; the node's view of
// the chain never moves back while it is up, nor its store's cursor ever.
func (w *distWorld) checkNode(ctx context.Context, n *cluster.Node) error {
	for _, t := range n.Transitions[w.seen.trans[n.ID]:] {
		if t.Role == distseq.RoleSender && t.From.Final() && t.To != t.From {
			return distBroken("final-stays", "node %s: sender transaction %s left final state %s for %s", n.ID, t.TxID, t.From, t.To)
		}
	}
	w.seen.trans[n.ID] = len(n.Transitions)
	if n.Up() {
		h, was := n.Height(), w.seen.height[n.ID]
		if !w.down[n.ID] && h < was {
			return distBroken("chain-forward", "node %s: indexed height went back from %d to %d", n.ID, was, h)
		}
		w.seen.height[n.ID] = h
	}
	cur, _, err := n.Store.DistseqCursor(ctx)
	if err != nil {
		return err
	}
	if was := w.seen.cursor[n.ID]; cur < was {
		return distBroken("chain-forward", "node %s: store cursor went back from %d to %d", n.ID, was, cur)
	}
	w.seen.cursor[n.ID] = cur
	return nil
}

// checkIntent: an acknowledged intent is kept by its sender; once final it
// stays; Confirmed only when confirmed on chain, Reverted never confirmed
// on chain.
func (w *distWorld) checkIntent(ctx context.Context, id string) error {
	s := w.sender[id]
	rec, err := w.c.Node(s).Store.DistseqIntent(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return distBroken("acknowledged-kept", "node %s lost acknowledged intent %s", s, id)
	}
	if err != nil {
		return err
	}
	var st distseq.State
	switch rec.Status {
	case store.DistseqConfirmed:
		st = distseq.Confirmed
	case store.DistseqReverted:
		st = distseq.Reverted
	}
	if was, ok := w.seen.final[id]; ok && was != st {
		return distBroken("final-stays", "node %s: intent %s was %s, now %q", s, id, was, rec.Status)
	}
	_, onChain := w.audit.confirmed[id]
	switch st {
	case distseq.Confirmed:
		if !onChain {
			return distBroken("confirmed-on-chain", "node %s: intent %s Confirmed but not confirmed on chain (final blocks)", s, id)
		}
	case distseq.Reverted:
		if onChain {
			return distBroken("reverted-off-chain", "node %s: intent %s Reverted (%s) but confirmed on chain", s, id, rec.Reason)
		}
	default: // not final yet: nothing to compare with the chain
	}
	if st != "" {
		w.seen.final[id] = st
	}
	return nil
}

// senderOf is the sender of txID: the node that acknowledged it, or the one
// its id names ("<node>-tx<n>").
func (w *distWorld) senderOf(txID string) distseq.NodeID {
	if s, ok := w.sender[txID]; ok {
		return s
	}
	if i := strings.Index(txID, "-tx"); i > 0 {
		return distseq.NodeID(txID[:i])
	}
	return ""
}

// drain runs the quiet phase until everything settled, within DrainBound:
// every acknowledged intent final, every intent confirmed on chain
// Confirmed at its sender, every member holding every unspent state of the
// active groups. The per-step invariants are checked along the way.
func (w *distWorld) drain(ctx context.Context) error {
	var broken error
	next := w.c.Now()
	settled := func() bool {
		if w.c.Now().Before(next) {
			return false
		}
		next = w.c.Now().Add(250 * time.Millisecond)
		if broken = w.external(ctx); broken != nil {
			return true
		}
		if broken = w.check(ctx); broken != nil {
			return true
		}
		return w.unsettled(ctx) == nil
	}
	ok, err := w.c.RunUntil(ctx, w.cfg.DrainBound, settled)
	if err != nil {
		return err
	}
	if broken != nil {
		return broken
	}
	if !ok {
		if err := w.check(ctx); err != nil {
			return err
		}
		return w.unsettled(ctx)
	}
	return nil
}

// unsettled says what the quiet phase still waits for (nil: nothing).
func (w *distWorld) unsettled(ctx context.Context) error {
	for _, id := range w.acked {
		if _, ok := w.seen.final[id]; ok {
			continue
		}
		s := w.sender[id]
		detail := ""
		if core := w.c.Node(s).Core(); core != nil {
			if t, ok := core.Tx(id); ok {
				detail = fmt.Sprintf(" (sender's core: %s, coordinator %q, %d delegations, %d reverts)", t.State, t.Coordinator, t.Delegations, t.Reverts)
			}
		}
		return distBroken("liveness", "intent %s acknowledged by %s not Confirmed or Reverted %v after the faults stopped%s",
			id, s, w.cfg.DrainBound, detail)
	}
	for _, id := range sortedKeys(w.audit.confirmed) {
		s := w.senderOf(id)
		n := w.c.Node(s)
		if n == nil {
			continue
		}
		rec, err := n.Store.DistseqIntent(ctx, id)
		if err != nil || rec.Status != store.DistseqConfirmed {
			return distBroken("liveness", "intent %s confirmed on chain but not Confirmed at its sender %s (%q, %v)", id, s, rec.Status, err)
		}
	}
	return w.holdsAll(ctx, false)
}

// holdsAll: every member holds every state unspent on chain of each active
// group (of every group with all).
func (w *distWorld) holdsAll(ctx context.Context, all bool) error {
	for _, g := range sortedKeys(w.audit.unspent) {
		if !all && !w.active[g] {
			continue
		}
		want := w.audit.unspent[g]
		for _, n := range w.c.Nodes() {
			have, err := n.Store.DistseqStates(ctx, g, true)
			if err != nil {
				return err
			}
			got := make(map[string]bool, len(have))
			for _, s := range have {
				got[s.ID] = true
			}
			for _, id := range sortedKeys(want) {
				if !got[id] {
					return distBroken("states-held", "node %s does not hold state %s of %s, unspent on chain", n.ID, id, g)
				}
			}
		}
	}
	return nil
}
