package main

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ordolabs/ordo/internal/sim"
)

func simDistseqCommand() *cobra.Command {
	var cfg sim.DistConfig
	var sf simFlags
	cmd := &cobra.Command{
		Use:   "distseq",
		Short: "Simulate the distributed sequencer (seed 003): N nodes, an in-memory network and devchain with faults, reorgs and crashes",
		Long: `Runs N distributed-sequencer nodes (the real core, each with its store, on one
in-memory network and one devchain, on a virtual clock): random intents at random
members on random active contracts, with network drops, duplicates, delays and
reorders, partitions and heals, node crashes (also at the crash points before and
after a commit) and restarts, indexer lag and holds, chain drops, reverts and reorgs
within the finality depth, all drawn from the seed; invariants checked after every
step; then a quiet phase without faults in which every acknowledged intent must end
Confirmed or Reverted, and every member hold every unspent state, within the drain
bound. Prints one line per seed ending in the run's digest (the same seed gives the
same digest); a broken invariant exits 1 with the seed, the step, the invariant and
the shortest failing action list found. With --contracts above --active it also
prints the live heap at the start, middle and end, the messages per idle contract
and each node's active contracts.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if sf.actions != "" {
				actions, err := readActions(sf.actions, "sim distseq", sim.ParseDistAction)
				if err != nil {
					return err
				}
				res, err := sim.RunDistseqActions(cmd.Context(), cfg, actions)
				return reportDist(cmd, res, err)
			}
			return sf.allSeeds(cmd.Context(), cmd.OutOrStdout(), "sim distseq", cfg.Seed, func(s uint64) (bool, error) {
				c := cfg
				c.Seed = s
				res, err := sim.RunDistseq(cmd.Context(), c)
				rerr := reportDist(cmd, res, err)
				var v *sim.DistViolation
				if rerr != nil && errors.As(err, &v) && v.Invariant == sim.DistStuck {
					fmt.Fprintf(cmd.OutOrStdout(), "sim distseq: stopping after seed %d (a stuck run's goroutine spins on)\n", s)
					return true, rerr
				}
				return false, rerr
			})
		},
	}
	sf.register(cmd, &cfg.Seed, &cfg.Steps, 300, &cfg.ShrinkBudget)
	f := cmd.Flags()
	f.IntVar(&cfg.Nodes, "nodes", 4, "committee size (nodes A, B, C, ...)")
	f.IntVar(&cfg.Contracts, "contracts", 1, "privacy groups the committee shares")
	f.IntVar(&cfg.Active, "active", 0, "how many of the groups receive intents (0: all of them)")
	f.IntVar(&cfg.Threshold, "threshold", 0, "endorsements each transaction needs (0: all members)")
	f.IntVar(&cfg.Coins, "coins", 0, "coins of 1000 minted per group (0: 200, or 4 when more than 100 groups are idle)")
	f.Uint64Var(&cfg.FinalityDepth, "finality", 2, "the chain's finality depth: indexers read blocks this deep, reorgs are at most this deep")
	f.DurationVar(&cfg.DrainBound, "drain-bound", sim.DefaultDistDrainBound, "virtual time the quiet phase has to settle every intent and state")
	f.DurationVar(&cfg.StepTimeout, "step-timeout", 20*time.Second, "wall time one action may take before the run is reported stuck (the rest of the seeds are then not run)")
	f.Uint64Var(&cfg.Core.RangeSize, "range-size", 10, "blocks per coordinator range")
	return cmd
}

// reportDist prints one distseq run's line (and, with idle contracts, its
// memory and idleness line), or its violation with the failing trace.
func reportDist(cmd *cobra.Command, res sim.DistResult, err error) error {
	var v *sim.DistViolation
	if errors.As(err, &v) {
		return reportBroken(cmd, "sim distseq", v.Seed, v.Step, v.Invariant, v.Detail, v.Trace)
	}
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "sim distseq seed %d: ok; steps %d, intents %d confirmed %d reverted %d, messages %d, digest %s\n",
		res.Seed, res.Steps, res.Intents, res.Confirmed, res.Reverted, res.Messages, res.Digest)
	if res.Idle > 0 {
		var act []string
		for _, id := range slices.Sorted(maps.Keys(res.Active)) {
			act = append(act, fmt.Sprintf("%s %d", id, res.Active[id]))
		}
		mib := func(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
		fmt.Fprintf(out, "sim distseq seed %d: heap start %s, middle %s, end %s; messages per idle contract %.4f (%d over %d idle); active contracts per node: %s\n",
			res.Seed, mib(res.Heap[0]), mib(res.Heap[1]), mib(res.Heap[2]), float64(res.IdleMessages)/float64(res.Idle), res.IdleMessages, res.Idle,
			strings.Join(act, ", "))
	}
	return nil
}
