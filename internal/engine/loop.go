package engine

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/mailbox"
)

// Spec is what a Loop needs of an engine: its input, reply and effect types
// (I, R, E) and functions over its core and store. Every function is
// required unless its comment says otherwise.
type Spec[I, R, E any] struct {
	// Name prefixes the Loop's log lines and errors ("processor").
	Name string
	// Clock stamps inputs and times the deadline timer.
	Clock clock.Clock
	// Log receives a failed commit.
	Log *slog.Logger
	// Inline makes Turn perform the effects itself (Perform) and queue their
	// answers instead of returning them.
	Inline bool
	// Retired is the error callers of a turn whose commit failed get, and
	// callers of a Loop whose Run has returned.
	Retired error

	// WithReq returns in carrying the request number its reply will bear.
	WithReq func(in I, req uint64) I
	// ReqOf is the request number a reply answers.
	ReqOf func(rep R) uint64
	// Stamp returns in stamped with the turn's time.
	Stamp func(in I, now time.Time) I
	// Tick is the clock input stepped at the end of every turn's inputs.
	Tick func(now time.Time) I
	// Prepare completes an input with what the store knows, before it is
	// stamped; step false leaves it unstepped (its caller is still answered
	// with the turn), an error answers its caller at once. Defaults to
	// none: every input is stepped as it came.
	Prepare func(ctx context.Context, in I) (out I, step bool, err error)
	// Step steps an input into the core (and traces it).
	Step func(in I)
	// HasReady reports whether the core has a Ready.
	HasReady func() bool
	// Ready takes the core's Ready (and traces it).
	Ready func() Ready[R, E]
	// Advance advances the core past the committed Ready (and traces it).
	Advance func()
	// NextDeadline is the core's next deadline, zero for none.
	NextDeadline func() time.Time
	// Rebuild replaces the core by one built from the store.
	Rebuild func(ctx context.Context) error
	// Perform performs an effect and returns the input that answers it.
	Perform func(ctx context.Context, e E) I
}

// Ready is the engine-neutral view of a core's Ready.
type Ready[R, E any] struct {
	// Commit writes the Ready's batch in one store transaction; nil when
	// the batch is empty.
	Commit func(ctx context.Context) error
	// Replies are the answers to inputs that carry a request number.
	Replies []R
	// Effects are performed once the batch is committed.
	Effects []E
}

// Loop is the driver's body around a core; see the package doc.
type Loop[I, R, E any] struct {
	spec  Spec[I, R, E]
	inbox *mailbox.Mailbox[envelope[I, R]]
	req   atomic.Uint64
	// stopped is set when Run returns: nobody turns the Loop any more, so
	// its waiting callers, and every later one, get Spec.Retired at once.
	stopped atomic.Bool
}

// envelope is an input and, for a caller that waits, its request number
// and where its answer goes once the turn that stepped it is committed.
type envelope[I, R any] struct {
	in   I
	req  uint64
	done chan result[R]
}

type result[R any] struct {
	rep R
	err error
}

// New returns a Loop over spec with an empty mailbox.
func New[I, R, E any](spec Spec[I, R, E]) *Loop[I, R, E] {
	return &Loop[I, R, E]{spec: spec, inbox: mailbox.New[envelope[I, R]]()}
}

// Put queues an input; Turn stamps it with the clock when it steps it.
func (l *Loop[I, R, E]) Put(in I) { l.inbox.Put(envelope[I, R]{in: in}) }

// Waiting reports whether inputs are queued.
func (l *Loop[I, R, E]) Waiting() bool { return l.inbox.Len() > 0 }

// ask queues in with a fresh request number and returns where its answer
// will go.
func (l *Loop[I, R, E]) ask(in I) <-chan result[R] {
	req := l.req.Add(1)
	env := envelope[I, R]{in: l.spec.WithReq(in, req), req: req, done: make(chan result[R], 1)}
	l.inbox.Put(env)
	if l.stopped.Load() { // Put after Run's last drain: answer it here
		l.drainStopped()
	}
	return env.done
}

// drainStopped answers every caller waiting in the mailbox of a stopped
// Loop with Spec.Retired (their inputs were never stepped).
func (l *Loop[I, R, E]) drainStopped() {
	answer(l.inbox.Take(), nil, l.spec.ReqOf, l.spec.Retired)
}

// Do queues an input that answers (its request number set here) and waits
// until the turn that stepped it is committed: its reply, or Spec.Retired,
// or the error Prepare gave it, or ctx's error.
func (l *Loop[I, R, E]) Do(ctx context.Context, in I) (R, error) {
	done := l.ask(in)
	select {
	case r := <-done:
		return r.rep, r.err
	case <-ctx.Done():
		var zero R
		return zero, ctx.Err()
	}
}

// Ask is Do without waiting, for a simulation that turns the Loop by hand
// from one goroutine: the returned function reports the input's reply once
// a Turn has answered it (ok false before that), with the turn's error
// (Spec.Retired, or Prepare's).
func (l *Loop[I, R, E]) Ask(in I) func() (rep R, ok bool, err error) {
	done := l.ask(in)
	var got *result[R]
	return func() (R, bool, error) {
		if got == nil {
			select {
			case r := <-done:
				got = &r
			default:
				var zero R
				return zero, false, nil
			}
		}
		return got.rep, true, got.err
	}
}

// Turn steps every queued input (and the clock), commits the Ready,
// advances, answers the callers, and returns the effects to perform; with
// Spec.Inline it performs them itself and queues their answers. A failed
// commit retires the core: a new one is built from the store.
func (l *Loop[I, R, E]) Turn(ctx context.Context) ([]E, error) {
	return l.turn(ctx, l.spec.Inline)
}

// TurnDeferred is Turn that returns the effects even with Spec.Inline, so
// that a simulation may perform some of them (Perform) and then crash the
// node between a commit and its effects.
func (l *Loop[I, R, E]) TurnDeferred(ctx context.Context) ([]E, error) {
	return l.turn(ctx, false)
}

// Perform runs one effect as the loop would and queues its answer.
func (l *Loop[I, R, E]) Perform(ctx context.Context, e E) { l.Put(l.spec.Perform(ctx, e)) }

func (l *Loop[I, R, E]) turn(ctx context.Context, inline bool) ([]E, error) {
	s := &l.spec
	taken := l.inbox.Take()
	envs := taken[:0]
	now := s.Clock.Now().UTC()
	for _, env := range taken {
		in, step, err := env.in, true, error(nil)
		if s.Prepare != nil {
			in, step, err = s.Prepare(ctx, env.in)
		}
		if err != nil {
			answer([]envelope[I, R]{env}, nil, s.ReqOf, err) // not stepped: its caller retries
			continue
		}
		envs = append(envs, env)
		if step {
			s.Step(s.Stamp(in, now))
		}
	}
	s.Step(s.Tick(now))
	if !s.HasReady() {
		answer(envs, nil, s.ReqOf, nil)
		return nil, nil
	}
	r := s.Ready()
	if r.Commit != nil {
		if err := r.Commit(ctx); err != nil {
			answer(envs, nil, s.ReqOf, s.Retired)
			return nil, l.retire(ctx, err)
		}
	}
	s.Advance()
	answer(envs, r.Replies, s.ReqOf, nil)
	if !inline {
		return r.Effects, nil
	}
	for _, e := range r.Effects {
		l.Perform(ctx, e)
	}
	return nil, nil
}

// answer hands each waiting caller its reply (the zero reply when its
// input has none), or err.
func answer[I, R any](envs []envelope[I, R], replies []R, reqOf func(R) uint64, err error) {
	byReq := make(map[uint64]R, len(replies))
	for _, r := range replies {
		byReq[reqOf(r)] = r
	}
	for _, env := range envs {
		if env.done != nil {
			env.done <- result[R]{rep: byReq[env.req], err: err}
		}
	}
}

// retire rebuilds the core from the store after a failed commit, unless
// ctx ended (the commit was cut short by a shutdown: the store holds the
// last one); then it returns ctx's error, so that no caller turns a core
// left between Ready and Advance again.
func (l *Loop[I, R, E]) retire(ctx context.Context, cause error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: commit cut short: %w", l.spec.Name, err)
	}
	l.spec.Log.Error(l.spec.Name+": commit failed; rebuilding the core from the store", "err", cause)
	if err := l.spec.Rebuild(ctx); err != nil {
		return fmt.Errorf("%s: commit: %w; rebuild: %w", l.spec.Name, cause, err)
	}
	return nil
}

// Run turns the loop until ctx ends, waking on inputs and on the core's
// next deadline; each effect goes to the channel route names for it (its
// workers perform it and Put the answer).
//
// Once Run returns the Loop is stopped: callers waiting on it and later
// ones get Spec.Retired (an engine that stopped here, its lease lost,
// answers "unavailable" rather than leave its callers waiting).
func (l *Loop[I, R, E]) Run(ctx context.Context, route func(E) chan<- E) error {
	defer func() {
		l.stopped.Store(true)
		l.drainStopped()
	}()
	clk := l.spec.Clock
	for {
		effs, err := l.Turn(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil // a commit cut short by the shutdown: the store holds the last one
			}
			return err
		}
		for _, e := range effs {
			select {
			case route(e) <- e:
			case <-ctx.Done():
				return nil
			}
		}
		if l.Waiting() {
			continue
		}
		var timer <-chan time.Time
		var t clock.Timer
		if d := l.spec.NextDeadline(); !d.IsZero() {
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
