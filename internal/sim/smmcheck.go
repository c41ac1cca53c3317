package sim

import (
	"fmt"
	"slices"

	"github.com/ordolabs/ordo/internal/replog"
	"github.com/ordolabs/ordo/internal/store"
)

// The invariants of the state machine manager's model, checked after every
// action (the logs incrementally: only those the step touched), and the
// convergence checks of the quiet phase.

// Invariants of the state machine manager's model.
const (
	// SMMLogChain: a log is not a hash chain of valid entries (each sealed
	// correctly, of its queue, clock i+1 at position i, chained to the one
	// before, versions never going back), or an entry does not decode.
	SMMLogChain = "log-chain"
	// SMMAppliedOnce: an intent id applied on chain more than once.
	SMMAppliedOnce = "applied-once"
	// SMMOrder: a queue's intents applied on chain out of intake order,
	// both by a node the chain named the primary at the time.
	SMMOrder = "intake-order"
	// SMMDeposedOrder: out of intake order where one of the two was
	// dispatched by a deposed primary that had not read the set update.
	// With AckAfter 0 it is the documented window (the deposed primary
	// acknowledged and dispatched an intent no secondary took: the fence
	// refuses it) and only counted in SMMResult.DeposedOrder; with
	// AckAfter > 0 it is a violation.
	SMMDeposedOrder = "deposed-order"
	// SMMDeposedLost: an acknowledged intent lost (acked-lost or
	// acked-applied) that a deposed primary, which had not read the set
	// update, took in. Counted in SMMResult.DeposedLost with AckAfter 0
	// (the same window); a violation with AckAfter > 0.
	SMMDeposedLost = "deposed-lost"
	// SMMAckedLost: an acknowledged intent neither applied on chain nor in
	// any node's log while a node that held it kept its disk.
	SMMAckedLost = "acked-lost"
	// SMMAckedApplied: at the end of the quiet phase an acknowledged
	// intent (not lost with every disk that held it) is not applied.
	SMMAckedApplied = "acked-applied"
	// SMMConverged: the quiet phase did not converge within DrainBound
	// (every member up and reached, at its primary's head with the same
	// hash; every intent of the primary's log final).
	SMMConverged = "converged"
)

func (w *smmWorld) broken(step int, inv, format string, args ...any) *SMMViolation {
	return &SMMViolation{Seed: w.cfg.Seed, Step: step, Invariant: inv, Detail: fmt.Sprintf(format, args...)}
}

// check runs the invariants after step.
func (w *smmWorld) check(step int) error {
	for _, id := range w.names {
		for _, q := range w.qs {
			if w.touched[id][q] {
				if err := checkLog(w.node(id).logs[q], q); err != nil {
					return w.broken(step, SMMLogChain, "%s's log of %s: %v", id, q, err)
				}
			}
		}
	}
	for _, q := range w.qs {
		for _, a := range w.order[q][w.orderSeen[q]:] {
			w.orderSeen[q]++
			if w.applied[a.id] > 1 {
				return w.broken(step, SMMAppliedOnce, "%s applied %d times on chain", a.id, w.applied[a.id])
			}
			last := w.orderMax[q]
			switch {
			case a.seq >= last.seq:
				w.orderMax[q] = a
			case (a.deposed || last.deposed) && w.cfg.AckAfter == 0:
				w.res.DeposedOrder++
			case a.deposed || last.deposed:
				return w.broken(step, SMMDeposedOrder, "%s: %s (intake %d) applied by %s after %s (intake %d) by %s, one of them deposed", q, a.id, a.seq, a.by, last.id, last.seq, last.by)
			default:
				return w.broken(step, SMMOrder, "%s: %s (intake %d) applied by %s after %s (intake %d) by %s", q, a.id, a.seq, a.by, last.id, last.seq, last.by)
			}
		}
	}
	return w.checkAcked(step)
}

// checkAcked: an acknowledged intent not applied on chain is in some
// node's log unless every node that held it lost its disk.
func (w *smmWorld) checkAcked(step int) error {
	for _, id := range w.intentOrder {
		it := w.intents[id]
		if !it.acked || w.applied[id] > 0 || len(it.holders) == 0 || !w.queueTouched(it.queue) || w.deposedLost[id] {
			continue
		}
		held := false
		for _, n := range w.nodes {
			if logHolds(n.logs[it.queue], id) {
				held = true
				break
			}
		}
		if !held && it.deposed && w.cfg.AckAfter == 0 {
			w.deposedLost[id] = true
			w.res.DeposedLost++
			continue
		}
		if !held && it.deposed {
			return w.broken(step, SMMDeposedLost, "acknowledged %s of %s, taken in by a deposed primary, is in no log and not applied", id, it.queue)
		}
		if !held {
			hs := make([]string, 0, len(it.holders))
			for h := range it.holders {
				hs = append(hs, h)
			}
			slices.Sort(hs)
			return w.broken(step, SMMAckedLost, "acknowledged %s of %s is in no log and not applied; %v held it and kept their disks", id, it.queue, hs)
		}
	}
	return nil
}

func (w *smmWorld) queueTouched(q string) bool {
	for _, qs := range w.touched {
		if qs[q] {
			return true
		}
	}
	return false
}

func logHolds(log []replog.Entry, id string) bool {
	for _, e := range log {
		if c, err := store.DecodeChange(e.Payload); err == nil && c.UID == id && c.Op == store.ChangeIntent {
			return true
		}
	}
	return false
}

// checkLog checks that log is a hash chain of q's valid entries.
func checkLog(log []replog.Entry, q string) error {
	var prev replog.Hash
	var version uint64
	for i, e := range log {
		switch {
		case e.Queue != q:
			return fmt.Errorf("entry %d is of queue %q", i, e.Queue)
		case !e.Valid():
			return fmt.Errorf("entry %d (clock %d) is not sealed correctly", i, e.Clock)
		case e.Clock != uint64(i+1):
			return fmt.Errorf("entry %d has clock %d: a gap or a repeat", i, e.Clock)
		case e.Prev != prev:
			return fmt.Errorf("clock %d does not chain to the entry before: a fork", e.Clock)
		case e.Version < version:
			return fmt.Errorf("clock %d written under version %d after %d", e.Clock, e.Version, version)
		}
		if _, err := store.DecodeChange(e.Payload); err != nil {
			return fmt.Errorf("clock %d: %w", e.Clock, err)
		}
		prev, version = e.Hash, e.Version
	}
	return nil
}

// quiet is the quiet phase: faults off, partition healed, every node
// restarted; then every DrainBound of virtual time each up node monitors,
// pulls and dispatches every half second until the world converges.
func (w *smmWorld) quiet(step int) error {
	w.drop, w.dup, w.delay, w.reorder = 0, 0, 0, false
	w.side = map[string]bool{}
	for i, n := range w.nodes {
		if !n.up {
			w.do(SMMAction{Kind: SRestart, Node: i})
		}
	}
	start := w.clk.Now()
	for {
		w.touched = map[string]map[string]bool{}
		for _, n := range w.nodes {
			w.monitor(n)
			for _, q := range w.qs {
				w.pull(n, q, false)
				if n.sets[q].Primary == n.id {
					for w.dispatch(n, q) != "" {
					}
				}
			}
		}
		w.advance(smmQuietTick)
		if err := w.check(step); err != nil {
			return err
		}
		why := w.unconverged()
		if why == "" {
			break
		}
		if w.clk.Now().Sub(start) > w.cfg.DrainBound {
			return w.broken(step, SMMConverged, "not converged %v after the faults stopped: %s", w.cfg.DrainBound, why)
		}
	}
	w.res.Drain = w.clk.Now().Sub(start)
	for _, id := range w.intentOrder {
		it := w.intents[id]
		if it.acked && w.applied[id] != 1 && len(it.holders) > 0 && (it.deposed || w.deposedLost[id]) && w.cfg.AckAfter == 0 {
			if !w.deposedLost[id] {
				w.deposedLost[id] = true
				w.res.DeposedLost++
			}
			continue
		}
		if it.acked && w.applied[id] != 1 && len(it.holders) > 0 && it.deposed {
			return w.broken(step, SMMDeposedLost, "acknowledged %s of %s, taken in by a deposed primary, applied %d times at the end of the quiet phase", id, it.queue, w.applied[id])
		}
		if it.acked && w.applied[id] != 1 && len(it.holders) > 0 {
			return w.broken(step, SMMAckedApplied, "acknowledged %s of %s applied %d times at the end of the quiet phase", id, it.queue, w.applied[id])
		}
	}
	fmt.Fprintf(w.digest, "end|%d|%d", w.res.Drain, len(w.msgs))
	return nil
}

// unconverged says why the world has not converged ("" when it has).
func (w *smmWorld) unconverged() string {
	if len(w.updates) > 0 {
		return "a set update in flight"
	}
	for _, q := range w.qs {
		set := w.sets[q]
		p := w.node(set.Primary)
		if !p.up {
			return fmt.Sprintf("%s's primary %s is down", q, p.id)
		}
		if p.sets[q].Version != set.Version {
			return fmt.Sprintf("%s's primary %s holds version %d, the chain %d", q, p.id, p.sets[q].Version, set.Version)
		}
		ph := headOf(p.logs[q])
		for _, s := range set.Secondaries {
			if h := headOf(w.node(s).logs[q]); h != ph {
				return fmt.Sprintf("%s's secondary %s at clock %d, its primary %s at %d", q, s, h.Clock, p.id, ph.Clock)
			}
		}
		if len(set.Secondaries) < w.cfg.Replicas-1 {
			return fmt.Sprintf("%s's set has %d secondaries, want %d", q, len(set.Secondaries), w.cfg.Replicas-1)
		}
		final := map[string]bool{}
		for _, e := range slices.Backward(p.logs[q]) {
			c, _ := store.DecodeChange(e.Payload)
			if c.Op == store.ChangeFinal {
				final[c.UID] = true
			} else if !final[c.UID] {
				return fmt.Sprintf("%s's intent %s is not final at its primary %s", q, c.UID, p.id)
			}
		}
	}
	return ""
}
