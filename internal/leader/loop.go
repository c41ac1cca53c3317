package leader

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ordolabs/ordo/internal/engine"
	"github.com/ordolabs/ordo/internal/store"
)

// ErrRetired is returned to callers whose input was in a turn whose commit
// failed: the core was rebuilt from the store and the input changed nothing.
var ErrRetired = errors.New("leader: the store refused a commit; the request changed nothing, try again")

// Loop is the driver's body around the core (internal/engine's Loop): inputs
// in from any goroutine (Put, Do) and Turn, which steps them, commits,
// advances, answers callers and returns (or, Inline, performs) the effects.
type Loop struct {
	*engine.Loop[Input, Reply, Effect]
	n    *Node
	core *Core
}

func newLoop(n *Node, c *Core) *Loop {
	l := &Loop{n: n, core: c}
	l.Loop = engine.New(engine.Spec[Input, Reply, Effect]{
		Name: "leader", Clock: n.cfg.Clock, Log: n.log, Inline: n.cfg.Inline, Retired: ErrRetired,
		WithReq: func(in Input, req uint64) Input { in.Req = req; return in },
		ReqOf:   func(r Reply) uint64 { return r.Req },
		Stamp:   func(in Input, now time.Time) Input { in.At = now; return in },
		Tick:    func(now time.Time) Input { return Time(now, n.cfg.Rand()) },
		Prepare: l.prepare,
		Step: func(in Input) {
			n.tr.Input(in)
			l.core.Step(in)
		},
		HasReady:     func() bool { return l.core.HasReady() },
		Ready:        l.ready,
		Advance:      l.advance,
		NextDeadline: func() time.Time { return l.core.NextDeadline() },
		Rebuild:      l.rebuild,
		Perform:      n.perform,
	})
	return l
}

// Core returns the loop's core (read it between turns).
func (l *Loop) Core() *Core { return l.core }

// prepare completes an input with what the store knows: which requested
// walks are indexed already, a failed result's error; it drops a finish
// that is not the leader's.
func (l *Loop) prepare(ctx context.Context, in Input) (Input, bool, error) {
	switch in.Kind {
	case InputEvents:
		for i := range in.Requests {
			_, err := l.n.cfg.Store.LeaderEventByWalk(ctx, in.Requests[i].Walk)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return in, false, fmt.Errorf("leader: index: %w", err)
			}
			in.Requests[i].Known = err == nil
		}
	case InputFinished:
		if !l.core.Knows(in.UID) {
			in.Kind = InputTime // not ours: a no-op step keeps the trace whole
			in.UID = ""
			return in, true, nil
		}
		if !in.Success && in.Err == "" {
			if t, err := l.n.cfg.Records.Get(ctx, in.UID); err == nil {
				in.Err = t.Error
			}
		}
	default: // the other inputs need nothing read before the step
	}
	return in, true, nil
}

// ready takes the core's Ready and traces it; its commit applies the batch
// and observes the commit's time.
func (l *Loop) ready() engine.Ready[Reply, Effect] {
	r := l.core.Ready()
	l.n.tr.Ready(r)
	out := engine.Ready[Reply, Effect]{Replies: r.Replies, Effects: r.Effects}
	if !r.Batch.Empty() {
		out.Commit = func(ctx context.Context) error {
			start := l.n.cfg.Clock.Now()
			if err := l.n.cfg.Store.ApplyLeader(ctx, r.Batch); err != nil {
				return err
			}
			l.n.cfg.Metrics.observe(r, l.n.cfg.Clock.Now().Sub(start).Seconds())
			return nil
		}
	}
	return out
}

func (l *Loop) advance() {
	l.core.Advance()
	l.n.tr.Advance()
	if err := l.n.tr.Flush(); err != nil {
		l.n.log.Error("leader: trace", "err", err)
	}
}

// rebuild replaces the core by one built from the store.
func (l *Loop) rebuild(ctx context.Context) error {
	core, err := l.n.newCore(ctx)
	if err != nil {
		return err
	}
	l.core = core
	return nil
}

// run turns the loop until ctx ends; effects go to the workers.
func (l *Loop) run(ctx context.Context, effects chan<- Effect) error {
	return l.Run(ctx, func(Effect) chan<- Effect { return effects })
}
