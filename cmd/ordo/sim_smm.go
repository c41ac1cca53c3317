package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ordolabs/ordo/internal/sim"
)

func simSMMCommand() *cobra.Command {
	var cfg sim.SMMConfig
	var sf simFlags
	ackAfter := 1
	cmd := &cobra.Command{
		Use:   "smm",
		Short: "Simulate the state machine manager (seed 004): the real smm nodes, replica sets, logs, failover, faults",
		Long: `Runs the real state machine manager nodes (internal/smm: its core and its driver,
the code that ships) in one process, deterministically: each node with its SQLite
store, its key registered on an in-process devchain, a sequencer of the simulation's,
on one virtual clock and a network that serves every request in the caller's
goroutine; one goroutine drives them. Actions drawn from the seed: intake at any node
(routed to the queue's primary by the real Submit), a node's due jobs run (monitor:
all of them; pull: one), dispatch of the oldest waiting intent at each primary,
the clock moved, message drops, partitions, crashes (with or without the disk),
restarts; invariants after every step (each node's core, every log a hash chain,
no intent applied twice, intake order, acknowledged intents kept); then a quiet
phase in which every set must converge, full, within the drain bound. Prints one
line per seed ending in the run's digest (the same seed and flags give the same
digest) and, with --seeds above 1, a summary line; a broken invariant prints the
seed, the step, the invariant and the shortest failing action list found.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch ackAfter {
			case 0:
				cfg.AckAfter = -1
			case 1:
				cfg.AckAfter = 1
			default:
				return fmt.Errorf("--ack-after: 0 or 1, not %d", ackAfter)
			}
			if sf.actions != "" {
				actions, err := readActions(sf.actions, "sim smm", sim.ParseSMMAction)
				if err != nil {
					return err
				}
				res, err := sim.RunSMMActions(cmd.Context(), cfg, actions)
				return reportSMM(cmd, cfg.Seed, res, err)
			}
			return sf.allSeeds(cmd.Context(), cmd.OutOrStdout(), "sim smm", cfg.Seed, func(s uint64) (bool, error) {
				c := cfg
				c.Seed = s
				res, err := sim.RunSMM(cmd.Context(), c)
				return false, reportSMM(cmd, s, res, err)
			})
		},
	}
	sf.register(cmd, &cfg.Seed, &cfg.Steps, 300, &cfg.ShrinkBudget)
	f := cmd.Flags()
	f.IntVar(&cfg.Nodes, "nodes", 5, "nodes (A, B, C, ...; at most 26)")
	f.IntVar(&cfg.Replicas, "replicas", 3, "members per replica set (the primary and replicas-1 secondaries)")
	f.IntVar(&cfg.Queues, "queues", 4, "replicated queues")
	f.IntVar(&ackAfter, "ack-after", 1, "0: acknowledge once the primary holds an intent; 1: once a secondary holds it too")
	f.DurationVar(&cfg.UnhealthyAfter, "unhealthy-after", 0, "how long a member is unhealthy before monitoring replaces it (0: 5s)")
	f.BoolVar(&cfg.Replay, "replay", false, "record every node's core trace and replay it at the end (as ordo replay does)")
	f.BoolVar(&cfg.NoWipes, "no-wipes", false, "crash nodes without losing their disks (wipe actions keep the disk)")
	f.DurationVar(&cfg.DrainBound, "drain-bound", sim.DefaultSMMDrainBound, "virtual time the quiet phase has to converge")
	return cmd
}

// reportSMM prints one smm run's line, or its violation with the failing
// trace, or the error that stopped the run (the simulation's own).
func reportSMM(cmd *cobra.Command, seed uint64, res sim.SMMResult, err error) error {
	var v *sim.SMMViolation
	if errors.As(err, &v) {
		return reportBroken(cmd, "sim smm", v.Seed, v.Step, v.Invariant, v.Detail, v.Trace)
	}
	if err != nil {
		fmt.Fprintf(cmd.OutOrStdout(), "sim smm seed=%d: FAIL at step 0: the run stopped: %v\n", seed, err)
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "sim smm seed %d: ok; steps %d, intents %d acked %d applied %d (duplicates refused %d), set updates %d (lost races %d), jobs %d, crashes %d (wipes %d), messages %d, deposed-order %d, deposed-lost %d, unacked-order %d, drain %v, replayed %d, digest %s\n",
		res.Seed, res.Steps, res.Intents, res.Acked, res.Applied, res.Duplicates, res.SetUpdates, res.LostRaces, res.Jobs,
		res.Crashes, res.Wipes, res.Messages, res.DeposedOrder, res.DeposedLost, res.UnackedOrder, res.Drain, res.Replayed, res.Digest)
	return nil
}
