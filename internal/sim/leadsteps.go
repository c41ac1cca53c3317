package sim

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/leader"
)

// What each leader action does to the world. do returns a short account of
// the outcome for the digest.

func walkName(n int) string { return fmt.Sprintf("w%d", n) }

func (w *leadWorld) do(ctx context.Context, a LeadAction) (string, error) {
	switch a.Kind {
	case LRequest:
		out := ""
		for range max(a.N, 1) {
			w.walks++
			w.res.Requests++
			input := map[string]any{"n": w.walks}
			if a.Bad {
				input["n"] = "not a number"
			}
			err := w.send(ctx, w.admin, devchain.WorkflowContract, devchain.WorkflowRequest,
				map[string]any{"walk": walkName(w.walks), "tool": fmt.Sprintf("t%d", a.Tool), "input": input})
			if err != nil {
				if !errors.As(err, new(*refusedError)) {
					return "", err
				}
				out += " refused"
			}
		}
		return out, w.settle(ctx)
	case LRegister:
		if a.Tool < 0 || a.Tool >= w.shape.tools {
			return "no such tool", nil
		}
		w.res.Registers++
		if err := w.register(ctx, a.Tool); err != nil {
			if !errors.As(err, new(*refusedError)) {
				return "", err
			}
			return "refused", w.settle(ctx)
		}
		return "", w.settle(ctx)
	case LAdvance:
		return "", w.advance(ctx, time.Duration(a.DtMs)*time.Millisecond)
	case LReorg:
		k := a.K
		if _, err := w.dc.SetFaults(ctx, devchain.FaultUpdate{Reorg: &k}); err != nil {
			return "refused", w.settle(ctx) // deeper than the chain
		}
		w.res.Reorgs++
		return "", w.settle(ctx)
	case LCompete:
		if w.walks == 0 {
			return "no walk", nil
		}
		walk := walkName(1 + a.Index%w.walks)
		err := w.send(ctx, w.rival, devchain.WorkflowContract, devchain.WorkflowSubmitResult,
			map[string]any{"walk": walk, "ok": false, "error": "the rival leader reports first"})
		if err != nil {
			if !errors.As(err, new(*refusedError)) {
				return "", err
			}
			return walk + " refused", w.settle(ctx)
		}
		return walk, w.settle(ctx)
	case LFault:
		p := a.Prob
		var u devchain.FaultUpdate
		switch a.Method {
		case 0:
			u.RevertProb = &p
		case 1:
			u.RejectProb = &p
		case 2:
			d := devchain.Duration(time.Duration(a.K) * time.Second)
			u.Stall = &d
		default:
			u.FeeSpike = &devchain.FeeSpike{Factor: max(a.K, 2), Blocks: 3}
		}
		if _, err := w.dc.SetFaults(ctx, u); err != nil {
			return "", err
		}
		return "", w.settle(ctx)
	case LCrash:
		out := ""
		if a.Cut >= 0 {
			effs, err := w.cutTurn(ctx, a)
			if err != nil {
				return "", err
			}
			for i, e := range effs {
				if i < a.Cut {
					w.lloop.Perform(ctx, e)
				}
				w.res.CutEffects[effectName(e.Kind)]++
				out += " " + effectName(e.Kind)
			}
		}
		return out, w.crash(ctx)
	}
	return "", fmt.Errorf("sim: unknown action %v", a)
}

// cutTurn makes the leader's loop commit a turn without performing its
// effects: after the next block (the sequencer sees it and tells the
// leader of the results it finished; the listener's next page is committed
// by that turn), or after the retrier's period.
func (w *leadWorld) cutTurn(ctx context.Context, a LeadAction) ([]leader.Effect, error) {
	if !a.Block {
		if next, t := w.dc.NextBlockAt(), w.clk.Now().Add(time.Second); t.Before(next) {
			w.clk.Set(t)
		}
		return w.lloop.TurnDeferred(ctx)
	}
	next := w.dc.NextBlockAt()
	w.clk.Set(next)
	w.dc.Tick(next)
	head, err := w.dc.Head(ctx)
	if err != nil {
		return nil, err
	}
	w.lastHead, w.head, w.res.Blocks = head.Hash, head.Height, head.Height
	w.sloop.HeadSeen(ctx, head)
	for j := 0; w.sloop.Waiting(); j++ {
		if j == 10_000 {
			return nil, errors.New("sim: the sequencer's loop does not settle")
		}
		if _, err := w.sloop.Turn(ctx); err != nil {
			return nil, err
		}
	}
	w.cutting, w.cutEffs = true, nil
	n, err := w.lis.Poll(ctx)
	w.cutting = false
	if err != nil {
		return nil, err
	}
	if n > 0 {
		return w.cutEffs, nil
	}
	return w.lloop.TurnDeferred(ctx)
}

// drain stops the faults (the chain reverts and rejects nothing, every
// tool answers correctly, no more crashes) and advances the clock until
// every request on the final chain has a result on chain and a record that
// ended, within DrainBound.
func (w *leadWorld) drain(ctx context.Context, step int) error {
	zero := 0.0
	none := devchain.Duration(0)
	if _, err := w.dc.SetFaults(ctx, devchain.FaultUpdate{RejectProb: &zero, DropProb: &zero, RevertProb: &zero, Stall: &none}); err != nil {
		return err
	}
	w.tools.faulty = false
	if err := w.advance(ctx, time.Duration(leadFinality+2)*simBlockTime); err != nil {
		return err
	}
	if err := w.check(ctx, step); err != nil {
		return err
	}
	left, err := w.open(ctx)
	if err != nil {
		return err
	}
	bound := w.cfg.DrainBound
	if bound <= 0 {
		bound = 5*time.Minute + time.Duration(len(left))*2*time.Second
	}
	start := w.clk.Now()
	for len(left) > 0 {
		if w.clk.Now().Sub(start) >= bound {
			w.chk.fail(InvLeadLiveness, "%v after the faults stopped, %d requests are open: %s", bound, len(left), w.describe(ctx, left))
			return w.check(ctx, step)
		}
		if err := w.advance(ctx, time.Second); err != nil {
			return err
		}
		if err := w.check(ctx, step); err != nil {
			return err
		}
		if left, err = w.open(ctx); err != nil {
			return err
		}
	}
	w.res.Drain = w.clk.Now().Sub(start)
	return w.check(ctx, step)
}

// open lists the final requests without a result on chain or an ended
// record.
func (w *leadWorld) open(ctx context.Context) ([]string, error) {
	var out []string
	for _, walk := range sortedKeys(w.chk.reqs) {
		if _, ok := w.chk.ended[walk]; !ok {
			out = append(out, walk)
			continue
		}
		res, err := w.chk.onChain(ctx, walk)
		if err != nil {
			return nil, err
		}
		if res == nil {
			out = append(out, walk)
		}
	}
	return out, nil
}

// describe tells a few open walks as the store and the chain have them.
func (w *leadWorld) describe(ctx context.Context, walks []string) string {
	out := ""
	for i, walk := range walks {
		if i == 5 {
			return out + fmt.Sprintf("; and %d more", len(walks)-5)
		}
		r, err := w.st.LeaderEventByWalk(ctx, walk)
		res, _ := w.chk.onChain(ctx, walk)
		out += fmt.Sprintf("; %s: %s phase %q retried %d reports %d channel %d error %q (%v), on chain %+v", walk, r.Status, r.Phase, r.Retried, r.Reports, r.Channel, r.Error, err, res)
	}
	return out
}

// finish folds every walk's end and the run's counts into the digest.
func (w *leadWorld) finish() {
	ctx := context.Background()
	for _, walk := range sortedKeys(w.chk.reqs) {
		r := w.chk.ended[walk]
		res, _ := w.chk.onChain(ctx, walk)
		ok, ours := false, false
		if res != nil {
			ok, ours = res.OK, w.chk.ours[string(res.Leader)]
		}
		fmt.Fprintf(w.digest, "%s=%s/%d/%t/%t\n", walk, r.Status, r.Retried, ok, ours)
		switch {
		case res != nil && ours:
			w.res.Ours++
		case res != nil:
			w.res.Theirs++
		}
	}
	for b := range numBehaviours {
		w.res.Invocations[behaviourNames[b]] = w.tools.invoked[b]
		fmt.Fprintf(w.digest, "%s=%d\n", behaviourNames[b], w.tools.invoked[b])
	}
	w.res.Requested = len(w.chk.reqs)
	w.res.Digest = hex.EncodeToString(w.digest.Sum(nil))
}
