package processor

import (
	"context"
	"errors"
	"time"

	"github.com/ordolabs/ordo/internal/engine"
	"github.com/ordolabs/ordo/internal/store"
)

// ErrRetired is returned to callers whose input was in a turn whose commit
// failed: the core was rebuilt from the store and their input is lost (it
// changed nothing).
var ErrRetired = errors.New("processor: the store refused a commit; the request changed nothing, try again")

// Loop is the driver's body around the core (internal/engine's Loop): inputs
// in from any goroutine (Put, Do), and Turn, which steps them, commits the
// Ready, advances, then answers callers and returns (or, Inline, performs)
// the effects.
type Loop struct {
	*engine.Loop[Input, Reply, Effect]
	n    *Node
	core *Core
}

func newLoop(n *Node, c *Core) *Loop {
	l := &Loop{n: n, core: c}
	l.Loop = engine.New(engine.Spec[Input, Reply, Effect]{
		Name: "processor", Clock: n.cfg.Clock, Log: n.log, Inline: n.cfg.Inline, Retired: ErrRetired,
		WithReq: func(in Input, req uint64) Input { in.Req = req; return in },
		ReqOf:   func(r Reply) uint64 { return r.Req },
		Stamp:   func(in Input, now time.Time) Input { in.At = now; return in },
		Tick:    func(now time.Time) Input { return Time(now) },
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

// Core returns the loop's core (tests and simulations read it between
// turns).
func (l *Loop) Core() *Core { return l.core }

// prepare completes an input with what the store knows: whether an added
// batch's id was used, a failed execution's error. It drops a finish that
// is not the processor's.
func (l *Loop) prepare(ctx context.Context, in Input) (Input, bool, error) {
	switch in.Kind {
	case InputAdd:
		if in.Batch != nil && in.Batch.ID != "" {
			_, err := l.n.cfg.Store.GetBatch(ctx, in.Processor, in.Batch.ID)
			in.Used = err == nil || !errors.Is(err, store.ErrNotFound)
		}
	case InputFinished:
		if !l.core.Knows(in.UID) {
			return in, false, nil
		}
		if !in.Success && in.Err == "" && l.n.cfg.Records != nil {
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
			if err := l.n.cfg.Store.ApplyProcessor(ctx, r.Batch); err != nil {
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
		l.n.log.Error("processor: trace", "err", err)
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

// run turns the loop until ctx ends; submissions and deliveries go to their
// own workers.
func (l *Loop) run(ctx context.Context, submits, deliveries chan<- Effect) error {
	return l.Run(ctx, func(e Effect) chan<- Effect {
		if e.Kind == EffectDeliver {
			return deliveries
		}
		return submits
	})
}
