package writeq

import (
	"context"
	"sync"

	"github.com/ordolabs/ordo/internal/store"
)

// Req is the part of a write request the queue keeps; a store's request
// type embeds it.
type Req struct {
	// Canceled is the caller's ctx.Err: the committer drops a request whose
	// caller has given up before its group starts. (The request keeps only
	// this, not the context.)
	Canceled func() error
	// Weight is the request's records, for bounding a group.
	Weight int
	// After is the request this one is chained to (StartChained), until the
	// committer has run this one: if it failed, this one is not run.
	After *Req
	// Err is the request's outcome, written by the committer before Done
	// is closed.
	Err error
	// Done is closed when the committer has served the request.
	Done chan struct{}
}

// NewReq returns the queue's part of a request of weight records made
// under ctx.
func NewReq(ctx context.Context, weight int) Req {
	return Req{Canceled: ctx.Err, Weight: weight, Done: make(chan struct{})}
}

// Base returns r; a request type embedding Req gets it (Request).
func (r *Req) Base() *Req { return r }

// Finish sets r's outcome and wakes its caller.
func (r *Req) Finish(err error) {
	r.Err = err
	close(r.Done)
}

// Chained returns store.ErrEarlierFailed (wrapping the cause) when r is
// chained to a request that failed, else nil: the committer then does not
// run r.
func (r *Req) Chained() error {
	if r.After == nil {
		return nil
	}
	return store.EarlierFailed(r.After.Err)
}

// Unchain ends the chains of a group the committer has run: a request
// chained to one of them learns its outcome from Chained while that one
// is kept, and nothing else keeps it.
func Unchain[R Request](group []R) {
	for _, r := range group {
		r.Base().After = nil
	}
}

// Await waits for the committer to serve r, or for ctx.
func Await(ctx context.Context, r *Req) error {
	select {
	case <-r.Done:
		return r.Err
	case <-ctx.Done():
		// The committer may still commit r; the caller learns nothing more
		// (an idempotency key makes a retry safe).
		return ctx.Err()
	}
}

// Request is a store's request type: a pointer to a struct that embeds
// Req.
type Request interface {
	Base() *Req
}

// Queue is one store's write queue.
type Queue[R Request] struct {
	reqs      chan R
	errClosed error
	mu        sync.RWMutex // guards closed against senders on reqs
	closed    bool
	inflight  sync.WaitGroup // calls between the closed check and their send
	// carry is the request that did not fit the last group (the
	// committer's alone).
	carry    R
	hasCarry bool
}

// New returns a queue whose Send fails with errClosed after Close.
func New[R Request](errClosed error) *Queue[R] {
	return &Queue[R]{reqs: make(chan R, 4096), errClosed: errClosed}
}

// Send hands r to the committer.
func (q *Queue[R]) Send(ctx context.Context, r R) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	q.mu.RLock()
	if q.closed {
		q.mu.RUnlock()
		return q.errClosed
	}
	q.inflight.Add(1)
	q.mu.RUnlock()
	defer q.inflight.Done()
	select {
	case q.reqs <- r:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Submit hands r to the committer and waits for it, or for ctx.
func (q *Queue[R]) Submit(ctx context.Context, r R) error {
	if err := q.Send(ctx, r); err != nil {
		return err
	}
	return Await(ctx, r.Base())
}

// Waiting returns how many requests are sent and not yet taken by the
// committer (for tests).
func (q *Queue[R]) Waiting() int { return len(q.reqs) }

// Closed reports whether Close was called.
func (q *Queue[R]) Closed() bool {
	q.mu.RLock()
	defer q.mu.RUnlock()
	return q.closed
}

// Close refuses new requests and ends the queue once every request sent
// is taken: Next then reports the end. It must be called once.
func (q *Queue[R]) Close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	// Every sender either has sent (the committer will serve it) or gave
	// up on its ctx; none can start now.
	q.inflight.Wait()
	close(q.reqs)
}

// Next waits for the next group (the committer's alone): the request
// that did not fit the last one, or the next sent, then every request
// already waiting while the group weighs less than max. It reuses group's
// array and returns false once the queue is closed and drained.
func (q *Queue[R]) Next(group []R, max int) ([]R, bool) {
	group = group[:0]
	first := q.carry
	if q.hasCarry {
		var zero R
		q.carry, q.hasCarry = zero, false
	} else {
		r, ok := <-q.reqs
		if !ok {
			return group, false
		}
		first = r
	}
	group = append(group, first)
	for w := first.Base().Weight; w < max; {
		select {
		case r, ok := <-q.reqs:
			if !ok {
				return group, true
			}
			if w+r.Base().Weight > max {
				q.carry, q.hasCarry = r, true
				return group, true
			}
			group = append(group, r)
			w += r.Base().Weight
		default:
			return group, true
		}
	}
	return group, true
}

// Serve is the committer's loop: it hands each group (Next) to commit,
// until the queue is closed and drained.
func (q *Queue[R]) Serve(max int, commit func(group []R)) {
	group := make([]R, 0, 256)
	for {
		var ok bool
		if group, ok = q.Next(group, max); !ok {
			return
		}
		commit(group)
		clear(group)
	}
}

// Group is how a store runs one group, for Commit.
type Group[R Request] struct {
	// Starting, when set, is called once before the group first runs (not
	// when every request was dropped).
	Starting func()
	// Rerun, when set, is called before each run again without a refused
	// request (before any request left is woken).
	Rerun func()
	// Run runs the requests in one transaction and commits it. If a
	// request fails on its own account (the store refuses its input) it
	// rolls back and returns its index, the request holding its error;
	// otherwise it returns the group's error, if any.
	Run func(live []R) (failed int, err error)
	// Failed, when set, clears a request's outputs when its group fails.
	Failed func(r R)
	// Committed, when set, is called with the requests of a committed
	// group before they are woken.
	Committed func(live []R)
}

// Commit runs a group until it commits or fails, and wakes every request.
// It is optimistic: requests run back to back with no savepoints. A
// request whose caller gave up is woken with its ctx's error and not run.
// A request refused on its own account is woken with its error and the
// others run again without it (a rerun); any other error fails every
// request. It ends the group's chains (Unchain).
func Commit[R Request](group []R, g Group[R]) {
	defer Unchain(group) // the chain of started batches ends here
	live := make([]R, 0, len(group))
	for _, r := range group {
		if err := r.Base().Canceled(); err != nil {
			r.Base().Finish(err)
			continue
		}
		live = append(live, r)
	}
	if len(live) > 0 && g.Starting != nil {
		g.Starting()
	}
	for len(live) > 0 {
		failed, err := g.Run(live)
		switch {
		case failed >= 0:
			close(live[failed].Base().Done) // it keeps its error
			live = append(live[:failed], live[failed+1:]...)
			if g.Rerun != nil {
				g.Rerun()
			}
			continue
		case err != nil:
			for _, r := range live {
				if g.Failed != nil {
					g.Failed(r)
				}
				r.Base().Finish(err)
			}
		default:
			if g.Committed != nil {
				g.Committed(live)
			}
			for _, r := range live {
				close(r.Base().Done)
			}
		}
		break
	}
}

// StartChained sends r to the committer, chained after the request of
// after (a Started of this queue); when r already failed it only wakes
// it. An empty batch adds nothing: its Started is after's (or, without
// after, done at once), so that a batch chained to it is chained to after.
// It implements store.Pipeliner's StartApply for a store.
func (q *Queue[R]) StartChained(ctx context.Context, r R, after store.Started, empty bool) store.Started {
	b := r.Base()
	a, ok := after.(started[R])
	if ok && a.q == q {
		b.After = a.r.Base()
	}
	if empty && b.Err == nil && b.After != nil {
		return a
	}
	if b.Err == nil && !empty {
		err := q.Send(ctx, r)
		if err == nil {
			return started[R]{q, r} // the committer's now
		}
		b.Err = err
	}
	b.After = nil
	close(b.Done)
	return started[R]{q, r}
}

// started is a request StartChained started.
type started[R Request] struct {
	q *Queue[R]
	r R
}

// Wait implements store.Started.
func (t started[R]) Wait(ctx context.Context) error { return Await(ctx, t.r.Base()) }
