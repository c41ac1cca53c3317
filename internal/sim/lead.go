package sim

import (
	"context"
	"fmt"
	"time"

	"github.com/ordolabs/ordo/internal/clock"
)

// LeaderConfig configures a leader simulation.
type LeaderConfig struct {
	// Seed draws every action, the run's shape (accounts, caps, tools) and
	// every random choice of the run.
	Seed uint64
	// Steps is how many actions to draw. Defaults to 300.
	Steps int
	// DrainBound is how much virtual time every request has to end with a
	// result on chain once the faults stop. Defaults to five minutes plus
	// 2s per request still open then.
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
	mutate func(w *leadWorld)
}

func (c *LeaderConfig) setDefaults() {
	if c.Steps <= 0 {
		c.Steps = 300
	}
	runDefaults(&c.Dir, &c.Clock, &c.ShrinkBudget)
}

// LeaderResult is what a passing leader run did.
type LeaderResult struct {
	Seed  uint64
	Steps int
	// Accounts, Channels and Tools are the run's shape: leader accounts,
	// the leader caps they hold, tools registered.
	Accounts, Channels, Tools int
	// Requests sent by the world (Requested of them on chain); the records'
	// ends: Successful, Dead.
	Requests, Requested int
	Successful, Dead    int
	// Invocations by behaviour (correct, slow, 5xx, 4xx, lie).
	Invocations map[string]int
	// Results on chain: ours, and the competing leader's.
	Ours, Theirs int
	// Blocked counts the times a channel was seen blocked.
	Blocked int
	// Registers counts re-registrations sent; Reorgs the reorgs made.
	Registers, Reorgs int
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

// LeadViolation is a broken invariant of a leader run; RunLeader returns it
// as its error.
type LeadViolation struct {
	Seed uint64
	// Step is the action (from 1) after which the invariant broke; Steps+1
	// means during the drain after the last action.
	Step      int
	Invariant string
	Detail    string
	// Trace is the shortest failing action list found.
	Trace []LeadAction
}

func (v *LeadViolation) Error() string {
	return fmt.Sprintf("seed %d, step %d: %s: %s", v.Seed, v.Step, v.Invariant, v.Detail)
}

func (v *LeadViolation) broke() (int, string)        { return v.Step, v.Invariant }
func (v *LeadViolation) setTrace(trace []LeadAction) { v.Trace = trace }

// RunLeader runs one leader simulation. A broken invariant is returned as a
// *LeadViolation, its action list shrunk within ShrinkBudget.
func RunLeader(ctx context.Context, cfg LeaderConfig) (LeaderResult, error) {
	cfg.setDefaults()
	actions := genLeadActions(cfg.Seed, cfg.Steps, drawLeadShape(cfg.Seed).tools)
	return runShrunk[LeadAction, LeaderResult, *LeadViolation](ctx, actions, func(ctx context.Context, a []LeadAction) (LeaderResult, error) {
		return runLeadActions(ctx, cfg, a)
	}, func(ctx context.Context, cand []LeadAction) error {
		c := cfg
		c.Steps = len(cand)
		_, err := runLeadActions(ctx, c, cand)
		return err
	}, cfg.Clock, cfg.ShrinkBudget)
}

// RunLeaderActions runs a given action list (a printed failing trace, read
// back with ParseLeadAction) with cfg's seed, without shrinking.
func RunLeaderActions(ctx context.Context, cfg LeaderConfig, actions []LeadAction) (LeaderResult, error) {
	cfg.setDefaults()
	cfg.Steps = len(actions)
	res, err := runLeadActions(ctx, cfg, actions)
	return res, traced[LeadAction, *LeadViolation](err, actions)
}
