package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/processor"
	"github.com/ordolabs/ordo/internal/store"
)

// What each processor action does to the world. do returns a short
// account of the outcome for the digest.

func procName(p int) string   { return fmt.Sprintf("p%d", p) }
func procOwner(p int) string  { return fmt.Sprintf("owner%d", p) }
func batchName(id int) string { return fmt.Sprintf("b%d", id) }
func methodName(m int) string { return fmt.Sprintf("m%d", m) }

func (w *procWorld) do(ctx context.Context, a ProcAction) (string, error) {
	now := w.clk.Now()
	switch a.Kind {
	case PCreate:
		s := processor.CreateSpec{Name: procName(a.P), Owner: procOwner(a.P), Lanes: a.Lanes}
		if a.URL {
			s.CallbackURL = procDeliverHost + s.Name
		}
		if a.AutoTickMs > 0 {
			s.AutoTick = (time.Duration(a.AutoTickMs) * time.Millisecond).String()
		}
		rep, err := w.ask(ctx, processor.Create(now, 0, "admin", s))
		if err == nil && rep.Code == "" {
			w.chk.created(s.Name, a.URL)
		}
		return rep.Code, err
	case PAdd:
		return w.add(ctx, a)
	case PConfigure:
		args := map[string]any{"method": methodName(a.Method)}
		if a.FailTimes > 0 {
			args["failTimes"] = a.FailTimes
		}
		if a.FailProb > 0 {
			args["failProbability"] = a.FailProb
		}
		if a.Delay > 0 {
			args["delayBlocks"] = a.Delay
		}
		out := ""
		if err := w.sendLibrary(ctx, "configure", args); err != nil {
			if !errors.As(err, new(*refusedError)) {
				return "", err
			}
			out = err.Error()
		}
		return out, w.settle(ctx)
	case PTick:
		return w.tick(ctx, procName(a.P))
	case PPause, PResume:
		rep, err := w.ask(ctx, processor.Pause(now, 0, procOwner(a.P), procName(a.P), a.Kind == PResume))
		return rep.Code, err
	case PRemove:
		pr := processor.Medium
		if a.High {
			pr = processor.High
		}
		rep, err := w.ask(ctx, processor.Remove(now, 0, procOwner(a.P), procName(a.P), pr, a.Index))
		w.removed(procName(a.P), rep, err)
		return rep.Code, err
	case PConfirm:
		exec, err := w.pendingExec(ctx, procName(a.P), a.Index)
		if err != nil {
			return "", err
		}
		if exec == "" {
			exec = procName(a.P) + "/none/0/1"
		}
		rep, err := w.ask(ctx, processor.ConfirmBy(now, 0, procOwner(a.P), procName(a.P), exec, a.Success))
		if err == nil && rep.Code == "" {
			w.res.Confirmed++
		}
		return exec + " " + rep.Code, err
	case PConfirmChain:
		exec, err := w.pendingExec(ctx, "", a.Index)
		if err != nil {
			return "", err
		}
		waiting := exec != ""
		if !waiting {
			exec = "nobody/none/0/1"
		}
		h, err := w.sendTx(ctx, w.admin, devchain.LibraryContract, "confirm", map[string]any{"executionId": exec, "success": a.Success})
		if err != nil {
			if !errors.As(err, new(*refusedError)) {
				return "", err
			}
			return exec + " " + err.Error(), w.settle(ctx)
		}
		if waiting && !w.faulty { // a dropped or reverted confirm is no event
			w.res.ChainConfirms++
			w.chk.chainConfirm(exec, w.head, h)
		}
		return exec, w.settle(ctx)
	case PFault:
		p := a.FailProb
		var u devchain.FaultUpdate
		switch a.Method {
		case 0:
			u.RejectProb = &p
		case 1:
			u.DropProb = &p
		default:
			u.RevertProb = &p
		}
		st, err := w.dc.SetFaults(ctx, u)
		if err != nil {
			return "", err
		}
		w.faulty = st.RejectProb > 0 || st.DropProb > 0 || st.RevertProb > 0
		return "", w.settle(ctx)
	case PAdvance:
		return "", w.advance(ctx, time.Duration(a.DtMs)*time.Millisecond)
	case PCrash:
		out := ""
		if a.Cut >= 0 {
			effs, err := w.cutTurn(ctx, a)
			if err != nil {
				return "", err
			}
			for i, e := range effs {
				if i < a.Cut {
					w.ploop.Perform(ctx, e)
				}
				w.res.CutEffects[e.Kind.String()]++
				out += " " + e.Kind.String()
			}
		}
		return out, w.crash(ctx)
	}
	return "", fmt.Errorf("sim: unknown action %v", a)
}

func retryLogic(r ProcRetry) *processor.RetryLogic {
	rl := &processor.RetryLogic{Times: processor.RetryTimes{Amount: r.Amount, Indefinitely: r.Amount < 0}}
	if rl.Times.Indefinitely {
		rl.Times.Amount = 0
	}
	switch {
	case r.Blocks > 0:
		rl.Interval.Blocks = uint64(r.Blocks)
	case r.DurMs > 0:
		rl.Interval.Duration = time.Duration(r.DurMs) * time.Millisecond
	}
	return rl
}

// batchSpec builds the batch an add action submits; expirations count from
// the world's head and clock.
func (w *procWorld) batchSpec(a ProcAction) processor.BatchSpec {
	s := processor.BatchSpec{ID: batchName(a.ID), Priority: processor.Medium, Position: a.Pos}
	if a.High {
		s.Priority = processor.High
	}
	for i, m := range a.Methods {
		args, _ := json.Marshal(map[string]any{"batch": s.ID, "msg": i})
		s.Msgs = append(s.Msgs, processor.Msg{Contract: "library", Method: methodName(m), Args: args})
	}
	if a.Atomic {
		ac := &processor.AtomicConfig{Actions: make([]processor.Action, len(a.Methods))}
		if len(a.Retry) > 0 {
			ac.RetryLogic = retryLogic(a.Retry[0])
		}
		s.ActionsConfig.Atomic = ac
	} else {
		na := &processor.NonAtomicConfig{}
		for i := range a.Methods {
			act := processor.Action{Contract: "library"}
			if i < len(a.Retry) {
				act.RetryLogic = retryLogic(a.Retry[i])
			}
			if i < len(a.Confirm) && a.Confirm[i] {
				act.CallbackConfirmation = &processor.CallbackConfirmation{Contract: "library"}
			}
			na.Actions = append(na.Actions, act)
		}
		s.ActionsConfig.NonAtomic = na
	}
	switch {
	case a.ExpBlocks > 0:
		s.Expiration = &processor.Expiration{Height: w.head + uint64(a.ExpBlocks)}
	case a.ExpMs > 0:
		s.Expiration = &processor.Expiration{Time: w.clk.Now().Add(time.Duration(a.ExpMs) * time.Millisecond)}
	}
	return s
}

func (w *procWorld) add(ctx context.Context, a ProcAction) (string, error) {
	if len(a.Methods) == 0 {
		return "", nil // not a batch (an edited trace): nothing to add
	}
	s := w.batchSpec(a)
	// Known before the turn: an auto-tick of the same turn may start it.
	w.chk.added(procName(a.P), s)
	rep, err := w.ask(ctx, processor.Add(w.clk.Now(), 0, procOwner(a.P), procName(a.P), s, false))
	if err != nil {
		return "", err
	}
	if rep.Code != "" {
		delete(w.chk.specs, procName(a.P)+"/"+s.ID)
		return rep.Code, nil
	}
	w.res.Batches++
	return "", nil
}

// tick ticks a processor by hand and checks High before Medium: the tick
// may take a Medium batch only when the High queue was empty.
func (w *procWorld) tick(ctx context.Context, name string) (string, error) {
	high := 0
	if w.chk.procs[name] != nil {
		c, err := w.st.ProcessorCounts(ctx, name)
		if err != nil {
			return "", err
		}
		high = c.Queued[string(processor.High)]
	}
	w.res.Ticks++
	rep, err := w.ask(ctx, processor.Tick(w.clk.Now(), 0, name))
	if err != nil || rep.Code != "" {
		return rep.Code, err
	}
	r, ok := rep.Body.(processor.TickResult)
	if !ok {
		w.chk.fail(InvProcTick, "tick of %s answered %T, not a TickResult", name, rep.Body)
		return "", nil
	}
	w.chk.ticked(name, high, r)
	return fmt.Sprintf("%s %s %s %s", r.Outcome, r.BatchID, r.Priority, r.Exec), nil
}

// pendingExec is the index-th (modulo) execution waiting for a
// confirmation, of processor proc or of every processor: "" when none
// waits.
func (w *procWorld) pendingExec(ctx context.Context, proc string, index int) (string, error) {
	execs, err := w.pendingExecs(ctx, proc)
	if err != nil || len(execs) == 0 {
		return "", err
	}
	return execs[index%len(execs)], nil
}

// pendingExecs lists the executions waiting for a confirmation, of
// processor proc or of every processor, sorted.
func (w *procWorld) pendingExecs(ctx context.Context, proc string) ([]string, error) {
	snap, err := w.st.ProcessorSnapshot(ctx)
	if err != nil {
		return nil, err
	}
	var execs []string
	for _, b := range snap.Batches {
		if b.State != store.BatchPending || proc != "" && b.Processor != proc {
			continue
		}
		var body struct {
			Exec string `json:"exec"`
		}
		if err := json.Unmarshal(b.Body, &body); err != nil {
			return nil, err
		}
		execs = append(execs, body.Exec)
	}
	sort.Strings(execs)
	return execs, nil
}

// cutTurn turns the processor's loop once without performing its effects:
// after a tick of P, or after the next block (the sequencer sees it and
// tells the processor of the executions it finished).
func (w *procWorld) cutTurn(ctx context.Context, a ProcAction) ([]processor.Effect, error) {
	if !a.Block {
		w.ploop.Put(processor.Tick(w.clk.Now(), 0, procName(a.P)))
		return w.ploop.TurnDeferred(ctx)
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
	w.ploop.Put(processor.Head(time.Time{}, head.Height))
	for j := 0; w.sloop.Waiting(); j++ {
		if j == 10_000 {
			return nil, fmt.Errorf("sim: the sequencer's loop does not settle")
		}
		if _, err := w.sloop.Turn(ctx); err != nil {
			return nil, err
		}
	}
	return w.ploop.TurnDeferred(ctx)
}
