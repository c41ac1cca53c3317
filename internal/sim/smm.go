package sim

import (
	"context"
	"fmt"
	"time"

	"github.com/ordolabs/ordo/internal/clock"
)

// The state machine manager's simulation (seed 004, issues 12 and 26):
// the real internal/smm Nodes (their sans-I/O core and their driver, the
// code that ships) on a virtual clock, an in-process devchain and a
// network that serves each request in the caller's goroutine, driven
// from one goroutine by actions drawn from the seed (smmreal.go).

// SMMConfig configures a state-machine-manager simulation.
type SMMConfig struct {
	// Seed draws every action and every network fault.
	Seed uint64
	// Steps is how many actions to draw. Defaults to 300.
	Steps int
	// Nodes is how many nodes there are (A, B, ...; at most 26). Defaults
	// to 5.
	Nodes int
	// Replicas is how many members each queue's set has (its primary and
	// Replicas-1 secondaries; at most Nodes). Defaults to 3.
	Replicas int
	// Queues is how many queues are replicated. Defaults to 4.
	Queues int
	// AckAfter is 0 (an intent is acknowledged once its primary holds it)
	// or 1 (once a secondary holds it too). Defaults to 1; -1 means 0.
	// The nodes' AckTimeout is 10s.
	AckAfter int
	// UnhealthyAfter is how long a member stays unhealthy before it is
	// replaced. Defaults to 5s.
	UnhealthyAfter time.Duration
	// DrainBound is the virtual time the quiet phase (no faults, every node
	// restarted, the partition healed) has to converge. Defaults to
	// DefaultSMMDrainBound.
	DrainBound time.Duration
	// NoWipes makes every wipe action a crash that keeps the disk (a
	// primary that lost its disk and restarts before it is replaced keeps
	// its role with an empty log: see the package doc).
	NoWipes bool
	// Clock measures ShrinkBudget. Defaults to the wall clock.
	Clock clock.Clock
	// ShrinkBudget bounds the wall time spent looking for a shorter failing
	// action list. Defaults to 60s; negative: no shrinking.
	ShrinkBudget time.Duration
	// Replay records every node's core trace (one per life of the node)
	// and replays each at the end (smm.Replay, as ordo replay does): every
	// Ready must come again from the same inputs.
	Replay bool
	// bug plants a deliberate fault in the simulation (the checker's
	// self-test).
	bug smmBug
}

// smmBug is a deliberately broken rule the tests plant.
type smmBug int

const (
	_ smmBug = iota
	// smmBugNoNullifier: the dispatch sends each intent under a memo of
	// its own, so the chain's nullifier never refuses a second
	// application.
	smmBugNoNullifier
	// smmBugCorruptLog: the checker's copy of a log has an entry's
	// payload changed (its seal no longer matches).
	smmBugCorruptLog
)

// DefaultSMMDrainBound is SMMConfig.DrainBound's default: two minutes of
// virtual time for the sets to replace what is dead and grow back, the
// secondaries to catch up and the primaries to dispatch what they hold.
const DefaultSMMDrainBound = 2 * time.Minute

func (c *SMMConfig) setDefaults() {
	if c.Steps <= 0 {
		c.Steps = 300
	}
	if c.Nodes <= 0 {
		c.Nodes = 5
	}
	c.Nodes = min(c.Nodes, 26)
	if c.Replicas <= 0 {
		c.Replicas = 3
	}
	c.Replicas = min(c.Replicas, c.Nodes)
	if c.Queues <= 0 {
		c.Queues = 4
	}
	switch {
	case c.AckAfter == 0:
		c.AckAfter = 1
	case c.AckAfter < 0:
		c.AckAfter = 0
	default:
		c.AckAfter = 1
	}
	if c.UnhealthyAfter <= 0 {
		c.UnhealthyAfter = 5 * time.Second
	}
	if c.DrainBound <= 0 {
		c.DrainBound = DefaultSMMDrainBound
	}
	var dir string
	runDefaults(&dir, &c.Clock, &c.ShrinkBudget)
}

// SMMResult is what a passing state-machine-manager run did.
type SMMResult struct {
	Seed  uint64
	Steps int
	// Intents committed by a primary, Acked of them acknowledged, Applied
	// on chain (each once), Duplicates refused by the chain's nullifier.
	Intents, Acked, Applied, Duplicates int
	// SetUpdates landed on chain (an update_many counts once), LostRaces
	// refused (stale version).
	SetUpdates, LostRaces int
	// Jobs run (seed 004's, on the nodes).
	Jobs int
	// DeposedOrder counts intents applied out of intake order where one
	// of the two was dispatched by a deposed primary that had not read the
	// set update: with AckAfter 0, or one of the two never acknowledged
	// (SMMDeposedOrder).
	DeposedOrder int
	// UnackedOrder counts intents never acknowledged applied after one
	// taken in later, both by the chain's primary (SMMOrder): an intent
	// whose ack was refused is promised no order (a primary that applied
	// newer ones lost its disk, and so did every member that held them,
	// and a member's older log was adopted).
	UnackedOrder int
	// DeposedLost counts acknowledged intents lost that a deposed primary
	// (not having read the set update) took in: AckAfter 0 only (the
	// window of acknowledging before a secondary holds an intent); with
	// AckAfter > 0 it fails.
	DeposedLost int
	// Crashes (memory only, or the disk too) and Wipes (disk lost too).
	Crashes, Wipes int
	// Messages served on the network.
	Messages int
	// Drain is the virtual time the quiet phase took to converge.
	Drain time.Duration
	// Replayed counts the core steps replayed from the nodes' traces
	// (Replay).
	Replayed int
	// Digest is a SHA-256 over the chain's head and every node's log
	// heads and held sets at the end: the same seed and flags give the
	// same digest.
	Digest string
}

// SMMViolation is a broken invariant of a state-machine-manager run.
type SMMViolation struct {
	Seed uint64
	// Step is the action (from 1) after which the invariant broke; Steps+1
	// means during the quiet phase.
	Step      int
	Invariant string
	Detail    string
	// Trace is the shortest failing action list found.
	Trace []SMMAction
}

func (v *SMMViolation) Error() string {
	return fmt.Sprintf("seed %d, step %d: %s: %s", v.Seed, v.Step, v.Invariant, v.Detail)
}

func (v *SMMViolation) broke() (int, string)       { return v.Step, v.Invariant }
func (v *SMMViolation) setTrace(trace []SMMAction) { v.Trace = trace }

// RunSMM runs one state-machine-manager simulation. A broken invariant is
// returned as a *SMMViolation, its action list shrunk within ShrinkBudget.
func RunSMM(ctx context.Context, cfg SMMConfig) (SMMResult, error) {
	cfg.setDefaults()
	actions := genSMMActions(cfg.Seed, cfg.Steps, cfg.Nodes, cfg.Queues)
	return runShrunk[SMMAction, SMMResult, *SMMViolation](ctx, actions, func(_ context.Context, as []SMMAction) (SMMResult, error) {
		return runSMMActions(cfg, as)
	}, func(_ context.Context, cand []SMMAction) error {
		_, err := runSMMActions(cfg, cand)
		return err
	}, cfg.Clock, cfg.ShrinkBudget)
}

// RunSMMActions runs a given action list (a printed failing trace, read
// back with ParseSMMAction) with cfg's seed, without shrinking.
func RunSMMActions(_ context.Context, cfg SMMConfig, actions []SMMAction) (SMMResult, error) {
	cfg.setDefaults()
	res, err := runSMMActions(cfg, actions)
	return res, traced[SMMAction, *SMMViolation](err, actions)
}

// runSMMActions runs actions on a new world, checking after each, then
// the quiet phase.
func runSMMActions(cfg SMMConfig, actions []SMMAction) (SMMResult, error) {
	return runRealSMM(cfg, actions)
}
