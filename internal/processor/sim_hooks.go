package processor

// Hooks for a simulation that turns the Loop by hand from one goroutine
// (internal/sim): Do would block it, and Inline performs every effect of a
// turn before a crash could fall between them. TurnDeferred and Perform
// come from internal/engine's Loop.

// Ask queues in with a fresh Req, as Do does, without waiting: the returned
// function reports the input's Reply once a Turn has stepped and committed
// it (ok false before that, or when the turn's commit failed).
func (l *Loop) Ask(in Input) func() (rep Reply, ok bool) {
	got := l.Loop.Ask(in)
	return func() (Reply, bool) {
		rep, ok, err := got()
		return rep, ok && err == nil
	}
}
