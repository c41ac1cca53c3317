package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ordolabs/ordo/internal/sim"
)

func simCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sim",
		Short: "Deterministic simulations of ordo's engines: random inputs, faults and crashes from a seed, invariants after every step",
	}
	cmd.AddCommand(simSequencerCommand(), simProcessorCommand())
	return cmd
}

func simSequencerCommand() *cobra.Command {
	var cfg sim.SequencerConfig
	var seeds uint64
	var trace, actionsFile string
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
			if actionsFile != "" {
				return runActionsFile(cmd, cfg, actionsFile)
			}
			first := cfg.Seed
			for s := first; s < first+max(seeds, 1); s++ {
				cfg.Seed = s
				res, err := sim.RunSequencer(cmd.Context(), cfg)
				if err := report(cmd, res, err); err != nil {
					return err
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.Uint64Var(&cfg.Seed, "seed", 1, "seed of the run (the first seed with --seeds)")
	f.Uint64Var(&seeds, "seeds", 1, "run this many seeds, from --seed on")
	f.IntVar(&cfg.Steps, "steps", 2000, "actions per run")
	f.IntVar(&cfg.Queues, "queues", 8, "queues intents go to")
	f.IntVar(&cfg.Senders, "senders", 4, "sender accounts of the node")
	f.BoolVar(&cfg.NoBlockReader, "no-block-reader", false, "hide the chain's blocks from the node: it polls each waiting attempt's status on every head")
	f.IntVar(&cfg.WorkerSenders, "worker-senders", 0, "how many of the senders are worker senders (their remote worker loses one answer in ten)")
	f.Uint64Var(&cfg.ReorgDepth, "reorg-depth", 2, "deepest reorg drawn (the node waits depth+1 confirmations)")
	f.DurationVar(&cfg.ShrinkBudget, "shrink", 0, "wall time to spend shrinking a failing trace (0: 60s, negative: none)")
	f.StringVar(&actionsFile, "actions", "", "run this action list (a printed failing trace) with --seed instead of drawing one")
	f.StringVar(&trace, "trace", "", "record the sequencer's inputs and Readys to this file (ordo replay checks it)")
	return cmd
}

// report prints one run's line, or its violation with the failing trace.
func report(cmd *cobra.Command, res sim.SequencerResult, err error) error {
	out := cmd.OutOrStdout()
	var v *sim.Violation
	if errors.As(err, &v) {
		fmt.Fprintf(out, "sim sequencer seed=%d: FAIL at step %d: %s: %s\n", v.Seed, v.Step, v.Invariant, v.Detail)
		fmt.Fprintf(out, "shortest failing trace (%d actions; run it again with --seed %d --actions FILE):\n", len(v.Trace), v.Seed)
		for i, a := range v.Trace {
			fmt.Fprintf(out, "  %4d %s\n", i+1, a)
		}
		cmd.SilenceUsage = true
		return fmt.Errorf("invariant broken: %s", v.Invariant)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "sim sequencer seed=%d steps=%d: ok; intents %d (done %d, failed %d), blocks %d, faults %d, crashes %d, drain %v; digest %s\n",
		res.Seed, res.Steps, res.Intents, res.Done, res.Failed, res.Blocks, res.Faults, res.Crashes, res.Drain, res.Digest)
	return nil
}

// runActionsFile runs the action list in path: the lines of a printed
// failing trace (other lines of the printout are skipped).
func runActionsFile(cmd *cobra.Command, cfg sim.SequencerConfig, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var actions []sim.Action
	for i, line := range strings.Split(string(b), "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "sim sequencer") || strings.HasPrefix(t, "shortest failing trace") || strings.HasPrefix(t, "ordo:") {
			continue
		}
		a, err := sim.ParseAction(t)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
		actions = append(actions, a)
	}
	cfg.Steps = len(actions)
	res, err := sim.RunSequencerActions(cmd.Context(), cfg, actions)
	return report(cmd, res, err)
}

func simProcessorCommand() *cobra.Command {
	var cfg sim.ProcessorConfig
	var seeds uint64
	var actionsFile string
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
			if actionsFile != "" {
				actions, err := readProcActions(actionsFile)
				if err != nil {
					return err
				}
				res, err := sim.RunProcessorActions(cmd.Context(), cfg, actions)
				return reportProc(cmd, res, err)
			}
			first := cfg.Seed
			for s := first; s < first+max(seeds, 1); s++ {
				cfg.Seed = s
				res, err := sim.RunProcessor(cmd.Context(), cfg)
				if err := reportProc(cmd, res, err); err != nil {
					return err
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.Uint64Var(&cfg.Seed, "seed", 1, "seed of the run (the first seed with --seeds)")
	f.Uint64Var(&seeds, "seeds", 1, "run this many seeds, from --seed on")
	f.IntVar(&cfg.Steps, "steps", 400, "actions per run")
	f.DurationVar(&cfg.ShrinkBudget, "shrink", 0, "wall time to spend shrinking a failing trace (0: 60s, negative: none)")
	f.StringVar(&actionsFile, "actions", "", "run this action list (a printed failing trace) with --seed instead of drawing one")
	return cmd
}

// reportProc prints one processor run's line, or its violation with the
// failing trace.
func reportProc(cmd *cobra.Command, res sim.ProcessorResult, err error) error {
	out := cmd.OutOrStdout()
	var v *sim.ProcViolation
	if errors.As(err, &v) {
		fmt.Fprintf(out, "sim processor seed=%d: FAIL at step %d: %s: %s\n", v.Seed, v.Step, v.Invariant, v.Detail)
		fmt.Fprintf(out, "shortest failing trace (%d actions; run it again with --seed %d --actions FILE):\n", len(v.Trace), v.Seed)
		for i, a := range v.Trace {
			fmt.Fprintf(out, "  %4d %s\n", i+1, a)
		}
		cmd.SilenceUsage = true
		return fmt.Errorf("invariant broken: %s", v.Invariant)
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

// readProcActions reads the action list in path: the lines of a printed
// failing trace (other lines of the printout are skipped).
func readProcActions(path string) ([]sim.ProcAction, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var actions []sim.ProcAction
	for i, line := range strings.Split(string(b), "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "sim processor") || strings.HasPrefix(t, "shortest failing trace") || strings.HasPrefix(t, "ordo:") {
			continue
		}
		a, err := sim.ParseProcAction(t)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
		actions = append(actions, a)
	}
	return actions, nil
}
