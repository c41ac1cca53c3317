package processor

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/mailbox"
	"github.com/ordolabs/ordo/internal/store"
)

// ErrRetired is returned to callers whose input was in a turn whose commit
// failed: the core was rebuilt from the store and their input is lost (it
// changed nothing).
var ErrRetired = errors.New("processor: the store refused a commit; the request changed nothing, try again")

// envelope is an input and, for a caller that waits, where its answer goes
// once the turn that stepped it is committed.
type envelope struct {
	in   Input
	done chan result
}

type result struct {
	rep Reply
	err error
}

// Loop is the driver's body around the core: inputs in from any goroutine
// (Put, Do), and Turn, which steps them, commits the Ready, advances, then
// answers callers and returns (or, Inline, performs) the effects.
type Loop struct {
	n     *Node
	core  *Core
	inbox *mailbox.Mailbox[envelope]
	req   atomic.Uint64
}

func newLoop(n *Node, c *Core) *Loop {
	return &Loop{n: n, core: c, inbox: mailbox.New[envelope]()}
}

// Core returns the loop's core (tests and simulations read it between
// turns).
func (l *Loop) Core() *Core { return l.core }

// Put queues an input; Turn stamps it with the clock when it steps it.
func (l *Loop) Put(in Input) { l.inbox.Put(envelope{in: in}) }

// Waiting reports whether inputs are queued.
func (l *Loop) Waiting() bool { return l.inbox.Len() > 0 }

// Do queues an input that answers (Req is set here) and waits until the
// turn that stepped it is committed: its Reply, or ErrRetired, or ctx's
// error.
func (l *Loop) Do(ctx context.Context, in Input) (Reply, error) {
	in.Req = l.req.Add(1)
	env := envelope{in: in, done: make(chan result, 1)}
	l.inbox.Put(env)
	select {
	case r := <-env.done:
		return r.rep, r.err
	case <-ctx.Done():
		return Reply{}, ctx.Err()
	}
}

// Turn steps every queued input (and the clock), commits the Ready,
// advances, answers the callers, and returns the effects to perform; with
// Inline it performs them itself and queues their answers. A failed commit
// retires the core: a new one is built from the store.
func (l *Loop) Turn(ctx context.Context) ([]Effect, error) {
	envs := l.inbox.Take()
	now := l.n.cfg.Clock.Now().UTC()
	for i := range envs {
		if in, ok := l.prepare(ctx, envs[i].in); ok {
			in.At = now
			l.step(in)
		}
	}
	l.step(Time(now))
	if !l.core.HasReady() {
		answer(envs, nil, nil)
		return nil, nil
	}
	r := l.core.Ready()
	l.n.tr.Ready(r)
	if !r.Batch.Empty() {
		start := l.n.cfg.Clock.Now()
		if err := l.n.cfg.Store.ApplyProcessor(ctx, r.Batch); err != nil {
			answer(envs, nil, ErrRetired)
			return nil, l.retire(ctx, err)
		}
		l.n.cfg.Metrics.observe(r, l.n.cfg.Clock.Now().Sub(start).Seconds())
	}
	l.core.Advance()
	l.n.tr.Advance()
	if err := l.n.tr.Flush(); err != nil {
		l.n.log.Error("processor: trace", "err", err)
	}
	answer(envs, r.Replies, nil)
	if !l.n.cfg.Inline {
		return r.Effects, nil
	}
	for _, e := range r.Effects {
		l.Put(l.n.perform(ctx, e))
	}
	return nil, nil
}

func (l *Loop) step(in Input) {
	l.n.tr.Input(in)
	l.core.Step(in)
}

// prepare completes an input with what the store knows: whether an added
// batch's id was used, a failed execution's error. It drops a finish that
// is not the processor's.
func (l *Loop) prepare(ctx context.Context, in Input) (Input, bool) {
	switch in.Kind {
	case InputAdd:
		if in.Batch != nil && in.Batch.ID != "" {
			_, err := l.n.cfg.Store.GetBatch(ctx, in.Processor, in.Batch.ID)
			in.Used = err == nil || !errors.Is(err, store.ErrNotFound)
		}
	case InputFinished:
		if !l.core.Knows(in.UID) {
			return in, false
		}
		if !in.Success && in.Err == "" && l.n.cfg.Records != nil {
			if t, err := l.n.cfg.Records.Get(ctx, in.UID); err == nil {
				in.Err = t.Error
			}
		}
	}
	return in, true
}

// answer hands each waiting caller its reply (an empty one when its input
// has none), or err.
func answer(envs []envelope, replies []Reply, err error) {
	byReq := make(map[uint64]Reply, len(replies))
	for _, r := range replies {
		byReq[r.Req] = r
	}
	for _, env := range envs {
		if env.done != nil {
			env.done <- result{rep: byReq[env.in.Req], err: err}
		}
	}
}

// retire rebuilds the core from the store after a failed commit.
func (l *Loop) retire(ctx context.Context, cause error) error {
	l.n.log.Error("processor: commit failed; rebuilding the core from the store", "err", cause)
	core, err := l.n.newCore(ctx)
	if err != nil {
		return fmt.Errorf("processor: commit: %w; rebuild: %w", cause, err)
	}
	l.core = core
	return nil
}

// run turns the loop until ctx ends, waking on inputs and on the core's
// next deadline; submissions and deliveries go to their own workers.
func (l *Loop) run(ctx context.Context, submits, deliveries chan<- Effect) error {
	clk := l.n.cfg.Clock
	for {
		effs, err := l.Turn(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil // a commit cut short by the shutdown: the store holds the last one
			}
			return err
		}
		for _, e := range effs {
			ch := submits
			if e.Kind == EffectDeliver {
				ch = deliveries
			}
			select {
			case ch <- e:
			case <-ctx.Done():
				return nil
			}
		}
		if l.Waiting() {
			continue
		}
		var timer <-chan time.Time
		var t clock.Timer
		if d := l.core.NextDeadline(); !d.IsZero() {
			t = clk.NewTimer(max(d.Sub(clk.Now()), 0))
			timer = t.C()
		}
		select {
		case <-ctx.Done():
		case <-l.inbox.Signal():
		case <-timer:
		}
		if t != nil {
			t.Stop()
		}
		if ctx.Err() != nil {
			return nil
		}
	}
}
