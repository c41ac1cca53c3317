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
		Short: "Simulate the state machine manager's replication protocol (seed 004) as a model: replica sets, logs, failover, faults",
		Long: `Runs a deterministic MODEL of the state machine manager's replication protocol
(issue 12) in one goroutine on a virtual clock: the real driver runs on goroutines
and cannot be stepped from a seed, so the model is built on the protocol's real pure
pieces (replog.Seal and replog.Extend, smm.FindSyncRequests, FindReplicaSetUpdates,
PlanReplicaSetUpdate and PlanGrow, store.EncodeChange and DecodeChange) with nodes,
a chain of replica sets and an intent nullifier, and a network with drops,
duplicates, delays, reorders and partitions. Actions drawn from the seed: intake at
any node, dispatch, monitoring ticks, pulls, crashes (with or without the disk),
restarts; invariants after every step; then a quiet phase in which every set must
converge within the drain bound. Prints one line per seed ending in the run's digest
(the same seed and flags give the same digest) and, with --seeds above 1, a summary
line; a broken invariant prints the seed, the step, the invariant and the shortest
failing action list found.`,
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
				return reportSMM(cmd, res, err)
			}
			return sf.allSeeds(cmd.Context(), cmd.OutOrStdout(), "sim smm", cfg.Seed, func(s uint64) (bool, error) {
				c := cfg
				c.Seed = s
				res, err := sim.RunSMM(cmd.Context(), c)
				return false, reportSMM(cmd, res, err)
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
	f.BoolVar(&cfg.Real, "real", false, "run the real smm nodes instead of the model")
	f.BoolVar(&cfg.NoWipes, "no-wipes", false, "crash nodes without losing their disks (wipe actions keep the disk)")
	f.DurationVar(&cfg.DrainBound, "drain-bound", sim.DefaultSMMDrainBound, "virtual time the quiet phase has to converge")
	return cmd
}

// reportSMM prints one smm run's line, or its violation with the failing
// trace.
func reportSMM(cmd *cobra.Command, res sim.SMMResult, err error) error {
	var v *sim.SMMViolation
	if errors.As(err, &v) {
		return reportBroken(cmd, "sim smm", v.Seed, v.Step, v.Invariant, v.Detail, v.Trace)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "sim smm seed %d: ok; steps %d, intents %d acked %d applied %d (duplicates refused %d), set updates %d (lost races %d), catch-ups %d (no majority %d, re-catch-ups %d, forked %d), resets %d, refused %d, crashes %d (wipes %d), messages %d, deposed-order %d, deposed-lost %d, drain %v, digest %s\n",
		res.Seed, res.Steps, res.Intents, res.Acked, res.Applied, res.Duplicates, res.SetUpdates, res.LostRaces, res.CatchUps, res.NoMajority, res.Recatches, res.Forked, res.Resets, res.Refused,
		res.Crashes, res.Wipes, res.Messages, res.DeposedOrder, res.DeposedLost, res.Drain, res.Digest)
	return nil
}
