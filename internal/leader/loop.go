package leader

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
// failed: the core was rebuilt from the store and the input changed nothing.
var ErrRetired = errors.New("leader: the store refused a commit; the request changed nothing, try again")

type envelope struct {
	in   Input
	done chan result
}

type result struct {
	rep Reply
	err error
}

func newInbox() *mailbox.Mailbox[envelope] { return mailbox.New[envelope]() }

// Loop is the driver's body around the core: inputs in from any goroutine
// (Put, Do) and Turn, which steps them, commits, advances, answers callers
// and returns (or, Inline, performs) the effects.
type Loop struct {
	n     *Node
	core  *Core
	inbox *mailbox.Mailbox[envelope]
	req   atomic.Uint64
}

// Core returns the loop's core (read it between turns).
func (l *Loop) Core() *Core { return l.core }

// Put queues an input; Turn stamps it with the clock.
func (l *Loop) Put(in Input) { l.inbox.Put(envelope{in: in}) }

// Waiting reports whether inputs are queued.
func (l *Loop) Waiting() bool { return l.inbox.Len() > 0 }

// Do queues an input and waits until the turn that stepped it committed.
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

// Turn steps the queued inputs (and the clock), commits the Ready,
// advances, answers the callers and returns the effects; with Inline it
// performs them and queues their answers.
func (l *Loop) Turn(ctx context.Context) ([]Effect, error) {
	taken := l.inbox.Take()
	envs := taken[:0]
	now := l.n.cfg.Clock.Now().UTC()
	for _, env := range taken {
		in, err := l.prepare(ctx, env.in)
		if err != nil {
			answer([]envelope{env}, nil, err) // not stepped: its caller retries
			continue
		}
		envs = append(envs, env)
		in.At = now
		l.step(in)
	}
	l.step(Time(now, l.n.cfg.Rand()))
	if !l.core.HasReady() {
		answer(envs, nil, nil)
		return nil, nil
	}
	r := l.core.Ready()
	l.n.tr.Ready(r)
	if !r.Batch.Empty() {
		start := l.n.cfg.Clock.Now()
		if err := l.n.cfg.Store.ApplyLeader(ctx, r.Batch); err != nil {
			answer(envs, nil, ErrRetired)
			return nil, l.retire(ctx, err)
		}
		l.n.cfg.Metrics.observe(r, l.n.cfg.Clock.Now().Sub(start).Seconds())
	}
	l.core.Advance()
	l.n.tr.Advance()
	if err := l.n.tr.Flush(); err != nil {
		l.n.log.Error("leader: trace", "err", err)
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

// prepare completes an input with what the store knows: which requested
// walks are indexed already, a failed result's error; it drops a finish
// that is not the leader's.
func (l *Loop) prepare(ctx context.Context, in Input) (Input, error) {
	switch in.Kind {
	case InputEvents:
		for i := range in.Requests {
			_, err := l.n.cfg.Store.LeaderEventByWalk(ctx, in.Requests[i].Walk)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return in, fmt.Errorf("leader: index: %w", err)
			}
			in.Requests[i].Known = err == nil
		}
	case InputFinished:
		if !l.core.Knows(in.UID) {
			in.Kind = InputTime // not ours: a no-op step keeps the trace whole
			in.UID = ""
			return in, nil
		}
		if !in.Success && in.Err == "" {
			if t, err := l.n.cfg.Records.Get(ctx, in.UID); err == nil {
				in.Err = t.Error
			}
		}
	}
	return in, nil
}

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

func (l *Loop) retire(ctx context.Context, cause error) error {
	if ctx.Err() != nil {
		return nil
	}
	l.n.log.Error("leader: commit failed; rebuilding the core from the store", "err", cause)
	core, err := l.n.newCore(ctx)
	if err != nil {
		return fmt.Errorf("leader: commit: %w; rebuild: %w", cause, err)
	}
	l.core = core
	return nil
}

func (l *Loop) run(ctx context.Context, effects chan<- Effect) error {
	clk := l.n.cfg.Clock
	for {
		effs, err := l.Turn(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		for _, e := range effs {
			select {
			case effects <- e:
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
