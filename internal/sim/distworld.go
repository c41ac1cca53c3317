package sim

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/distseq/cluster"
	"github.com/ordolabs/ordo/internal/distseq/token"
	"github.com/ordolabs/ordo/internal/transport/simnet"
)

// distWorld is one run of the distributed-sequencer simulation: the
// cluster, what the run acknowledged, and the checker's memory.
type distWorld struct {
	cfg    DistConfig
	c      *cluster.Cluster
	active map[string]bool // contracts that receive intents
	armed  map[distseq.NodeID]*distArm
	down   map[distseq.NodeID]bool // seen down since the last check

	// acked is every acknowledged intent in order, sender by txID.
	acked  []string
	sender map[string]distseq.NodeID
	audit  distAudit
	seen   distSeen

	crashes, reorgs, refused int
	idleMsgs                 int

	// prepared: acknowledged prepare intents, and when the external
	// caller last sent each one's prepared transaction (and which).
	prepared map[string]*extSend
}

// distArm is a crash point armed on one node.
type distArm struct {
	after bool
	skip  int
}

// newDistWorld builds the cluster of cfg (its groups deployed and minted,
// its nodes started).
func newDistWorld(ctx context.Context, cfg DistConfig) (*distWorld, error) {
	w := &distWorld{cfg: cfg, active: map[string]bool{}, armed: map[distseq.NodeID]*distArm{}, down: map[distseq.NodeID]bool{},
		sender: map[string]distseq.NodeID{}, audit: newDistAudit(), seen: newDistSeen(), prepared: map[string]*extSend{}}
	for i := range cfg.Active {
		w.active[cluster.Group(i)] = true
	}
	c, err := cluster.New(ctx, cluster.Config{Nodes: cfg.Nodes, Seed: cfg.Seed, Contracts: cfg.Contracts, Coins: cfg.Coins,
		CoinAmount: 1000, Threshold: cfg.Threshold, FinalityDepth: cfg.FinalityDepth, Core: cfg.Core, OnStep: w.onStep})
	if err != nil {
		return nil, fmt.Errorf("sim: distseq cluster: %w", err)
	}
	w.c = c
	return w, nil
}

// onStep counts the messages about idle contracts and fires armed crash
// points.
func (w *distWorld) onStep(n *cluster.Node, in distseq.Input, r *distseq.Ready) cluster.Crash {
	// Not at an InputDispatched: the cluster's submitter poll goes on with
	// the transactions it listed before the crash (a nil dereference in
	// cluster.Node.pollSubmissions; reported to the cluster's owner).
	if _, polled := in.(distseq.InputDispatched); polled {
		return w.count(r)
	}
	if a := w.armed[n.ID]; a != nil && !r.Batch.Empty() {
		if a.skip > 0 {
			a.skip--
		} else {
			delete(w.armed, n.ID)
			w.crashes++
			w.down[n.ID] = true
			if a.after {
				return cluster.CrashAfterCommit
			}
			return cluster.CrashBeforeCommit
		}
	}
	return w.count(r)
}

// count counts the messages of r about idle contracts.
func (w *distWorld) count(r *distseq.Ready) cluster.Crash {
	for _, s := range r.Sends {
		if ct := s.Env.GetContractAddress(); ct != "" && !w.active[ct] {
			w.idleMsgs++
		}
	}
	return cluster.NoCrash
}

func (w *distWorld) node(i int) *cluster.Node {
	ns := w.c.Nodes()
	return ns[i%len(ns)]
}

// apply performs one action. An error is the harness's or the engine's (a
// Step that failed): the run cannot go on.
func (w *distWorld) apply(ctx context.Context, a DistAction) error {
	switch a.Kind {
	case DSubmit:
		n := w.node(a.Node)
		if !n.Up() {
			return nil
		}
		key := ""
		if a.Key > 0 {
			key = fmt.Sprintf("k%d", a.Key)
		}
		group := cluster.Group(a.Group % w.cfg.Active)
		submit := w.c.Submit
		if a.Prepare {
			submit = w.c.Prepare
		}
		id, err := submit(ctx, n.ID, group, token.Intent{From: cluster.Owner(n.ID), To: cluster.Owner(w.node(a.Node + 1).ID), Amount: a.Amount}, key)
		switch {
		case err == nil:
			if _, ok := w.sender[id]; !ok {
				w.sender[id] = n.ID
				w.acked = append(w.acked, id)
				if a.Prepare {
					w.prepared[id] = &extSend{}
				}
			}
		case !n.Up():
			// crashed at a crash point while taking it: not acknowledged
		default:
			w.refused++
		}
	case DAdvance:
		if err := w.external(ctx); err != nil {
			return err
		}
		return w.c.RunFor(ctx, time.Duration(a.DtMs)*time.Millisecond)
	case DNet:
		w.c.Net.SetFaults(simnet.Faults{Drop: a.Drop, Duplicate: a.Dup, Delay: a.Delay, DelayBy: simnet.Dist{Max: 3 * time.Second}, Reorder: a.Reorder})
	case DPartition:
		var in, out []distseq.NodeID
		for i, n := range w.c.Nodes() {
			if a.Mask&(1<<i) != 0 {
				in = append(in, n.ID)
			} else {
				out = append(out, n.ID)
			}
		}
		w.c.Partition(in, out)
	case DHeal:
		w.c.Heal()
	case DCrash:
		if n := w.node(a.Node); n.Up() {
			w.c.Crash(n.ID)
			w.crashes++
			w.down[n.ID] = true
		}
	case DArm:
		w.armed[w.node(a.Node).ID] = &distArm{after: a.After, skip: a.Skip}
	case DRestart:
		if n := w.node(a.Node); !n.Up() {
			w.down[n.ID] = true
			return w.c.Restart(ctx, n.ID)
		}
	case DLag:
		w.node(a.Node).Lag = a.K
	case DHold:
		w.node(a.Node).Hold = a.On
	case DReorg:
		k := min(a.K, w.cfg.FinalityDepth)
		if k == 0 || w.c.Head() <= k {
			return nil
		}
		if _, err := w.c.Chain.SetFaults(ctx, devchain.FaultUpdate{Reorg: &k}); err != nil {
			return err
		}
		w.reorgs++
	case DChain:
		d, r := a.Drop, a.Revert
		if _, err := w.c.Chain.SetFaults(ctx, devchain.FaultUpdate{DropProb: &d, RevertProb: &r}); err != nil {
			return err
		}
	default:
		return fmt.Errorf("sim: unknown distseq action %q", a.Kind)
	}
	return nil
}

// quiet stops every fault: the network clean and healed, the chain
// faultless, every crash point disarmed, every node up with its indexer at
// the final head.
func (w *distWorld) quiet(ctx context.Context) error {
	w.c.Net.SetFaults(simnet.Faults{})
	w.c.Heal()
	zero := 0.0
	if _, err := w.c.Chain.SetFaults(ctx, devchain.FaultUpdate{DropProb: &zero, RevertProb: &zero}); err != nil {
		return err
	}
	clear(w.armed)
	for _, n := range w.c.Nodes() {
		n.Lag, n.Hold = 0, false
		if !n.Up() {
			w.down[n.ID] = true
			if err := w.c.Restart(ctx, n.ID); err != nil {
				return err
			}
		}
	}
	return nil
}

// digest hashes every node's transitions, the network's digest and the
// chain's head.
func (w *distWorld) digest(ctx context.Context) (string, error) {
	h := sha256.New()
	for _, n := range w.c.Nodes() {
		for _, t := range n.Transitions {
			fmt.Fprintf(h, "%s|%s|%s|%s|%s\n", n.ID, t.Role, t.TxID, t.From, t.To)
		}
	}
	fmt.Fprintf(h, "net|%s\n", w.c.Net.Digest())
	head, err := w.c.Chain.Head(ctx)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(h, "head|%d|%s\n", head.Height, head.Hash)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// liveHeap is the live heap after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// runDistActions runs one action list: the actions with the checks after
// each, then the quiet phase and the liveness checks.
func runDistActions(ctx context.Context, cfg DistConfig, actions []DistAction, progress *atomic.Int64) (res DistResult, err error) {
	res = DistResult{Seed: cfg.Seed, Steps: len(actions), Idle: cfg.Contracts - cfg.Active}
	step := 0
	defer func() {
		// A panic in the engine or its harness is a broken run like any
		// other: reported with its step and trace, and shrunk.
		if r := recover(); r != nil {
			stack := strings.Split(string(debug.Stack()), "\n")
			err = &DistViolation{Seed: cfg.Seed, Step: step, Invariant: "panic",
				Detail: fmt.Sprintf("%v\n%s", r, strings.Join(stack[min(7, len(stack)):min(17, len(stack))], "\n"))}
		}
	}()
	w, err := newDistWorld(ctx, cfg)
	if err != nil {
		return res, err
	}
	defer w.c.Close()

	res.Heap[0] = liveHeap()
	broke := func(step int, err error) error {
		var v *DistViolation
		if errors.As(err, &v) {
			v.Seed, v.Step = cfg.Seed, step
			return v
		}
		if ctx.Err() != nil {
			return err
		}
		// A Step that failed is the engine's fault: report it with its trace.
		return &DistViolation{Seed: cfg.Seed, Step: step, Invariant: "engine-error", Detail: err.Error()}
	}
	if err := w.check(ctx); err != nil {
		return res, broke(0, err)
	}
	for i, a := range actions {
		step = i + 1
		progress.Store(int64(step))
		if err := w.apply(ctx, a); err != nil {
			return res, broke(i+1, err)
		}
		if cfg.mutate != nil {
			cfg.mutate(w, i+1)
		}
		if err := w.check(ctx); err != nil {
			return res, broke(i+1, err)
		}
		if i == len(actions)/2 {
			res.Heap[1] = liveHeap()
		}
	}
	drainStep := len(actions) + 1
	step = drainStep
	progress.Store(int64(step))
	if err := w.quiet(ctx); err != nil {
		return res, broke(drainStep, err)
	}
	start := w.c.Now()
	if err := w.drain(ctx); err != nil {
		return res, broke(drainStep, err)
	}
	res.Drain = w.c.Now().Sub(start)
	if err := w.holdsAll(ctx, true); err != nil {
		return res, broke(drainStep, err)
	}
	// Let the contracts go idle, then measure what they hold.
	idle := cfg.Core.IdleAfter
	if idle <= 0 {
		idle = distseq.DefaultIdleAfter
	}
	if err := w.c.RunFor(ctx, 3*idle); err != nil {
		return res, broke(drainStep, err)
	}
	if err := w.check(ctx); err != nil {
		return res, broke(drainStep, err)
	}
	res.Heap[2] = liveHeap()
	res.Active = map[distseq.NodeID]int{}
	for _, n := range w.c.Nodes() {
		res.Active[n.ID] = n.Core().Active()
	}
	res.Intents = len(w.acked)
	for _, id := range w.acked {
		switch w.seen.final[id] {
		case distseq.Confirmed:
			res.Confirmed++
		case distseq.Reverted:
			res.Reverted++
		default: // not final: counted in neither
		}
	}
	res.Messages = w.c.Net.Stats().Sent
	res.IdleMessages, res.Crashes, res.Reorgs = w.idleMsgs, w.crashes, w.reorgs
	res.Digest, err = w.digest(ctx)
	return res, err
}
