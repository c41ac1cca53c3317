package sim

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/leader"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/store"
)

// The crash-at-every-step test lives here, not in internal/leader, because
// it needs what the simulation's world already is: the real leader and
// sequencer loops turned by hand over one SQLite store, a devchain whose
// blocks the test mines, the tools behind an in-process network, and the
// checker that counts results on the canonical chain.

// crashPoint is where in one request's life the node crashes.
type crashPoint int

const (
	// afterIndexing: the turn that indexed the request (and, the run queue
	// having room, made it Active in the same commit) committed; its
	// execution was never performed.
	afterIndexing crashPoint = iota
	// afterActive: the Active record's tool ran; its answer was lost.
	afterActive
	// afterOutput: the tool's output was committed (the result waits for
	// or is on a channel); the result was never handed to the sequencer.
	afterOutput
	// afterSubmission: the sequencer committed the result transaction; its
	// answer to the leader was lost.
	afterSubmission
	// afterInclusion: the result transaction is in a block; neither engine
	// has seen that block.
	afterInclusion
)

var crashPointNames = []string{"after indexing", "after Active", "after the tool's output", "after the result's submission", "after its inclusion"}

// errCrashed unwinds a settle the crash point cut.
var errCrashed = errors.New("crashed")

// crashDriver settles the world by hand, performing the leader's effects
// one at a time, until the crash point is reached for walk.
type crashDriver struct {
	w       *leadWorld
	point   crashPoint
	walk    string
	crashed bool
	at      string // the record as the store held it at the crash
}

func (d *crashDriver) crash(ctx context.Context) error {
	d.crashed = true
	if r, err := d.w.st.LeaderEventByWalk(ctx, d.walk); err == nil {
		d.at = fmt.Sprintf("%s phase %q reports %d", r.Status, r.Phase, r.Reports)
	} else {
		d.at = err.Error()
	}
	if err := d.w.crash(ctx); err != nil {
		return err
	}
	return errCrashed
}

// settle is the world's settle with the leader's turns deferred and their
// effects performed here, one at a time, so that a crash can fall between
// any two.
func (d *crashDriver) settle(ctx context.Context) error {
	w := d.w
	if d.point == afterInclusion {
		res, err := w.chk.onChain(ctx, d.walk)
		if err != nil {
			return err
		}
		if res != nil {
			return d.crash(ctx)
		}
	}
	for i := 0; ; i++ {
		if i == 10_000 {
			return errors.New("the loops do not settle")
		}
		head, err := w.dc.Head(ctx)
		if err != nil {
			return err
		}
		if head.Hash != w.lastHead {
			w.lastHead, w.head = head.Hash, head.Height
			w.sloop.HeadSeen(ctx, head)
		}
		if dl := w.sloop.Deadline(); !dl.IsZero() && !w.clk.Now().Before(dl) {
			w.sloop.Put(sequencer.Tick(w.clk.Now()))
		}
		w.cutting, w.cutEffs = true, nil
		for {
			n, err := w.lis.Poll(ctx)
			if err != nil {
				return err
			}
			if n == 0 {
				break
			}
		}
		w.cutting = false
		pending := w.cutEffs
		if err := turnAll(ctx, w); err != nil {
			return err
		}
		effs, err := w.lloop.TurnDeferred(ctx)
		if err != nil {
			return err
		}
		pending = append(pending, effs...)
		for _, e := range pending {
			mine := e.Walk == d.walk
			switch {
			case mine && d.point == afterIndexing && e.Kind == leader.EffectExecute,
				mine && d.point == afterOutput && e.Kind == leader.EffectReport:
				return d.crash(ctx)
			}
			w.lloop.Perform(ctx, e)
			switch {
			case mine && d.point == afterActive && e.Kind == leader.EffectExecute,
				mine && d.point == afterSubmission && e.Kind == leader.EffectReport:
				return d.crash(ctx)
			}
		}
		if err := turnAll(ctx, w); err != nil {
			return err
		}
		if !w.sloop.Waiting() && !w.lloop.Waiting() {
			return nil
		}
	}
}

// turnAll turns the sequencer's loop until no input waits.
func turnAll(ctx context.Context, w *leadWorld) error {
	for j := 0; w.sloop.Waiting(); j++ {
		if j == 10_000 {
			return errors.New("the sequencer's loop does not settle")
		}
		if _, err := w.sloop.Turn(ctx); err != nil {
			return err
		}
	}
	return nil
}

// TestLeaderCrashAtEveryStep crashes the node at each point of one
// request's life (for two shapes of the world: seeds 1 and 2), then runs
// to the end: the request is not lost, it yields exactly one result on
// chain, ours, and its record ends Successful; every invariant of the
// simulation holds throughout.
func TestLeaderCrashAtEveryStep(t *testing.T) {
	ctx := context.Background()
	for _, seed := range []uint64{1, 2} {
		for p, name := range crashPointNames {
			t.Run(fmt.Sprintf("seed=%d/%s", seed, name), func(t *testing.T) {
				w, err := newLeadWorld(ctx, LeaderConfig{Seed: seed, Dir: t.TempDir()})
				if err != nil {
					t.Fatal(err)
				}
				defer w.close()
				w.tools.faulty = false
				d := &crashDriver{w: w, point: crashPoint(p), walk: walkName(1)}
				if _, err := w.do(ctx, LeadAction{Kind: LRequest, N: 1}); err != nil {
					t.Fatal(err)
				}
				for step := 0; !d.crashed; step++ {
					if step == 600 {
						t.Fatalf("the crash point was never reached")
					}
					err := w.advanceBy(ctx, time.Second, d.settle)
					if err != nil && !errors.Is(err, errCrashed) {
						t.Fatal(err)
					}
				}
				t.Logf("crashed %s: the store held %s", name, d.at)
				for step := 1; ; step++ {
					if err := w.check(ctx, step); err != nil {
						t.Fatal(err)
					}
					rec, ended := w.chk.ended[d.walk]
					res, err := w.chk.onChain(ctx, d.walk)
					if err != nil {
						t.Fatal(err)
					}
					if ended && res != nil {
						if rec.Status != store.EventSuccessful || !res.OK || !w.chk.ours[string(res.Leader)] {
							t.Fatalf("walk ended %s (%s); on chain %+v", rec.Status, rec.Error, res)
						}
						if n := w.chk.finAll[d.walk] + w.chk.tailAll[d.walk]; n != 1 {
							t.Fatalf("%d results on chain", n)
						}
						t.Logf("ended %s after %d more seconds, %d result transactions handed to the sequencer", rec.Status, step, w.chk.submits)
						return
					}
					if step == 600 {
						t.Fatalf("not ended 10 minutes after the crash: %s", w.describe(ctx, []string{d.walk}))
					}
					if err := w.advance(ctx, time.Second); err != nil {
						t.Fatal(err)
					}
				}
			})
		}
	}
}
