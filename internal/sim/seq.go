package sim

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/sequencer"
)

// SequencerConfig configures a sequencer simulation.
type SequencerConfig struct {
	// Seed draws every action and every random choice of the chain.
	Seed uint64
	// Steps is how many actions to draw. Defaults to 2000.
	Steps int
	// Queues is how many queues intents go to. Defaults to 8.
	Queues int
	// Senders is how many sender accounts the node has. Defaults to 4.
	Senders int
	// WorkerSenders is how many of the senders are worker senders: their key
	// is held by a remote worker (in process) that loses one answer in ten,
	// before or after sending, until the faults stop. Defaults to 0.
	WorkerSenders int
	// NoBlockReader hides the chain's blocks from the node (it sees heads
	// only), so it polls each waiting attempt's status on every head
	// instead of reading receipts: the path of chains without block reads.
	// Defaults to false.
	NoBlockReader bool
	// Pipeline, when 2 or more, gives the even-numbered queues (q0, q2, …,
	// as prefixes) that many transactions in flight, nonce-ordered on one
	// sender (sequencer.Pipeline); the checker then allows that many of
	// such a queue per block and checks FIFO on what the queue reports
	// (DONE and FAILED in Seq order) instead of on the chain's order of
	// successes, which a retry after a revert may change. Defaults to 0:
	// every queue has one in flight.
	Pipeline int
	// PureHooks makes the builtin types' hooks return the result as given
	// and declares them pure (sequencer.PureHooks), so that the loop runs
	// them before the commit of the transaction's end and commits the
	// result with it. Defaults to false: the hooks read the zkApp's state
	// as effects after that commit.
	PureHooks bool
	// ReorgDepth is the deepest reorg drawn; the node waits ReorgDepth+1
	// confirmations, as the chain declares. Defaults to 2.
	ReorgDepth uint64
	// DrainBound is how much virtual time every intent has to end once the
	// faults stop. Defaults to the worst case of the longest queue: a minute,
	// plus, for each intent still open on it, every attempt of its retries
	// (MaxRetries+1) taking its delay, its inclusion timeout and its
	// confirmations.
	DrainBound time.Duration
	// Dir is where runs keep their stores. Defaults to /dev/shm where it
	// exists (a store in memory is what keeps CI's hundreds of runs short),
	// else the system's temporary directory; each run's store is removed
	// after it.
	Dir string
	// Trace, when set, records the sequencer's inputs and Readys (see
	// sequencer.Replay).
	Trace io.Writer
	// Confirmations overrides the node's confirmations. Defaults to 0: the
	// node follows the chain, which declares ReorgDepth on its heads, and so
	// waits ReorgDepth+1. A value of ReorgDepth or less makes a node that
	// trusts inclusions a reorg can undo: the simulation's self-test uses it
	// to see the invariants break.
	Confirmations uint64
	// Clock measures ShrinkBudget. Defaults to the wall clock.
	Clock clock.Clock
	// ShrinkBudget bounds the wall time spent looking for a shorter failing
	// action list. Defaults to 60s; negative: no shrinking.
	ShrinkBudget time.Duration
	// metrics, when set (tests), is the node's metrics.
	metrics *sequencer.Metrics
}

func (c *SequencerConfig) setDefaults() {
	if c.Steps <= 0 {
		c.Steps = 2000
	}
	if c.Queues <= 0 {
		c.Queues = 8
	}
	if c.Senders <= 0 {
		c.Senders = 4
	}
	if c.ReorgDepth == 0 {
		c.ReorgDepth = 2
	}
	runDefaults(&c.Dir, &c.Clock, &c.ShrinkBudget)
}

// pipelines is the node's in-flight-per-queue policy (see Pipeline).
func (c *SequencerConfig) pipelines() []sequencer.Pipeline {
	if c.Pipeline < 2 {
		return nil
	}
	var rules []sequencer.Pipeline
	for i := 0; i < c.Queues; i += 2 {
		rules = append(rules, sequencer.Pipeline{Prefix: fmt.Sprintf("q%d", i), InFlight: c.Pipeline})
	}
	return rules
}

// runDefaults fills what every engine's run config shares: its stores on
// /dev/shm when there is one, the wall clock for the shrink budget, and a
// budget of 60s.
func runDefaults(dir *string, clk *clock.Clock, shrink *time.Duration) {
	if *dir == "" {
		if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
			*dir = "/dev/shm"
		}
	}
	if *clk == nil {
		*clk = clock.Real{}
	}
	if *shrink == 0 {
		*shrink = 60 * time.Second
	}
}

// SequencerResult is what a passing run did.
type SequencerResult struct {
	Seed                  uint64
	Steps                 int
	Intents, Done, Failed int
	Blocks                uint64
	Crashes, Faults       int
	// Drain is the virtual time the intents took to end once faults stopped.
	Drain time.Duration
	// Digest is a SHA-256 over the run: the same seed gives the same digest.
	Digest string
}

// Violation is a broken invariant; RunSequencer returns it as its error.
type Violation struct {
	Seed uint64
	// Step is the action (from 1) after which the invariant broke; Steps+1
	// means during the drain after the last action.
	Step      int
	Invariant string
	Detail    string
	// Trace is the shortest failing action list found (the whole list when
	// shrinking was off or found nothing shorter).
	Trace []Action
}

func (v *Violation) Error() string {
	return fmt.Sprintf("seed %d, step %d: %s: %s", v.Seed, v.Step, v.Invariant, v.Detail)
}

// Policy of every type in the simulation: short delays keep runs short.
const (
	simMaxRetries       = 3
	simDelay            = 4 * time.Second // longer than the confirmations' blocks, as in production
	simInclusionTimeout = 3
	simBlockTime        = time.Second
)

// RunSequencer runs one simulation. A broken invariant is returned as a
// *Violation, its action list shrunk within ShrinkBudget.
func RunSequencer(ctx context.Context, cfg SequencerConfig) (SequencerResult, error) {
	cfg.setDefaults()
	actions := genActions(cfg.Seed, cfg.Steps, cfg.Queues, cfg.ReorgDepth)
	quiet := cfg
	quiet.Trace = nil
	return runShrunk[Action, SequencerResult, *Violation](ctx, actions, func(ctx context.Context, a []Action) (SequencerResult, error) {
		return runActions(ctx, cfg, a)
	}, func(ctx context.Context, cand []Action) error {
		_, err := runActions(ctx, quiet, cand)
		return err
	}, cfg.Clock, cfg.ShrinkBudget)
}

// RunSequencerActions runs a given action list (a printed failing trace,
// read back with ParseAction) with cfg's seed; a broken invariant is
// returned as a *Violation, not shrunk.
func RunSequencerActions(ctx context.Context, cfg SequencerConfig, actions []Action) (SequencerResult, error) {
	cfg.setDefaults()
	res, err := runActions(ctx, cfg, actions)
	return res, traced[Action, *Violation](err, actions)
}
