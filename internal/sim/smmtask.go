package sim

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/ordolabs/ordo/internal/clock"
)

// Tasks: the driver's code runs only in tasks, one at a time (see
// smmreal.go).

// simTask is a job's run or an intake on a goroutine of its own.
type simTask struct {
	name   string
	owner  *realNode
	onDone func(err error) // on the simulation's goroutine, once reaped
	park   chan struct{}
	done   chan struct{}
	err    error
	// inside counts the node's code the task is in (its owner's, and a
	// peer's while it serves the task's request); under tmu.
	inside map[*realNode]int
}

// taskKey carries a task in its context (the network counts the nodes
// it enters).
type taskKey struct{}

// taskOf is ctx's task, nil for none.
func taskOf(ctx context.Context) *simTask {
	t, _ := ctx.Value(taskKey{}).(*simTask)
	return t
}

// runTask runs f as a task of t.owner's and waits until it ends or parks.
func (w *realWorld) runTask(t *simTask, f func(ctx context.Context) error) {
	t.park, t.done = make(chan struct{}, 1), make(chan struct{})
	t.inside = map[*realNode]int{t.owner: 1}
	ctx := context.WithValue(t.owner.ctx, taskKey{}, t)
	w.tmu.Lock()
	w.active = t
	w.tasks = append(w.tasks, t)
	w.tmu.Unlock()
	go func() {
		err := f(ctx)
		w.tmu.Lock()
		t.err = err
		t.inside = map[*realNode]int{}
		if w.active == t {
			w.active = nil
		}
		w.tmu.Unlock()
		close(t.done)
	}()
	w.waitTask(t)
}

// waitTask waits until t ends or parks, then reaps the tasks ended.
func (w *realWorld) waitTask(t *simTask) {
	select {
	case <-t.done:
	case <-t.park:
	}
	w.reap()
}

// isDone reports whether t has ended.
func isDone(t *simTask) bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

// reap hands each ended task's error to its onDone, in start order.
func (w *realWorld) reap() {
	w.tmu.Lock()
	var ended []*simTask
	kept := w.tasks[:0]
	for _, t := range w.tasks {
		if isDone(t) {
			ended = append(ended, t)
		} else {
			kept = append(kept, t)
		}
	}
	w.tasks = kept
	w.tmu.Unlock()
	for _, t := range ended {
		if t.onDone != nil {
			t.onDone(t.err)
		}
	}
}

// waitInside waits for the tasks in rn's code to end (rn's context is
// cancelled: they return).
func (w *realWorld) waitInside(rn *realNode) {
	w.tmu.Lock()
	var in []*simTask
	for _, t := range w.tasks {
		if t.inside[rn] > 0 {
			in = append(in, t)
		}
	}
	w.tmu.Unlock()
	for _, t := range in {
		if !w.waitDone(t.done) {
			w.fatal = fmt.Errorf("sim smm: task %s did not end when %s crashed", t.name, rn.name)
		}
	}
	w.reap()
}

// simClock is a node's clock: the world's virtual clock, except for the
// timers of the durations a task parks on (or is woken by), which it
// hands to the simulation.
type simClock struct {
	w *realWorld
	v *clock.Virtual
}

func (c *simClock) Now() time.Time { return c.v.Now() }

func (c *simClock) NewTimer(d time.Duration) clock.Timer {
	if d != simAckTimeout && d != simSyncPoll && d != simSyncTimeout {
		return c.v.NewTimer(d)
	}
	w := c.w
	w.tmu.Lock()
	defer w.tmu.Unlock()
	t := w.active
	if t == nil {
		return c.v.NewTimer(d)
	}
	w.tseq++
	tm := &simTimer{w: w, at: c.v.Now().Add(d), ch: make(chan time.Time, 1), task: t, seq: w.tseq}
	w.timers = append(w.timers, tm)
	if d != simSyncTimeout { // the task waits on it now: parked
		w.active = nil
		select {
		case t.park <- struct{}{}:
		default:
		}
	}
	return tm
}

// simTimer is a task's timer, fired by the simulation.
type simTimer struct {
	w    *realWorld
	at   time.Time
	ch   chan time.Time
	task *simTask
	seq  uint64
}

func (t *simTimer) C() <-chan time.Time { return t.ch }

func (t *simTimer) Stop() bool {
	t.w.tmu.Lock()
	defer t.w.tmu.Unlock()
	i := slices.Index(t.w.timers, t)
	if i < 0 {
		return false
	}
	t.w.timers = slices.Delete(t.w.timers, i, i+1)
	return true
}

// nextTimer is the earliest task timer due by target (nil: none).
func (w *realWorld) nextTimer(target time.Time) *simTimer {
	w.tmu.Lock()
	defer w.tmu.Unlock()
	var best *simTimer
	for _, tm := range w.timers {
		if tm.at.After(target) {
			continue
		}
		if best == nil || tm.at.Before(best.at) || (tm.at.Equal(best.at) && tm.seq < best.seq) {
			best = tm
		}
	}
	return best
}

// fire fires a task's timer and waits for the task woken to end or park.
func (w *realWorld) fire(tm *simTimer) {
	w.tmu.Lock()
	if i := slices.Index(w.timers, tm); i >= 0 {
		w.timers = slices.Delete(w.timers, i, i+1)
	}
	t := tm.task
	live := !isDone(t)
	if live {
		w.active = t
	}
	w.tmu.Unlock()
	tm.ch <- tm.at
	if live {
		w.waitTask(t)
	}
}

// advance moves the clock by dt, firing the tasks' timers one at a time
// and letting the job queues hand back what falls due.
func (w *realWorld) advance(dt time.Duration) error {
	target := w.clk.Now().Add(dt)
	for {
		tm := w.nextTimer(target)
		if tm == nil {
			break
		}
		w.clk.Set(tm.at)
		if err := w.settleJobs(); err != nil {
			return err
		}
		w.fire(tm)
	}
	w.clk.Set(target)
	return w.settleJobs()
}

// drainTasks ends every task left at the end of a run, for a result the
// same seed always gives: each remaining timer fired, earliest first, the
// clock moved to it (no job runs: a task's own timers end it, a recurring
// sync's at SyncTimeout), each task waited for; an intake an
// acknowledgement woke ends on its own, and is waited for too.
func (w *realWorld) drainTasks() error {
	for fired := 0; ; fired++ {
		tm := w.nextTimer(time.Unix(1<<62, 0))
		if tm == nil {
			break
		}
		if fired == 10000 {
			return fmt.Errorf("sim smm: task %s still waits on its timers at the end", tm.task.name)
		}
		w.clk.Set(tm.at)
		w.fire(tm)
	}
	w.tmu.Lock()
	left := slices.Clone(w.tasks)
	w.tmu.Unlock()
	for _, t := range left {
		if !w.waitDone(t.done) {
			return fmt.Errorf("sim smm: task %s did not end", t.name)
		}
	}
	w.reap()
	return nil
}
