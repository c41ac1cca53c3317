package jobq

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/engine"
	"github.com/ordolabs/ordo/internal/store"
)

// Errors an insert or a cancel answers; callers branch on them.
var (
	// ErrQueueFull: the queue's waiting jobs are at its MaxWaiting.
	ErrQueueFull = errors.New("jobq: queue full")
	// ErrUnknownQueue: no configured queue has the job's queue name.
	ErrUnknownQueue = errors.New("jobq: unknown queue")
	// ErrUnknownKind: no worker is registered for the job's kind.
	ErrUnknownKind = errors.New("jobq: no worker for the job's kind")
	// ErrInvalid: a job without a kind, or with a negative MaxAttempts.
	ErrInvalid = errors.New("jobq: invalid job")
	// ErrNotLive: no live job has the ID (unknown, or already final).
	ErrNotLive = errors.New("jobq: no live job with that id")
	// ErrRunning: the job runs; it ends when its worker returns.
	ErrRunning = errors.New("jobq: job is running")
	// ErrRetired: the turn's commit failed (or the store held a job the
	// core did not know of: another inserter's); the core was rebuilt from
	// the store and the request changed nothing: try again.
	ErrRetired = errors.New("jobq: the store refused a commit; the request changed nothing, try again")
	// errDiverged: an insert the core made was not added by the store.
	errDiverged = errors.New("jobq: the store held a job the core did not know of")
)

// codeErr maps a refusal code to its sentinel.
func codeErr(c Code) error {
	switch c {
	case CodeNone:
		return nil
	case CodeQueueFull:
		return ErrQueueFull
	case CodeUnknownQueue:
		return ErrUnknownQueue
	case CodeInvalid:
		return ErrInvalid
	case CodeNotLive:
		return ErrNotLive
	case CodeRunning:
		return ErrRunning
	}
	return fmt.Errorf("jobq: refused (%v)", c)
}

// Worker runs the jobs of one kind. Work returns nil when the job is done;
// an error retries it with backoff (dead after MaxAttempts runs), unless it
// is Snooze's (run again later, the attempt not counted) or Cancel's (ended
// for good). A Worker is called from many goroutines at once and should
// return when ctx ends.
type Worker interface {
	Work(ctx context.Context, j store.Job) error
}

// WorkerFunc is a function as a Worker.
type WorkerFunc func(ctx context.Context, j store.Job) error

// Work implements Worker.
func (f WorkerFunc) Work(ctx context.Context, j store.Job) error { return f(ctx, j) }

type snoozeError struct{ d time.Duration }

func (e *snoozeError) Error() string { return fmt.Sprintf("jobq: snoozed for %v", e.d) }

// Snooze is a Work result that runs the job again after d without counting
// the attempt.
func Snooze(d time.Duration) error { return &snoozeError{d: d} }

type cancelError struct{ err error }

func (e *cancelError) Error() string { return "jobq: cancelled: " + e.err.Error() }
func (e *cancelError) Unwrap() error { return e.err }

// IsCancel reports whether err is (or wraps) a Cancel result.
func IsCancel(err error) bool {
	var ce *cancelError
	return errors.As(err, &ce)
}

// Cancel is a Work result that ends the job cancelled, recording why.
func Cancel(why error) error {
	if why == nil {
		why = errors.New("cancelled by its worker")
	}
	return &cancelError{err: why}
}

// Config configures a Node.
type Config struct {
	// Store holds the jobs (required).
	Store store.JobStore
	// Core configures the queues, periodic jobs and retries.
	Core CoreConfig
	// Clock stamps inputs and times deadlines. Defaults to clock.Real.
	Clock clock.Clock
	// Log receives failed commits and panicking workers. Defaults to
	// slog.Default().
	Log *slog.Logger
	// NewID makes the IDs of inserted jobs (positive, unique). Defaults
	// to a random positive int64 (crypto/rand).
	NewID func() int64
	// Inline makes Turn perform the work itself, in order, and queue the
	// answers (tests and simulations); Run is then not used.
	Inline bool
}

// Node is the job queue's driver: the core on an engine.Loop, the
// workers, and the store. Register workers, Open, then Run (or Turn with
// Inline).
type Node struct {
	cfg     Config
	workers map[string]Worker
	loop    *engine.Loop[Input, Reply, Effect]
	core    *Core

	mu      sync.Mutex
	working map[int64]int // runs handed to workers and not yet stepped back
}

// New returns a Node for cfg.
func New(cfg Config) (*Node, error) {
	if cfg.Store == nil {
		return nil, errors.New("jobq: no store")
	}
	var err error
	if cfg.Core, err = cfg.Core.WithDefaults(); err != nil {
		return nil, err
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.NewID == nil {
		cfg.NewID = randomID
	}
	return &Node{cfg: cfg, workers: map[string]Worker{}, working: map[int64]int{}}, nil
}

func randomID() int64 {
	var b [8]byte
	for {
		_, _ = rand.Read(b[:])
		if id := int64(binary.BigEndian.Uint64(b[:]) >> 1); id > 0 {
			return id
		}
	}
}

// Register sets the worker of kind (before Open).
func (n *Node) Register(kind string, w Worker) { n.workers[kind] = w }

// Open builds the core from the store (rescuing jobs left running) and the
// loop around it. Every periodic job's kind must have a worker.
func (n *Node) Open(ctx context.Context) error {
	for _, p := range n.cfg.Core.Periodic {
		if n.workers[p.Kind] == nil {
			return fmt.Errorf("periodic job %s: %w %q", p.Name, ErrUnknownKind, p.Kind)
		}
	}
	if err := n.rebuild(ctx); err != nil {
		return err
	}
	n.loop = engine.New(engine.Spec[Input, Reply, Effect]{
		Name: "jobq", Clock: n.cfg.Clock, Log: n.cfg.Log, Inline: n.cfg.Inline, Retired: ErrRetired,
		WithReq: func(in Input, req uint64) Input { in.Req = req; return in },
		ReqOf:   func(r Reply) uint64 { return r.Req },
		Stamp:   func(in Input, now time.Time) Input { in.At = now; return in },
		Tick:    Tick,
		Step: func(in Input) {
			if in.Kind == InputWorked {
				n.mu.Lock()
				if n.working[in.ID] == in.Attempt {
					delete(n.working, in.ID)
				}
				n.mu.Unlock()
			}
			n.core.Step(in)
		},
		HasReady:     func() bool { return n.core.HasReady() },
		Ready:        n.ready,
		Advance:      func() { n.core.Advance() },
		NextDeadline: func() time.Time { return n.core.NextDeadline() },
		Rebuild:      n.rebuild,
		Perform:      n.perform,
	})
	return nil
}

// rebuild replaces the core by one built from the store.
func (n *Node) rebuild(ctx context.Context) error {
	jobs, err := n.cfg.Store.LiveJobs(ctx)
	if err != nil {
		return fmt.Errorf("jobq: load: %w", err)
	}
	now := n.cfg.Clock.Now()
	snap := Snapshot{Jobs: jobs, Periods: map[string]time.Time{}, Working: map[int64]int{}}
	for _, p := range n.cfg.Core.Periodic {
		start := PeriodStart(now, p.Every)
		_, err := n.cfg.Store.JobByUniqueKey(ctx, PeriodicKey(p.Name, start))
		switch {
		case err == nil:
			snap.Periods[p.Name] = start
		case !errors.Is(err, store.ErrNotFound):
			return fmt.Errorf("jobq: load periodic job %s: %w", p.Name, err)
		}
	}
	n.mu.Lock()
	for id, a := range n.working {
		snap.Working[id] = a
	}
	n.mu.Unlock()
	core, err := NewCore(n.cfg.Core, now, snap)
	if err != nil {
		return err
	}
	n.core = core
	return nil
}

// ready takes the core's Ready; its commit applies the batch and fails
// (retiring the core) when the store did not add an insert the core made.
func (n *Node) ready() engine.Ready[Reply, Effect] {
	r := n.core.Ready()
	out := engine.Ready[Reply, Effect]{Replies: r.Replies, Effects: r.Effects}
	if !r.Batch.Empty() {
		out.Commit = func(ctx context.Context) error {
			res, err := n.cfg.Store.ApplyJobs(ctx, r.Batch)
			if err != nil {
				return err
			}
			for _, ins := range res {
				if !ins.Created {
					return fmt.Errorf("%w: job %d (key %q)", errDiverged, ins.Job.ID, ins.Job.UniqueKey)
				}
			}
			n.handOut(r.Effects)
			return nil
		}
	} else {
		n.handOut(r.Effects)
	}
	return out
}

// handOut records the runs a committed Ready hands to workers: a rebuild
// keeps those jobs running.
func (n *Node) handOut(effs []Effect) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, e := range effs {
		n.working[e.Job.ID] = e.Job.Attempt
	}
}

// perform runs one job with its kind's worker and returns the answer.
func (n *Node) perform(ctx context.Context, e Effect) (in Input) {
	j := e.Job
	w := n.workers[j.Kind]
	if w == nil {
		return Worked(j.ID, j.Attempt, OutcomeFailed, fmt.Sprintf("%v %q", ErrUnknownKind, j.Kind), 0)
	}
	defer func() {
		if p := recover(); p != nil {
			n.cfg.Log.Error("jobq: worker panicked", "job", j.ID, "kind", j.Kind, "panic", p)
			in = Worked(j.ID, j.Attempt, OutcomeFailed, fmt.Sprintf("worker panicked: %v", p), 0)
		}
	}()
	err := w.Work(ctx, j)
	var se *snoozeError
	var ce *cancelError
	switch {
	case err == nil:
		return Worked(j.ID, j.Attempt, OutcomeDone, "", 0)
	case errors.As(err, &se):
		return Worked(j.ID, j.Attempt, OutcomeSnooze, "", se.d)
	case errors.As(err, &ce):
		return Worked(j.ID, j.Attempt, OutcomeCancel, ce.err.Error(), 0)
	}
	return Worked(j.ID, j.Attempt, OutcomeFailed, err.Error(), 0)
}

// InsertParams is a job to insert.
type InsertParams struct {
	// ID is the job's ID; zero: the node's NewID. An insert is idempotent
	// by ID.
	ID    int64
	Queue string
	Kind  string
	// Args are the worker's arguments (JSON).
	Args []byte
	// UniqueKey, when set, makes the insert answer the live job holding
	// it instead of adding a second.
	UniqueKey string
	// RunAt schedules the job; zero: now.
	RunAt time.Time
	// MaxAttempts defaults to CoreConfig.MaxAttempts.
	MaxAttempts int
}

// Insert adds a job once it is committed, or answers the live job holding
// its ID or unique key (created false). It fails with ErrQueueFull,
// ErrUnknownQueue, ErrUnknownKind, ErrInvalid or ErrRetired.
func (n *Node) Insert(ctx context.Context, p InsertParams) (store.Job, bool, error) {
	if n.workers[p.Kind] == nil {
		return store.Job{}, false, fmt.Errorf("%w %q", ErrUnknownKind, p.Kind)
	}
	if p.ID == 0 {
		p.ID = n.cfg.NewID()
	}
	rep, err := n.loop.Do(ctx, Insert(store.Job{ID: p.ID, Queue: p.Queue, Kind: p.Kind, Args: p.Args,
		UniqueKey: p.UniqueKey, RunAt: p.RunAt, MaxAttempts: p.MaxAttempts}))
	if err != nil {
		return store.Job{}, false, err
	}
	if err := codeErr(rep.Code); err != nil {
		return store.Job{}, false, err
	}
	return rep.Job, rep.Created, nil
}

// CancelJob ends a waiting job cancelled, once committed. It fails with
// ErrNotLive, ErrRunning or ErrRetired.
func (n *Node) CancelJob(ctx context.Context, id int64) (store.Job, error) {
	rep, err := n.loop.Do(ctx, CancelJob(id))
	if err != nil {
		return store.Job{}, err
	}
	if err := codeErr(rep.Code); err != nil {
		return rep.Job, err
	}
	return rep.Job, nil
}

// Turn does one turn of the loop (tests and simulations; with Inline it
// performs the work itself).
func (n *Node) Turn(ctx context.Context) error {
	_, err := n.loop.Turn(ctx)
	return err
}

// Run turns the loop until ctx ends (or the loop fails), each job's run on
// a goroutine of its own (each queue's concurrency bounds them); it returns
// once the workers have returned.
func (n *Node) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	effects := make(chan Effect)
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-ctx.Done():
				return
			case e := <-effects:
				wg.Go(func() { n.loop.Perform(ctx, e) })
			}
		}
	})
	err := n.loop.Run(ctx, func(Effect) chan<- Effect { return effects })
	cancel() // a failed loop stops the dispatcher and the workers too
	wg.Wait()
	return err
}
