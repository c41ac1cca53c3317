package leader

import (
	"context"

	"github.com/ordolabs/ordo/internal/chain"
)

// Hooks for a simulation that turns the Loop by hand from one goroutine
// (internal/sim): Do would wait for a turn only its caller can make.

// Ask queues an input that answers (its Req set here) and returns a
// function that reports its reply once the turn that stepped it committed:
// ok is false before that turn, and err is the turn's error (ErrRetired) or
// the store's refusal to prepare it.
func (l *Loop) Ask(in Input) func() (rep Reply, ok bool, err error) {
	in.Req = l.req.Add(1)
	env := envelope{in: in, done: make(chan result, 1)}
	l.inbox.Put(env)
	var got *result
	return func() (Reply, bool, error) {
		if got == nil {
			select {
			case r := <-env.done:
				got = &r
			default:
				return Reply{}, false, nil
			}
		}
		return got.rep, true, got.err
	}
}

// TurnDeferred is Turn that returns the effects even with Config.Inline, so
// that the caller may perform some of them (Perform) and then crash the
// node between a commit and its effects.
func (l *Loop) TurnDeferred(ctx context.Context) ([]Effect, error) {
	inline := l.n.cfg.Inline
	l.n.cfg.Inline = false
	defer func() { l.n.cfg.Inline = inline }()
	return l.Turn(ctx)
}

// Perform runs one effect as the loop would and queues its answer.
func (l *Loop) Perform(ctx context.Context, e Effect) { l.Put(l.n.perform(ctx, e)) }

// PageInput is the input HandleEvents steps for a page of events (the
// registry's changes dropped from the tool cache first), for a listener
// whose handler turns the loop itself (Ask, then Turn).
func (n *Node) PageInput(evs []chain.Event, next uint64) Input { return n.pageInput(evs, next) }
