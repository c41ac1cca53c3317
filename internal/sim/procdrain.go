package sim

import (
	"context"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/processor"
	"github.com/ordolabs/ordo/internal/store"
)

// drain stops the faults (the receiver answers 2xx, every library method
// succeeds, paused processors resume) and keeps ticking every processor and
// confirming every pending execution until every batch has ended and every
// callback of a processor with a URL has been delivered, within DrainBound.
func (w *procWorld) drain(ctx context.Context, step int) error {
	w.recv.fail = 0
	zero := 0.0
	if _, err := w.dc.SetFaults(ctx, devchain.FaultUpdate{RejectProb: &zero, DropProb: &zero, RevertProb: &zero}); err != nil {
		return err
	}
	w.faulty = false
	for m := range procMethods {
		if err := w.sendLibrary(ctx, "configure", map[string]any{"method": methodName(m)}); err != nil {
			return err
		}
	}
	for _, name := range w.chk.names() {
		if _, err := w.ask(ctx, processor.Pause(w.clk.Now(), 0, ownerOf(name), name, true)); err != nil {
			return err
		}
	}
	bound := w.cfg.DrainBound
	if bound <= 0 {
		bound = 2*time.Minute + time.Duration(len(w.chk.specs)-len(w.chk.cbs))*20*time.Second
	}
	start := w.clk.Now()
	for {
		left, err := w.undone(ctx)
		if err != nil {
			return err
		}
		if left == "" {
			break
		}
		if w.clk.Now().Sub(start) >= bound {
			w.chk.fail(InvProcLiveness, "%v after the faults stopped: %s", bound, left)
			return w.check(ctx, step)
		}
		if err := w.advance(ctx, 500*time.Millisecond); err != nil {
			return err
		}
		for _, name := range w.chk.names() {
			if _, err := w.tick(ctx, name); err != nil {
				return err
			}
		}
		execs, err := w.pendingExecs(ctx, "")
		if err != nil {
			return err
		}
		for _, exec := range execs {
			name, _, _ := strings.Cut(exec, "/")
			if _, err := w.ask(ctx, processor.ConfirmBy(w.clk.Now(), 0, ownerOf(name), name, exec, true)); err != nil {
				return err
			}
		}
		if err := w.check(ctx, step); err != nil {
			return err
		}
	}
	w.res.Drain = w.clk.Now().Sub(start)
	if err := w.finalCheck(ctx); err != nil {
		return err
	}
	return w.check(ctx, step)
}

// ownerOf is the owner of processor name ("p1": "owner1").
func ownerOf(name string) string { return "owner" + strings.TrimPrefix(name, "p") }

// undone describes what has not ended or not been delivered yet; "" when
// nothing.
func (w *procWorld) undone(ctx context.Context) (string, error) {
	var out []string
	ids := make([]string, 0, len(w.chk.specs))
	for b := range w.chk.specs {
		ids = append(ids, b)
	}
	sort.Strings(ids)
	for _, b := range ids {
		if _, ok := w.chk.cbs[b]; ok {
			continue
		}
		name, id, _ := strings.Cut(b, "/")
		rec, err := w.st.GetBatch(ctx, name, id)
		if err != nil {
			return "", err
		}
		out = append(out, fmt.Sprintf("batch %s %s (%s)", b, rec.State, rec.Body))
	}
	for _, name := range w.chk.names() {
		if !w.chk.procs[name].url {
			continue
		}
		c, err := w.st.ProcessorCounts(ctx, name)
		if err != nil {
			return "", err
		}
		if n := c.Callbacks[store.CallbackPending]; n > 0 {
			out = append(out, fmt.Sprintf("%s: %d callbacks pending", name, n))
		}
	}
	for b, cb := range w.chk.cbs {
		name, _, _ := strings.Cut(b, "/")
		if w.chk.procs[name].url && !w.chk.okKeys[cb.Key] {
			out = append(out, fmt.Sprintf("callback %s never delivered", cb.Key))
		}
	}
	sort.Strings(out)
	if len(out) > 5 {
		out = append(out[:5], fmt.Sprintf("and %d more", len(out)-5))
	}
	return strings.Join(out, "; "), nil
}

// finalCheck reads every batch again after the drain: each still holds the
// outcome of its one callback.
func (w *procWorld) finalCheck(ctx context.Context) error {
	for b, o := range w.chk.outcomes {
		name, id, _ := strings.Cut(b, "/")
		stored, state, err := w.chk.storedOutcome(ctx, name, id)
		if err != nil {
			return err
		}
		if state != store.BatchDone || stored == nil || *stored != o {
			w.chk.fail(InvProcOutcome, "after the drain %s is %s with %+v; its callback said %+v", b, state, stored, o)
		}
	}
	return nil
}

// finish folds every batch's outcome and the deliveries into the digest.
func (w *procWorld) finish() {
	ids := make([]string, 0, len(w.chk.outcomes))
	for b := range w.chk.outcomes {
		ids = append(ids, b)
	}
	sort.Strings(ids)
	for _, b := range ids {
		o := w.chk.outcomes[b]
		fmt.Fprintf(w.digest, "%s=%s/%d/%s\n", b, o.Status, o.Executed, o.Error)
	}
	for _, d := range w.recv.got {
		fmt.Fprintf(w.digest, "deliver %s %v\n", d.key, d.ok)
	}
	w.res.Executions = len(w.chk.subs)
	w.res.Digest = hex.EncodeToString(w.digest.Sum(nil))
}
