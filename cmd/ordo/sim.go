package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ordolabs/ordo/internal/sim"
)

func simCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sim",
		Short: "Deterministic simulations of ordo's engines: random inputs, faults and crashes from a seed, invariants after every step",
	}
	cmd.AddCommand(simSequencerCommand(), simProcessorCommand(), simLeaderCommand())
	cmd.AddCommand(simDistseqCommand())
	cmd.AddCommand(simSMMCommand())
	return cmd
}

func simSequencerCommand() *cobra.Command {
	var cfg sim.SequencerConfig
	var sf simFlags
	var trace string
	cmd := &cobra.Command{
		Use:   "sequencer",
		Short: "Simulate the sequencer (seed 000) against devchain with faults and crashes",
		Long: `Runs the real sequencer core and driver loop against an in-process devchain on a
virtual clock: random intake, chain faults (reject, drop, revert, fee spike, stall,
reorg) and node crashes drawn from the seed, invariants checked after every step.
Prints one line per seed ending in the run's digest (the same seed gives the same
digest); a broken invariant exits 1 with the seed, the step, the invariant and the
shortest failing action list found.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if trace != "" {
				f, err := os.Create(trace)
				if err != nil {
					return err
				}
				defer f.Close()
				cfg.Trace = f
			}
			if sf.actions != "" {
				actions, err := readActions(sf.actions, "sim sequencer", sim.ParseAction)
				if err != nil {
					return err
				}
				cfg.Steps = len(actions)
				res, err := sim.RunSequencerActions(cmd.Context(), cfg, actions)
				return report(cmd, res, err)
			}
			return sf.eachSeed(cfg.Seed, func(seed uint64) error {
				cfg.Seed = seed
				res, err := sim.RunSequencer(cmd.Context(), cfg)
				return report(cmd, res, err)
			})
		},
	}
	sf.register(cmd, &cfg.Seed, &cfg.Steps, 2000, &cfg.ShrinkBudget)
	f := cmd.Flags()
	f.IntVar(&cfg.Queues, "queues", 8, "queues intents go to")
	f.IntVar(&cfg.Senders, "senders", 4, "sender accounts of the node")
	f.BoolVar(&cfg.NoBlockReader, "no-block-reader", false, "hide the chain's blocks from the node: it polls each waiting attempt's status on every head")
	f.IntVar(&cfg.WorkerSenders, "worker-senders", 0, "how many of the senders are worker senders (their remote worker loses one answer in ten)")
	f.Uint64Var(&cfg.ReorgDepth, "reorg-depth", 2, "deepest reorg drawn (the node waits depth+1 confirmations)")
	f.IntVar(&cfg.Pipeline, "pipeline", 0, "give the even-numbered queues this many transactions in flight, nonce-ordered on one sender (0 or 1: one per queue)")
	f.BoolVar(&cfg.PureHooks, "pure-hooks", false, "declare the types' hooks pure (they return the result as given): the loop runs them before the end's commit, which then carries the result")
	f.StringVar(&trace, "trace", "", "record the sequencer's inputs and Readys to this file (ordo replay checks it)")
	return cmd
}

// report prints one run's line, or its violation with the failing trace.
func report(cmd *cobra.Command, res sim.SequencerResult, err error) error {
	out := cmd.OutOrStdout()
	var v *sim.Violation
	if errors.As(err, &v) {
		return reportBroken(cmd, "sim sequencer", v.Seed, v.Step, v.Invariant, v.Detail, v.Trace)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "sim sequencer seed=%d steps=%d: ok; intents %d (done %d, failed %d), blocks %d, faults %d, crashes %d, drain %v; digest %s\n",
		res.Seed, res.Steps, res.Intents, res.Done, res.Failed, res.Blocks, res.Faults, res.Crashes, res.Drain, res.Digest)
	return nil
}

func simProcessorCommand() *cobra.Command {
	var cfg sim.ProcessorConfig
	var sf simFlags
	cmd := &cobra.Command{
		Use:   "processor",
		Short: "Simulate the processor (seed 002) over the sequencer and devchain with failing library methods and crashes",
		Long: `Runs the real processor and sequencer cores and driver loops over one SQLite store
against an in-process devchain on a virtual clock: processors, batches (atomic and
non-atomic, retries, confirmations, positions, expirations), ticks, pauses, removals,
failing library methods, confirmations by owner and by chain event, a callback
receiver that refuses one delivery in five, and node crashes (also between a tick's
commit and its effects) drawn from the seed, invariants checked after every step and
a drain without faults at the end. Prints one line per seed ending in the run's
digest; a broken invariant exits 1 with the seed, the step, the invariant and the
shortest failing action list found.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if sf.actions != "" {
				actions, err := readActions(sf.actions, "sim processor", sim.ParseProcAction)
				if err != nil {
					return err
				}
				res, err := sim.RunProcessorActions(cmd.Context(), cfg, actions)
				return reportProc(cmd, res, err)
			}
			return sf.eachSeed(cfg.Seed, func(seed uint64) error {
				cfg.Seed = seed
				res, err := sim.RunProcessor(cmd.Context(), cfg)
				return reportProc(cmd, res, err)
			})
		},
	}
	sf.register(cmd, &cfg.Seed, &cfg.Steps, 400, &cfg.ShrinkBudget)
	return cmd
}

// reportProc prints one processor run's line, or its violation with the
// failing trace.
func reportProc(cmd *cobra.Command, res sim.ProcessorResult, err error) error {
	out := cmd.OutOrStdout()
	var v *sim.ProcViolation
	if errors.As(err, &v) {
		return reportBroken(cmd, "sim processor", v.Seed, v.Step, v.Invariant, v.Detail, v.Trace)
	}
	if err != nil {
		return err
	}
	var outcomes []string
	for _, s := range []string{"Executed", "PartiallyExecuted", "Rejected", "Expired", "RemovedByOwner"} {
		outcomes = append(outcomes, fmt.Sprintf("%s %d", s, res.Outcomes[s]))
	}
	fmt.Fprintf(out, "sim processor seed=%d steps=%d: ok; batches %d (%s), executions %d, landings %d, ticks %d, confirmations %d (by event %d), deliveries %d (refused %d), blocks %d, crashes %d (cutting short %d submits, %d deliveries), drain %v; digest %s\n",
		res.Seed, res.Steps, res.Batches, strings.Join(outcomes, ", "), res.Executions, res.Landings, res.Ticks, res.Confirmed, res.ChainConfirms, res.Deliveries, res.Refused,
		res.Blocks, res.Crashes, res.CutEffects["submit"], res.CutEffects["deliver"], res.Drain, res.Digest)
	return nil
}

func simLeaderCommand() *cobra.Command {
	var cfg sim.LeaderConfig
	var sf simFlags
	cmd := &cobra.Command{
		Use:   "leader",
		Short: "Simulate the leader (seed 001) over the sequencer and devchain with lying tools, reorgs and crashes",
		Long: `Runs the real leader and sequencer cores and driver loops over one SQLite store
against an in-process devchain (workflow and registry) on a virtual clock: walk
requests (some breaking the tool's input schema, some for no tool), tools whose every
invocation is correct, slow, 5xx, 4xx or a lie about its output schema, tool
re-registrations, reorgs within the chain's finality, a competing leader reporting
first, reverted and rejected result transactions (channel blocking), and node crashes
(also between a turn's commit and its effects) drawn from the seed, invariants checked
after every step and a drain without faults at the end. Prints one line per seed
ending in the run's digest; a broken invariant exits 1 with the seed, the step, the
invariant and the shortest failing action list found.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if sf.actions != "" {
				actions, err := readActions(sf.actions, "sim leader", sim.ParseLeadAction)
				if err != nil {
					return err
				}
				res, err := sim.RunLeaderActions(cmd.Context(), cfg, actions)
				return reportLeader(cmd, res, err)
			}
			return sf.eachSeed(cfg.Seed, func(seed uint64) error {
				cfg.Seed = seed
				res, err := sim.RunLeader(cmd.Context(), cfg)
				return reportLeader(cmd, res, err)
			})
		},
	}
	sf.register(cmd, &cfg.Seed, &cfg.Steps, 300, &cfg.ShrinkBudget)
	return cmd
}

// reportLeader prints one leader run's line, or its violation with the
// failing trace.
func reportLeader(cmd *cobra.Command, res sim.LeaderResult, err error) error {
	var v *sim.LeadViolation
	if errors.As(err, &v) {
		return reportBroken(cmd, "sim leader", v.Seed, v.Step, v.Invariant, v.Detail, v.Trace)
	}
	if err != nil {
		return err
	}
	var inv []string
	for _, b := range []string{"correct", "slow", "5xx", "4xx", "lie"} {
		inv = append(inv, fmt.Sprintf("%s %d", b, res.Invocations[b]))
	}
	fmt.Fprintf(cmd.OutOrStdout(), "sim leader seed=%d steps=%d: ok; accounts %d, channels %d, tools %d; requests %d (on chain %d), successful %d, dead %d; results ours %d, rival's %d; invocations (%s); channel blocks %d, registers %d, reorgs %d, crashes %d (cutting short %d executions, %d reports), blocks %d, drain %v; digest %s\n",
		res.Seed, res.Steps, res.Accounts, res.Channels, res.Tools, res.Requests, res.Requested, res.Successful, res.Dead, res.Ours, res.Theirs,
		strings.Join(inv, ", "), res.Blocked, res.Registers, res.Reorgs, res.Crashes, res.CutEffects["execute"], res.CutEffects["report"], res.Blocks, res.Drain, res.Digest)
	return nil
}

// simFlags are the flags both sim subcommands share besides their config's:
// how many seeds to run, or an action list to run instead.
type simFlags struct {
	seeds   uint64
	actions string
}

// register adds the shared flags to cmd: --seed, --seeds, --steps (default
// steps), --shrink and --actions.
func (sf *simFlags) register(cmd *cobra.Command, seed *uint64, steps *int, defaultSteps int, shrink *time.Duration) {
	f := cmd.Flags()
	f.Uint64Var(seed, "seed", 1, "seed of the run (the first seed with --seeds)")
	f.Uint64Var(&sf.seeds, "seeds", 1, "run this many seeds, from --seed on")
	f.IntVar(steps, "steps", defaultSteps, "actions per run")
	f.DurationVar(shrink, "shrink", 0, "wall time to spend shrinking a failing trace (0: 60s, negative: none)")
	f.StringVar(&sf.actions, "actions", "", "run this action list (a printed failing trace) with --seed instead of drawing one")
}

// eachSeed runs run with each of the --seeds seeds from first on (at least
// one), until one returns an error.
func (sf *simFlags) eachSeed(first uint64, run func(seed uint64) error) error {
	for s := first; s < first+max(sf.seeds, 1); s++ {
		if err := run(s); err != nil {
			return err
		}
	}
	return nil
}

// allSeeds runs run with each of the --seeds seeds from first on (at least
// one), on past a failed one unless run says stop (or ctx ended), and, with
// several seeds, prints "<name> seeds a-b: P passed, F failed". It returns
// the first seed's error.
func (sf *simFlags) allSeeds(ctx context.Context, w io.Writer, name string, first uint64, run func(seed uint64) (stop bool, err error)) error {
	var passed, failed uint64
	var firstErr error
	for s := first; s < first+max(sf.seeds, 1); s++ {
		stop, err := run(s)
		if err == nil {
			passed++
			continue
		}
		failed++
		if firstErr == nil {
			firstErr = err
		}
		if stop || ctx.Err() != nil {
			break
		}
	}
	if sf.seeds > 1 {
		fmt.Fprintf(w, "%s seeds %d-%d: %d passed, %d failed\n", name, first, first+sf.seeds-1, passed, failed)
	}
	return firstErr
}

// reportBroken prints a broken invariant of a run (its line begins with
// name) with its failing trace, and returns the command's error.
func reportBroken[A fmt.Stringer](cmd *cobra.Command, name string, seed uint64, step int, inv, detail string, trace []A) error {
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "%s seed=%d: FAIL at step %d: %s: %s\n", name, seed, step, inv, detail)
	fmt.Fprintf(out, "shortest failing trace (%d actions; run it again with --seed %d --actions FILE):\n", len(trace), seed)
	for i, a := range trace {
		fmt.Fprintf(out, "  %4d %s\n", i+1, a)
	}
	cmd.SilenceUsage = true
	return fmt.Errorf("invariant broken: %s", inv)
}

// readActions reads the action list in path: the lines of a printed failing
// trace, each read with parse (the other lines of the printout, among them
// those that begin with name, are skipped).
func readActions[A any](path, name string, parse func(string) (A, error)) ([]A, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var actions []A
	for i, line := range strings.Split(string(b), "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, name) || strings.HasPrefix(t, "shortest failing trace") || strings.HasPrefix(t, "ordo:") {
			continue
		}
		a, err := parse(t)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
		actions = append(actions, a)
	}
	return actions, nil
}
