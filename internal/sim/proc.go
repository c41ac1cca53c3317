package sim

import (
	"context"
	"fmt"
	"time"

	"github.com/ordolabs/ordo/internal/clock"
)

// ProcessorConfig configures a processor simulation.
type ProcessorConfig struct {
	// Seed draws every action and every random choice of the run.
	Seed uint64
	// Steps is how many actions to draw. Defaults to 400.
	Steps int
	// DrainBound is how much virtual time every batch has to end, and every
	// callback to be delivered, once the faults stop. Defaults to two
	// minutes plus 20s per batch still live then.
	DrainBound time.Duration
	// Dir is where runs keep their stores. Defaults to /dev/shm where it
	// exists, else the system's temporary directory.
	Dir string
	// Clock measures ShrinkBudget. Defaults to the wall clock.
	Clock clock.Clock
	// ShrinkBudget bounds the wall time spent looking for a shorter failing
	// action list. Defaults to 60s; negative: no shrinking.
	ShrinkBudget time.Duration
	// mutate, when set (the checker's self-test), is called after every
	// action, before the checks, and may plant a fault for them to find.
	mutate func(w *procWorld)
}

func (c *ProcessorConfig) setDefaults() {
	if c.Steps <= 0 {
		c.Steps = 400
	}
	runDefaults(&c.Dir, &c.Clock, &c.ShrinkBudget)
}

// ProcessorResult is what a passing processor run did.
type ProcessorResult struct {
	Seed  uint64
	Steps int
	// Batches added; their outcomes by status.
	Batches  int
	Outcomes map[string]int
	// Executions submitted to the sequencer; landings of them on chain.
	Executions, Landings int
	// Ticks by hand; deliveries the receiver saw (Refused of them answered
	// an error).
	Ticks               int
	Deliveries, Refused int
	// Confirmed counts the confirmations the owner gave that the core took;
	// ChainConfirms the library.confirm transactions sent for an execution
	// that was waiting.
	Confirmed, ChainConfirms int
	// CutEffects counts, by kind, the effects of the turns a crash cut
	// short (performed with their answers lost, or never performed).
	CutEffects map[string]int
	Blocks     uint64
	Crashes    int
	// Drain is the virtual time everything took to end once faults stopped.
	Drain time.Duration
	// Digest is a SHA-256 over the run: the same seed gives the same digest.
	Digest string
}

// ProcViolation is a broken invariant of a processor run; RunProcessor
// returns it as its error.
type ProcViolation struct {
	Seed uint64
	// Step is the action (from 1) after which the invariant broke; Steps+1
	// means during the drain after the last action.
	Step      int
	Invariant string
	Detail    string
	// Trace is the shortest failing action list found.
	Trace []ProcAction
}

func (v *ProcViolation) Error() string {
	return fmt.Sprintf("seed %d, step %d: %s: %s", v.Seed, v.Step, v.Invariant, v.Detail)
}

// RunProcessor runs one processor simulation. A broken invariant is
// returned as a *ProcViolation, its action list shrunk within ShrinkBudget.
func RunProcessor(ctx context.Context, cfg ProcessorConfig) (ProcessorResult, error) {
	cfg.setDefaults()
	actions := genProcActions(cfg.Seed, cfg.Steps)
	return runShrunk[ProcAction, ProcessorResult, *ProcViolation](ctx, actions, func(ctx context.Context, a []ProcAction) (ProcessorResult, error) {
		return runProcActions(ctx, cfg, a)
	}, func(ctx context.Context, cand []ProcAction) error {
		c := cfg
		c.Steps = len(cand)
		_, err := runProcActions(ctx, c, cand)
		return err
	}, cfg.Clock, cfg.ShrinkBudget)
}

// RunProcessorActions runs a given action list (a printed failing trace,
// read back with ParseProcAction) with cfg's seed, without shrinking.
func RunProcessorActions(ctx context.Context, cfg ProcessorConfig, actions []ProcAction) (ProcessorResult, error) {
	cfg.setDefaults()
	cfg.Steps = len(actions)
	res, err := runProcActions(ctx, cfg, actions)
	return res, traced[ProcAction, *ProcViolation](err, actions)
}
