package sim

import (
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/ordolabs/ordo/internal/replog"
	"github.com/ordolabs/ordo/internal/store"
)

// The actions on the real nodes, the invariants after each, and the quiet
// phase.

// realQuietTick is the quiet phase's step of virtual time.
const realQuietTick = 500 * time.Millisecond

// SMMCore is a node's core breaking one of its invariants
// (CheckInvariants).
const SMMCore = "core-invariants"

// SMMReplay is a node's core trace that does not replay (Replay).
const SMMReplay = "core-replay"

// do runs one action.
func (w *realWorld) do(a SMMAction) error {
	rn := w.nodes[a.Node%len(w.nodes)]
	queue := w.qs[a.Queue%len(w.qs)]
	var err error
	switch a.Kind {
	case SIntake:
		w.intake(rn, queue)
	case SAdvance:
		err = w.advance(time.Duration(a.DtMs) * time.Millisecond)
	case SDispatch:
		_, err = w.dispatch(queue)
	case SMonitor:
		_, err = w.runJobs(rn, -1)
	case SPull:
		_, err = w.runJobs(rn, 1)
	case SNet:
		w.mu.Lock()
		w.drop = a.Drop // dup, delay and reorder mean nothing on links served inline
		w.mu.Unlock()
	case SPartition:
		side := map[string]bool{}
		for i, n := range w.nodes {
			side[n.id] = a.Mask&(1<<i) != 0
		}
		w.mu.Lock()
		w.side = side
		w.mu.Unlock()
	case SHeal:
		w.mu.Lock()
		w.side = map[string]bool{}
		w.mu.Unlock()
	case SCrash:
		w.stop(rn, false)
	case SWipe:
		w.stop(rn, !w.cfg.NoWipes)
	case SRestart:
		if !rn.up {
			err = w.open(rn)
		}
	}
	switch a.Kind {
	case SIntake, SMonitor, SPull: // what a task inserted (advance and restart settled already)
		if err == nil {
			err = w.settleJobs()
		}
	default: // the other actions inserted nothing left to settle
	}
	w.reap()
	if err == nil && w.fatal != nil {
		err = w.fatal
	}
	return err
}

func (w *realWorld) broken(step int, inv, format string, args ...any) *SMMViolation {
	return &SMMViolation{Seed: w.cfg.Seed, Step: step, Invariant: inv, Detail: fmt.Sprintf(format, args...)}
}

// check runs the invariants after step: every up node's core; every log a
// node holds a valid hash chain; no intent applied twice; each queue's
// intents applied in intake order; an acknowledged intent not applied in
// some log while a node that held it keeps its disk.
func (w *realWorld) check(step int) error {
	for _, rn := range w.nodes {
		if !rn.up {
			continue
		}
		if errs := rn.n.SimCheckInvariants(); len(errs) > 0 {
			return w.broken(step, SMMCore, "node %s: %v", rn.name, errs)
		}
		heads, err := rn.st.LogHeads(w.ctx)
		if err != nil {
			return fmt.Errorf("sim smm: %s's log heads: %w", rn.name, err)
		}
		for _, q := range w.qs {
			if err := w.readLog(rn, q, heads[q]); err != nil {
				return w.broken(step, SMMLogChain, "%s's log of %s: %v", rn.name, q, err)
			}
		}
	}
	for _, q := range w.qs {
		for _, a := range w.byQueue[q] {
			if w.applied[a.uid] > 1 {
				return w.broken(step, SMMAppliedOnce, "%s applied %d times on chain", a.uid, w.applied[a.uid])
			}
			last := w.orderMax[q]
			switch {
			case a.seq >= last.seq:
				w.orderMax[q] = a
			case (a.deposed || last.deposed) && (w.cfg.AckAfter == 0 || !w.acked(a.uid) || !w.acked(last.uid)):
				w.res.DeposedOrder++ // the window, or an intent never acknowledged
			case !w.acked(a.uid):
				w.res.UnackedOrder++ // never acknowledged: promised no order
			case a.deposed || last.deposed:
				return w.broken(step, SMMDeposedOrder, "%s: %s (intake %d, acked %v) applied by %s after %s (intake %d, acked %v) by %s, one of them deposed", q, a.uid, a.seq, w.acked(a.uid), w.nameOf(a.by), last.uid, last.seq, w.acked(last.uid), w.nameOf(last.by))
			default:
				return w.broken(step, SMMOrder, "%s: %s (intake %d) applied by %s after %s (intake %d) by %s", q, a.uid, a.seq, w.nameOf(a.by), last.uid, last.seq, w.nameOf(last.by))
			}
		}
		w.byQueue[q] = w.byQueue[q][:0]
	}
	return w.checkAcked(step)
}

// acked reports whether an intent was acknowledged (so far).
func (w *realWorld) acked(uid string) bool {
	it := w.intents[uid]
	return it != nil && it.acked
}

// nameOf is a node id's letter.
func (w *realWorld) nameOf(id string) string {
	if rn := w.byID[id]; rn != nil {
		return rn.name
	}
	return id
}

// readLog reads a node's log of queue again when its head (head, as
// LogHeads answered) moved, checks it, and notes the intents it holds.
func (w *realWorld) readLog(rn *realNode, queue string, head replog.Head) error {
	if old, ok := rn.heads[queue]; ok && old == head {
		return nil
	}
	var all []replog.Entry
	var after uint64
	for {
		es, err := rn.st.LogAfter(w.ctx, queue, after, 1000)
		if err != nil {
			return err
		}
		all = append(all, es...)
		if len(es) < 1000 {
			break
		}
		after = es[len(es)-1].Clock
	}
	if w.cfg.bug == smmBugCorruptLog && len(all) > 0 {
		all[0].Payload = append(slices.Clone(all[0].Payload), ' ')
	}
	if err := checkLog(all, queue); err != nil {
		return err
	}
	rn.heads[queue], rn.logs[queue] = head, all
	for _, e := range all {
		if c, err := store.DecodeChange(e.Payload); err == nil && c.Op == store.ChangeIntent {
			if it := w.intents[c.UID]; it != nil && slices.Contains(w.sets[queue].Members(), rn.id) {
				it.holders[rn.id] = true
			}
		}
	}
	return nil
}

// checkAcked: an acknowledged intent not applied on chain is in some
// node's log unless every node that held it lost its disk.
func (w *realWorld) checkAcked(step int) error {
	for _, uid := range w.order {
		it := w.intents[uid]
		if !it.acked || w.applied[uid] > 0 || len(it.holders) == 0 || w.deposedL[uid] {
			continue
		}
		held := false
		for _, rn := range w.nodes {
			if logHolds(rn.logs[it.queue], uid) {
				held = true
				break
			}
		}
		switch {
		case held:
		case it.deposed && w.cfg.AckAfter == 0:
			w.deposedL[uid] = true
			w.res.DeposedLost++
		case it.deposed:
			return w.broken(step, SMMDeposedLost, "acknowledged %s of %s, taken in by a deposed primary, is in no log and not applied", uid, it.queue)
		default:
			return w.broken(step, SMMAckedLost, "acknowledged %s of %s is in no log and not applied; %v held it and kept their disks", uid, it.queue, w.names(it.holders))
		}
	}
	return nil
}

// names are the letters of a set of node ids, sorted.
func (w *realWorld) names(ids map[string]bool) []string {
	var out []string
	for id := range ids {
		out = append(out, w.nameOf(id))
	}
	slices.Sort(out)
	return out
}

// quiet is the quiet phase: faults off, partition healed, every node
// restarted; then, every realQuietTick of virtual time, every node runs
// its due jobs and dispatches, until the world converges or DrainBound
// passes.
func (w *realWorld) quiet(step int) error {
	w.mu.Lock()
	w.drop, w.side = 0, map[string]bool{}
	w.mu.Unlock()
	for _, rn := range w.nodes {
		if !rn.up {
			if err := w.open(rn); err != nil {
				return err
			}
		}
	}
	start := w.clk.Now()
	for {
		for _, rn := range w.nodes {
			for range 20 {
				ran, err := w.runJobs(rn, -1)
				if err != nil {
					return err
				}
				if ran == 0 {
					break
				}
			}
		}
		for _, q := range w.qs {
			for {
				sent, err := w.dispatch(q)
				if err != nil {
					return err
				}
				if sent == 0 {
					break
				}
			}
		}
		w.reap()
		if err := w.check(step); err != nil {
			return err
		}
		why, err := w.unconverged()
		if err != nil {
			return err
		}
		if why == "" {
			break
		}
		if w.clk.Now().Sub(start) > w.cfg.DrainBound {
			return w.broken(step, SMMConverged, "not converged %v after the faults stopped: %s", w.cfg.DrainBound, why)
		}
		if err := w.advance(realQuietTick); err != nil {
			return err
		}
	}
	w.res.Drain = w.clk.Now().Sub(start)
	if err := w.drainTasks(); err != nil {
		return err
	}
	for _, uid := range w.order {
		it := w.intents[uid]
		if !it.acked || w.applied[uid] == 1 || len(it.holders) == 0 {
			continue
		}
		switch {
		case (it.deposed || w.deposedL[uid]) && w.cfg.AckAfter == 0:
			if !w.deposedL[uid] {
				w.deposedL[uid] = true
				w.res.DeposedLost++
			}
		case it.deposed:
			return w.broken(step, SMMDeposedLost, "acknowledged %s of %s, taken in by a deposed primary, applied %d times at the end of the quiet phase", uid, it.queue, w.applied[uid])
		default:
			if debugSMM {
				w.dumpLogs(it.queue)
			}
			return w.broken(step, SMMAckedApplied, "acknowledged %s of %s applied %d times at the end of the quiet phase", uid, it.queue, w.applied[uid])
		}
	}
	return nil
}

// unconverged says why the world has not converged ("" when it has): for
// each queue with a set on chain, every member up, holding the chain's
// version and at the primary's head with the same hash; the set full
// (Replicas members: every node is up and healthy in the quiet phase);
// nothing WAITING at the primary.
func (w *realWorld) unconverged() (string, error) {
	for _, q := range w.qs {
		set, ok := w.chainSet(q)
		if !ok {
			continue
		}
		p := w.byID[set.Primary]
		if p == nil || !p.up {
			return fmt.Sprintf("%s's primary %s is down", q, w.nameOf(set.Primary)), nil
		}
		want := min(w.cfg.Replicas, len(w.nodes))
		if n := 1 + len(set.Secondaries); n < want {
			return fmt.Sprintf("%s's set has %d members, want %d", q, n, want), nil
		}
		ph, err := p.st.LogHead(w.ctx, q)
		if err != nil {
			return "", err
		}
		for _, m := range append([]string{set.Primary}, set.Secondaries...) {
			rn := w.byID[m]
			if rn == nil || !rn.up {
				return fmt.Sprintf("%s's member %s is down", q, w.nameOf(m)), nil
			}
			held, err := rn.st.ReplicaSet(w.ctx, q)
			if err != nil || held.Version != set.Version {
				return fmt.Sprintf("%s's member %s holds version %d, the chain %d", q, rn.name, held.Version, set.Version), nil
			}
			h, err := rn.st.LogHead(w.ctx, q)
			if err != nil {
				return "", err
			}
			if h.Clock != ph.Clock || h.Hash != ph.Hash {
				return fmt.Sprintf("%s's member %s at clock %d, its primary %s at %d", q, rn.name, h.Clock, p.name, ph.Clock), nil
			}
		}
		ws, err := p.st.Waiting(w.ctx, q, 0, 1)
		if err != nil {
			return "", err
		}
		if len(ws) > 0 {
			return fmt.Sprintf("%s's intent %s is WAITING at its primary %s", q, ws[0].UID, p.name), nil
		}
	}
	return "", nil
}

// runRealSMM runs actions on a new world of real nodes, checking after
// each, then the quiet phase.
func runRealSMM(cfg SMMConfig, actions []SMMAction) (SMMResult, error) {
	w, err := newRealWorld(cfg)
	if err != nil {
		return SMMResult{}, err
	}
	defer w.close()
	for i, a := range actions {
		if err := w.do(a); err != nil {
			return SMMResult{}, fmt.Errorf("sim smm: seed %d, step %d (%s): %w", cfg.Seed, i+1, a, err)
		}
		if err := w.check(i + 1); err != nil {
			return SMMResult{}, err
		}
	}
	if err := w.quiet(len(actions) + 1); err != nil {
		return SMMResult{}, err
	}
	if cfg.Replay {
		if err := w.replayTraces(); err != nil {
			return SMMResult{}, w.broken(len(actions)+1, SMMReplay, "%v", err)
		}
	}
	w.res.Steps = len(actions)
	w.res.Digest = w.digestWorld()
	return w.res, nil
}

// dumpLogs prints every up node's log and held set of queue (debugging).
func (w *realWorld) dumpLogs(queue string) {
	for _, rn := range w.nodes {
		if !rn.up {
			continue
		}
		set, _ := rn.st.ReplicaSet(w.ctx, queue)
		fmt.Fprintf(os.Stderr, "%s holds %s v%d primary %s secondaries %v:", rn.name, queue, set.Version, w.nameOf(set.Primary), set.Secondaries)
		es, _ := rn.st.LogAfter(w.ctx, queue, 0, 1000)
		for _, e := range es {
			c, _ := store.DecodeChange(e.Payload)
			fmt.Fprintf(os.Stderr, " %d:v%d:%v:%s", e.Clock, e.Version, c.Op, c.UID)
		}
		fmt.Fprintln(os.Stderr)
	}
}
