package processor

import "context"

// Hooks for a simulation that turns the Loop by hand from one goroutine
// (internal/sim): Do would block it, and Inline performs every effect of a
// turn before a crash could fall between them.

// Ask queues in with a fresh Req, as Do does, without waiting: the returned
// function reports the input's Reply once a Turn has stepped and committed
// it (ok false before that, or when the turn's commit failed).
func (l *Loop) Ask(in Input) func() (rep Reply, ok bool) {
	in.Req = l.req.Add(1)
	env := envelope{in: in, done: make(chan result, 1)}
	l.inbox.Put(env)
	var got *result
	return func() (Reply, bool) {
		if got == nil {
			select {
			case r := <-env.done:
				got = &r
			default:
				return Reply{}, false
			}
		}
		return got.rep, got.err == nil
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
