package sim

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/distseq"
)

// DistConfig configures a distributed-sequencer simulation (seed 003).
type DistConfig struct {
	// Seed draws every action and seeds the cluster (network, chain, keys).
	Seed uint64
	// Steps is how many actions to draw. Defaults to 300.
	Steps int
	// Nodes is the committee size. Defaults to 4.
	Nodes int
	// Contracts is how many privacy groups the committee shares. Defaults
	// to 1.
	Contracts int
	// Active is how many of them (the first ones) receive intents; the
	// rest stay idle. Defaults to Contracts.
	Active int
	// Threshold is each group's endorsement threshold (0: all members).
	// Defaults to 0.
	Threshold int
	// Coins is how many coins of 1000 each group is minted. Defaults to
	// 200, or 4 when more than 100 groups are idle (their mints cost blocks
	// and memory, and no intent spends them).
	Coins int
	// FinalityDepth is the chain's declared reorg depth: the indexers read
	// blocks at least this deep, and the reorgs drawn are at most this
	// deep. Defaults to 2.
	FinalityDepth uint64
	// DrainBound is how much virtual time every acknowledged intent has to
	// end Confirmed or Reverted, and every member to hold every unspent
	// state, once the faults stop. Defaults to DefaultDistDrainBound.
	DrainBound time.Duration
	// Core is the template of every node's core timing (RangeSize defaults
	// to 10).
	Core distseq.CoreConfig
	// StepTimeout is the wall time one action may take before the run is
	// reported stuck (an engine that never returns from a Step). Defaults
	// to 20s.
	StepTimeout time.Duration
	// Clock measures ShrinkBudget. Defaults to the wall clock.
	Clock clock.Clock
	// ShrinkBudget bounds the wall time spent looking for a shorter failing
	// action list. Defaults to 60s; negative: no shrinking.
	ShrinkBudget time.Duration
	// mutate, when set (the checker's self-test), is called after every
	// action, before the checks, and may plant a fault for them to find.
	mutate func(w *distWorld, step int)
}

// DefaultDistDrainBound is DistConfig.DrainBound's default: a minute for the
// protocol to settle once the faults stop (heartbeats missed, delegations
// timed out, ranges turned) plus the core's ParkTimeout, which an intent
// parked for want of unlocked coins may wait out before it ends Reverted.
const DefaultDistDrainBound = time.Minute + distseq.DefaultParkTimeout

func (c *DistConfig) setDefaults() {
	if c.Steps <= 0 {
		c.Steps = 300
	}
	if c.Nodes <= 0 {
		c.Nodes = 4
	}
	if c.Contracts <= 0 {
		c.Contracts = 1
	}
	if c.Active <= 0 || c.Active > c.Contracts {
		c.Active = c.Contracts
	}
	if c.Coins <= 0 {
		c.Coins = 200
		if c.Contracts-c.Active > 100 {
			c.Coins = 4
		}
	}
	if c.FinalityDepth == 0 {
		c.FinalityDepth = 2
	}
	if c.StepTimeout <= 0 {
		c.StepTimeout = 20 * time.Second
	}
	if c.DrainBound <= 0 {
		c.DrainBound = DefaultDistDrainBound
	}
	var dir string
	runDefaults(&dir, &c.Clock, &c.ShrinkBudget)
}

// DistResult is what a passing distributed-sequencer run did.
type DistResult struct {
	Seed  uint64
	Steps int
	// Intents acknowledged, and how they ended.
	Intents, Confirmed, Reverted int
	// Messages the network was given (simnet Stats.Sent).
	Messages int
	// IdleMessages counts the messages about idle contracts; Idle is how
	// many contracts were idle.
	IdleMessages, Idle int
	// Heap is the live heap (bytes, after a GC) at the start, the middle
	// and the end of the run.
	Heap [3]uint64
	// Active is core.Active() per node at the end.
	Active map[distseq.NodeID]int
	// Crashes (actions and crash points), Reorgs made.
	Crashes, Reorgs int
	// Drain is the virtual time the quiet phase took to settle.
	Drain time.Duration
	// Digest is a SHA-256 over every node's transitions, the network's
	// digest and the chain's head: the same seed gives the same digest.
	Digest string
}

// DistViolation is a broken invariant of a distributed-sequencer run;
// RunDistseq returns it as its error.
type DistViolation struct {
	Seed uint64
	// Step is the action (from 1) after which the invariant broke; Steps+1
	// means during the quiet phase after the last action.
	Step      int
	Invariant string
	Detail    string
	// Trace is the shortest failing action list found.
	Trace []DistAction
}

func (v *DistViolation) Error() string {
	return fmt.Sprintf("seed %d, step %d: %s: %s", v.Seed, v.Step, v.Invariant, v.Detail)
}

func (v *DistViolation) broke() (int, string)        { return v.Step, v.Invariant }
func (v *DistViolation) setTrace(trace []DistAction) { v.Trace = trace }

// RunDistseq runs one distributed-sequencer simulation. A broken invariant
// is returned as a *DistViolation, its action list shrunk within
// ShrinkBudget.
func RunDistseq(ctx context.Context, cfg DistConfig) (DistResult, error) {
	cfg.setDefaults()
	actions := genDistActions(cfg.Seed, cfg.Steps, cfg.Nodes, cfg.Active, cfg.FinalityDepth)
	res, err := runDistWatched(ctx, cfg, actions)
	var v *DistViolation
	if errors.As(err, &v) && v.Invariant == DistStuck {
		// Each rerun of a stuck run would leave a goroutine spinning.
		return res, traced[DistAction, *DistViolation](err, actions)
	}
	return runShrunk[DistAction, DistResult, *DistViolation](ctx, actions, func(context.Context, []DistAction) (DistResult, error) {
		return res, err
	}, func(ctx context.Context, cand []DistAction) error {
		_, err := runDistWatched(ctx, cfg, cand)
		return err
	}, cfg.Clock, cfg.ShrinkBudget)
}

// RunDistseqActions runs a given action list (a printed failing trace, read
// back with ParseDistAction) with cfg's seed, without shrinking.
func RunDistseqActions(ctx context.Context, cfg DistConfig, actions []DistAction) (DistResult, error) {
	cfg.setDefaults()
	res, err := runDistWatched(ctx, cfg, actions)
	return res, traced[DistAction, *DistViolation](err, actions)
}

// DistStuck is the invariant of a run whose action did not return within
// StepTimeout of wall time. Its goroutine cannot be stopped: a program that
// meets it should report and exit.
const DistStuck = "stuck"

// runDistWatched runs actions in a goroutine and reports the run stuck when
// one action takes longer than cfg.StepTimeout of wall time, with the
// stack of the goroutine that spins.
func runDistWatched(ctx context.Context, cfg DistConfig, actions []DistAction) (DistResult, error) {
	type out struct {
		res DistResult
		err error
	}
	done := make(chan out, 1)
	var step atomic.Int64
	go func() {
		res, err := runDistActions(ctx, cfg, actions, &step)
		done <- out{res, err}
	}()
	tick := time.NewTicker(cfg.StepTimeout / 4)
	defer tick.Stop()
	last, still := int64(-1), 0
	for {
		select {
		case o := <-done:
			return o.res, o.err
		case <-tick.C:
			if s := step.Load(); s != last {
				last, still = s, 0
				continue
			}
			if still++; still < 4 {
				continue
			}
			return DistResult{}, &DistViolation{Seed: cfg.Seed, Step: int(last), Invariant: DistStuck,
				Detail: fmt.Sprintf("an action did not return within %v of wall time; the spinning goroutine:\n%s", cfg.StepTimeout, spinning())}
		}
	}
}

// spinning is the stack of the goroutine running runDistActions, function
// names only.
func spinning() string {
	var b strings.Builder
	if err := pprof.Lookup("goroutine").WriteTo(&b, 2); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	for _, g := range strings.Split(b.String(), "\n\n") {
		if !strings.Contains(g, "runDistActions") {
			continue
		}
		var fns []string
		for _, l := range strings.Split(g, "\n") {
			if l != "" && !strings.HasPrefix(l, "\t") && !strings.HasPrefix(l, "goroutine ") {
				fns = append(fns, "    "+l)
			}
			if len(fns) == 14 {
				break
			}
		}
		return strings.Join(fns, "\n")
	}
	return "(not found)"
}
