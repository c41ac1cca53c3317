package crash_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/processor"
)

// procRun is the shared state of the processor crash test's goroutines:
// the plan, and the outcomes read so far through GET …/callbacks.
type procRun struct {
	owner *papi
	dev   *devSender
	all   []*plannedBatch

	mu     sync.Mutex
	ended  map[string]callbackRow // by key (proc/batch), the latest read
	listed map[string]bool        // the keys the latest read listed
}

func (r *procRun) outcomes() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.ended)
}

func (r *procRun) hasEnded(b *plannedBatch) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.ended[b.key()]
	return ok
}

// readCallbacks reads both processors' callbacks into ended.
func (r *procRun) readCallbacks(ctx context.Context) ([]callbackRow, error) {
	var rows []callbackRow
	listed := map[string]bool{}
	for _, p := range []string{procManual, procAuto} {
		cbs, err := r.owner.callbacks(ctx, p)
		if err != nil {
			return nil, err
		}
		r.mu.Lock()
		for _, c := range cbs {
			r.ended[p+"/"+c.BatchID] = c
			listed[p+"/"+c.BatchID] = true
		}
		r.mu.Unlock()
		rows = append(rows, cbs...)
	}
	r.mu.Lock()
	r.listed = listed
	r.mu.Unlock()
	return rows, nil
}

// poll keeps ended up to date.
func (r *procRun) poll(ctx context.Context) {
	for sleepCtx(ctx, 250*time.Millisecond) {
		_, _ = r.readCallbacks(ctx)
	}
}

// confirmByOwner confirms, as the owner, the executions each owner-confirm
// batch's last action may wait on (its first confirmAttempts attempts;
// 404 while none awaits), until the batch has ended.
func (r *procRun) confirmByOwner(ctx context.Context) {
	for sleepCtx(ctx, 100*time.Millisecond) {
		for _, b := range r.all {
			if b.kind != kindOwnerConf || r.hasEnded(b) {
				continue
			}
			for a := 1; a <= confirmAttempts; a++ {
				_ = r.owner.confirm(ctx, b.proc, b.confirmExec(a), true)
			}
		}
	}
}

// confirmByChain sends, for each chain-confirm batch, a library.confirm
// transaction carrying its execution id, again every so often until the
// batch has ended: a confirmation event read before the action started is
// ignored by the processor.
func (r *procRun) confirmByChain(ctx context.Context) {
	for sleepCtx(ctx, 400*time.Millisecond) {
		for _, b := range r.all {
			if b.kind != kindChainConf || r.hasEnded(b) {
				continue
			}
			for a := 1; a <= confirmAttempts; a++ {
				_, _ = r.dev.send(ctx, devchain.LibraryContract, "confirm", map[string]any{"executionId": b.confirmExec(a), "success": true})
			}
		}
	}
}

// removals pauses procManual, adds the removable batches (one at position
// 0), removes all but the last by their current positions, and resumes;
// each step is retried across kills.
func (r *procRun) removals(ctx context.Context, bs []*plannedBatch) error {
	retry := func(what string, fn func() error) error {
		for {
			err := fn()
			if err == nil {
				return nil
			}
			if s := statusOf(err); s != 0 && s < 500 {
				return fmt.Errorf("%s: %w", what, err)
			}
			if !sleepCtx(ctx, 50*time.Millisecond) {
				return fmt.Errorf("%s: %w", what, ctx.Err())
			}
		}
	}
	if err := retry("pause "+procManual, func() error { return r.owner.pause(ctx, procManual, false) }); err != nil {
		return err
	}
	for _, b := range bs {
		if err := addBatch(ctx, r.owner, b); err != nil {
			return err
		}
	}
	for _, b := range bs[:numRemoved] {
		for !b.removed {
			var pos = -1
			if err := retry("read the medium queue", func() error {
				page, err := r.owner.queue(ctx, procManual, processor.Medium)
				for i, qb := range page.Batches {
					if qb.ID == b.id {
						pos = i
					}
				}
				return err
			}); err != nil {
				return err
			}
			if pos < 0 {
				b.removed = true // an earlier DELETE was committed; its answer was lost
				break
			}
			res, err := r.owner.remove(ctx, procManual, processor.Medium, pos)
			switch {
			case err == nil && res.ID != b.id:
				return fmt.Errorf("DELETE medium/%d removed %s, the queue listed %s there (the processor is paused)", pos, res.ID, b.id)
			case err == nil:
				b.removed = true
			case statusOf(err) == http.StatusNotFound || statusOf(err) >= 500 || statusOf(err) == 0:
				if !sleepCtx(ctx, 50*time.Millisecond) {
					return ctx.Err()
				}
			default:
				return fmt.Errorf("DELETE medium/%d (%s): %w", pos, b.id, err)
			}
		}
	}
	return retry("resume "+procManual, func() error { return r.owner.pause(ctx, procManual, true) })
}

// waitAllDelivered waits until every planned batch has a callback, each
// delivered, and the receiver has seen every key.
func (r *procRun) waitAllDelivered(ctx context.Context, recv *receiver, exited <-chan struct{}, within time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	var last string
	for {
		rows, err := r.readCallbacks(ctx)
		if err == nil {
			byKey, _, _, _ := recv.snapshot()
			delivered, seen := 0, 0
			for _, c := range rows {
				if c.State == "delivered" {
					delivered++
				}
				if len(byKey[c.Key]) > 0 {
					seen++
				}
			}
			if len(rows) >= len(r.all) && delivered == len(rows) && seen == len(rows) {
				return nil
			}
			last = fmt.Sprintf("%d of %d batches have a callback, %d delivered, %d keys seen by the receiver", len(rows), len(r.all), delivered, seen)
		} else {
			last = err.Error()
		}
		select {
		case <-exited:
			return fmt.Errorf("the node exited on its own before every callback was delivered (%s)", last)
		case <-ctx.Done():
			return fmt.Errorf("not every batch ended with a delivered callback within %s: %s%s", within, last, r.missing())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// missing lists (some of) the batches with no outcome yet.
func (r *procRun) missing() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, n := "", 0
	for _, v := range r.vanishedLocked() {
		s += "\n  " + v
	}
	for _, b := range r.all {
		if _, ok := r.ended[b.key()]; !ok {
			if n < 10 {
				s += fmt.Sprintf("\n  no outcome: %s (%s, %d msgs, attempts %v)", b.key(), b.kind, len(b.msgs), b.attempts)
			}
			n++
		}
	}
	if n > 10 {
		s += fmt.Sprintf("\n  ... and %d more", n-10)
	}
	return s
}

// vanished lists the callbacks an earlier read listed and the latest did
// not: a callback the API showed must never be lost.
func (r *procRun) vanished() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.vanishedLocked()
}

func (r *procRun) vanishedLocked() []string {
	var out []string
	for k, c := range r.ended {
		if !r.listed[k] {
			out = append(out, fmt.Sprintf("VANISHED: the callback of %s (seq %d, %s, %s) was listed before and is no longer", k, c.Seq, c.Body.Outcome.Status, c.State))
		}
	}
	return out
}
